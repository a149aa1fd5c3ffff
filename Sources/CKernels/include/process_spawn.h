#ifndef MERCURIAL_PROCESS_SPAWN_H
#define MERCURIAL_PROCESS_SPAWN_H

#include <spawn.h>

/// pipe2(ends, O_CLOEXEC): both ends close at exec from the start, so that a child
/// started by another thread meanwhile cannot inherit them (GNU, hidden from Swift's Glibc).
int mercurial_pipe_cloexec(int ends[2]);

/// posix_spawn_file_actions_addclosefrom_np(actions, from): the child closes every
/// descriptor from `from` up (glibc 2.34, a GNU extension Swift's Glibc does not show).
int mercurial_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
