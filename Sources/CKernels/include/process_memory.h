#ifndef MERCURIAL_PROCESS_MEMORY_H
#define MERCURIAL_PROCESS_MEMORY_H

/// Keeps blocks up to `mapped_above` bytes in malloc's heap, and up to `trim_above`
/// bytes of free memory at its top, instead of glibc's 128 KB defaults for both
/// (mallopt's M_MMAP_THRESHOLD and M_TRIM_THRESHOLD, macros Swift does not import).
/// Returns 0 when malloc refused either.
int mercurial_keep_freed_blocks(int mapped_above, int trim_above);

#endif
