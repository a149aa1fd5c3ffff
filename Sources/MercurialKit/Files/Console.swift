import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Standard output and standard error, written so that no failure can stop the
/// program: a closed, full or broken stream loses the text, nothing else. Every
/// line has its control characters escaped, so text quoted from a file or an
/// argument cannot steer the terminal.
public enum Console {
    /// Makes sure descriptors 0, 1 and 2 are open (on /dev/null if they were
    /// closed), so that no file opened later takes their place and receives
    /// messages; and turns a reader that has gone into EPIPE errors, not death.
    public static func prepareStandardStreams() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 {
            let null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != fd { dup2(null, fd); close(null) }
        }
        signal(SIGPIPE, SIG_IGN)
    }

    public static func error(_ line: String) { write(line, to: STDERR_FILENO) }
    public static func output(_ line: String, escaping: Bool = true) { write(line, to: STDOUT_FILENO, escaping: escaping) }

    /// Writes `text` and a newline (with `escaping`, every control character in `text` escaped).
    private static func write(_ text: String, to fd: Int32, escaping: Bool = true) {
        let body = text.hasSuffix("\n") ? String(text.dropLast()) : text
        let bytes = Array(((escaping ? body.escapedForTerminal : body) + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}

