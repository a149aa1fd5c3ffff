// Coverage feedback from outside the instrumented code.
//
// libpng, FreeType and HarfBuzz are the system's builds, without libFuzzer's
// coverage instrumentation, so the fuzzer cannot see which of their paths an
// input took. The targets summarise what came back (the error message with its
// numbers left out, the image's size class, ...) as a value and pass it here;
// each distinct value sets one of libFuzzer's "extra counters", which count as
// coverage, so inputs that make the libraries answer differently are kept.
#include <stdint.h>

#define COUNTERS 8192

__attribute__((section("__libfuzzer_extra_counters"), used))
static uint8_t mercurial_fuzz_counters[COUNTERS];

void mercurial_fuzz_feedback(uint64_t value) {
    uint8_t *counter = &mercurial_fuzz_counters[value % COUNTERS];
    if (*counter < 255) (*counter)++;
}
