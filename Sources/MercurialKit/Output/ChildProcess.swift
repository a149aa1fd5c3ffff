import CKernels
#if canImport(Glibc)
import Glibc
#endif

/// A program run beside us (ffmpeg), started with `posix_spawn`: Foundation's `Process`
/// would bring Foundation into the binary, which links FoundationEssentials only (see
/// EssentialText.swift). Its standard input is the read end of a pipe whose write end
/// `input` is ours, its output goes to /dev/null and its errors to a descriptor given;
/// it starts with every signal at its default and none blocked (we ignore SIGPIPE and
/// SIGXFSZ, which it must not inherit) and with no other descriptor of ours open.
final class ChildProcess {
    let pid: pid_t
    /// The write end of the child's standard input (non-blocking when asked).
    let input: Int32
    /// `waitpid`'s status, once the child is reaped.
    private var status: Int32?

    enum Termination: Equatable {
        case exit(Int32)
        case signal(Int32)
    }

    /// Starts `executable` with `arguments` (after its name) and `environment` (nil: ours).
    /// Throws the `errno` of what failed.
    init(executable: String, arguments: [String], environment: [String: String]?, standardError: Int32) throws(SpawnFailure) {
        var ends: [Int32] = [-1, -1]
        guard mercurial_pipe_cloexec(&ends) == 0 else { throw SpawnFailure(code: errno) }
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        // dup2 clears close-on-exec on 0, 1 and 2; everything else of ours closes at exec
        // or here (closefrom from 3 up: descriptors C libraries opened without O_CLOEXEC).
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        mercurial_spawn_close_from(&actions, 3)
        var everySignal = sigset_t(), noSignal = sigset_t()
        sigfillset(&everySignal)
        sigemptyset(&noSignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var child: pid_t = 0
        let code = envp.map { envp in posix_spawn(&child, executable, &actions, &attributes, argv, envp) }
            ?? posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        close(ends[0])
        guard code == 0 else {
            close(ends[1])
            throw SpawnFailure(code: code)
        }
        pid = child
        input = ends[1]
    }

    struct SpawnFailure: Error {
        let code: Int32
    }

    /// Whether the child still runs (it is reaped when it has stopped).
    var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        let reaped = waitpid(pid, &raw, WNOHANG)
        if reaped == pid { status = raw }
        return reaped == 0
    }

    /// Waits for the child to stop and reaps it.
    func waitUntilExit() {
        guard status == nil else { return }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 {
            guard errno == EINTR else { return }
        }
        status = raw
    }

    /// How the child stopped; nil while it runs (or was not reaped).
    var termination: Termination? {
        guard let status else { return nil }
        // <sys/wait.h>'s WIFEXITED, WEXITSTATUS and WTERMSIG, macros Swift does not import.
        let low = status & 0x7F
        return low == 0 ? .exit((status >> 8) & 0xFF) : .signal(low)
    }
}
