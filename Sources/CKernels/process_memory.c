#include "process_memory.h"

#include <malloc.h>

int mercurial_keep_freed_blocks(int mapped_above, int trim_above) {
    return mallopt(M_MMAP_THRESHOLD, mapped_above) && mallopt(M_TRIM_THRESHOLD, trim_above);
}
