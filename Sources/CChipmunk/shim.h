// Chipmunk2D 7 (Debian libchipmunk-dev): rigid bodies for the `dynamics` block.
#include <chipmunk/chipmunk.h>
