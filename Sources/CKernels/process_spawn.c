#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include "process_spawn.h"

int mercurial_pipe_cloexec(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}

int mercurial_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
