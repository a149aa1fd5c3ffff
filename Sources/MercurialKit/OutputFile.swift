import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes the output where the user asked, never leaving half a file:
///
/// - `-` is standard output;
/// - a character device or a FIFO (`/dev/stdout`, `/dev/null`, a named pipe) is
///   written in place, since it is not a file to replace;
/// - anything else is a file, replaced atomically: the bytes go to a temporary file
///   in the same folder (unnamed, with `O_TMPFILE`, where the file system allows),
///   which is then renamed over it. A symbolic link is followed and its target
///   replaced (the link stays; a dangling link creates its target). A reader sees
///   the old file or the new one, never half of one; a failure leaves no file behind.
public enum OutputFile {
    /// Where an output path leads.
    enum Destination {
        case standardOutput
        /// A device or FIFO, written in place.
        case stream(UserPath)
        /// A file (existing or not) replaced atomically: `path` is the one the
        /// user gave, `file` what it names once symbolic links are followed.
        case file(path: UserPath, file: UserPath)
    }

    /// Checks that `path` can be written, before any work is done.
    public static func validate(_ path: String) throws(MercurialError) {
        _ = try destination(path)
    }

    /// Whether `path` is where standard output goes (`-`, or `/dev/stdout` and the like):
    /// then nothing else may be printed there.
    public static func isStandardOutput(_ path: String) -> Bool {
        if path == "-" { return true }
        var target = stat(), out = stat()
        return stat(path, &target) == 0 && fstat(STDOUT_FILENO, &out) == 0
            && target.st_dev == out.st_dev && target.st_ino == out.st_ino
    }

    /// The folder whose disappearance stops the output being written (nil for a
    /// stream), as an absolute path.
    public static func folder(of path: String) -> String? {
        guard case .file(_, let file)? = try? destination(path) else { return nil }
        return UserPath(checked: file.directory).absolute
    }

    /// Writes `bytes` to `path`.
    public static func write(_ bytes: [UInt8], to path: String) throws(MercurialError) {
        switch try destination(path) {
        case .standardOutput:
            try writeAll(bytes, to: STDOUT_FILENO, what: "standard output")
        case .stream(let stream):
            try writeStream(bytes, to: stream)
        case .file(let given, let file):
            try replace(file, with: bytes, given: given)
        }
    }

    // MARK: - Where the output goes

    static func destination(_ path: String) throws(MercurialError) -> Destination {
        guard !path.isEmpty else { throw MercurialError("the output path is empty; give a file name with -o") }
        if path == "-" { return .standardOutput }
        let given = try UserPath(path, role: "output")
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG where (path.hasPrefix("/dev/") || path.hasPrefix("/proc/")) && isStandardOutput(path):
                // `/dev/stdout` redirected to a file: write through the open descriptor,
                // keeping its offset and append mode, rather than replace the file.
                return .standardOutput
            case S_IFREG:
                break
            case S_IFCHR, S_IFIFO:
                return .stream(given)
            case S_IFDIR:
                throw MercurialError("output '\(given)' is a directory; give a file name, e.g. \(given.string.hasSuffix("/") ? String(given.string.dropLast()) : given.string)/title.png")
            default:
                throw MercurialError("output '\(given)' is \(InputFile.kindName(info) ?? "not a regular file"); give a file name")
            }
        } else if errno == ELOOP {
            throw MercurialError("output '\(given)' is a loop of symbolic links; fix the link or choose another path")
        }
        guard let file = given.followingLinks() else {
            throw MercurialError("output '\(given)' is a loop of symbolic links; fix the link or choose another path")
        }
        if file.string.hasSuffix("/") {
            throw MercurialError("output '\(given)' ends in '/' but is not a directory; give a file name")
        }
        let directory = UserPath(checked: file.directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.string, isDirectory: &isDirectory) else {
            throw MercurialError("output directory '\(directory)' does not exist; create it or choose another path")
        }
        guard isDirectory.boolValue else {
            throw MercurialError("output directory '\(directory)' is not a directory; choose another path")
        }
        guard access(directory.string, W_OK) == 0 else {
            throw MercurialError("output directory '\(directory)' is not writable; choose another path or fix its permissions")
        }
        let nameBytes = file.lastComponent.utf8.count
        let nameMax = pathconf(directory.string, Int32(_PC_NAME_MAX))
        let limit = nameMax > 0 ? nameMax : 255
        guard nameBytes <= limit else {
            throw MercurialError("output name '\(file.lastComponent.escapedForTerminal.prefix(40))…' is \(nameBytes) bytes, over this file system's limit of \(limit) bytes a name; use a shorter name")
        }
        return .file(path: given, file: file)
    }

    // MARK: - Writing

    private static func writeStream(_ bytes: [UInt8], to stream: UserPath) throws(MercurialError) {
        // Non-blocking, so that a FIFO nobody reads is an error, not a hang.
        let fd = open(stream.string, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENXIO {
                throw MercurialError("output '\(stream)' is a named pipe (FIFO) that nobody reads; start its reader first or choose a file")
            }
            throw MercurialError("cannot open output '\(stream)' (\(String(cString: strerror(errno)))); choose another path")
        }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        try writeAll(bytes, to: fd, what: "'\(stream)'")
    }

    /// Writes every byte, waiting out a full pipe; the error names `what`.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32, what: String) throws(MercurialError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset) }
            if n > 0 { offset += n; continue }
            let code = n < 0 ? errno : EIO
            if code == EINTR { continue }
            if code == EAGAIN {
                var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiting, 1, -1)
                continue
            }
            throw writeError(code, what)
        }
    }

    private static func writeError(_ code: Int32, _ what: String) -> MercurialError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT:
            return MercurialError("cannot write \(what): no space left (\(reason)); free some space or choose another output")
        case EPIPE:
            return MercurialError("cannot write \(what): its reader has gone (\(reason))")
        default:
            return MercurialError("cannot write \(what) (\(reason)); check free space and permissions")
        }
    }

    private static func replace(_ file: UserPath, with bytes: [UInt8], given: UserPath) throws(MercurialError) {
        let directory = file.directory
        let name = TemporaryName(for: file.lastComponent)
        name.removeStale(in: directory)
        let tempPath = directory + "/" + name.fresh()
        // An unnamed file vanishes with the process, even on SIGKILL; it gets a
        // (temporary) name only once it is complete.
        // MERCURIAL_NO_TMPFILE forces the named temporary, as on file systems without O_TMPFILE.
        var fd = getenv("MERCURIAL_NO_TMPFILE") == nil ? open(directory, oTmpFile | O_WRONLY | O_CLOEXEC, 0o666) : -1
        let unnamed = fd >= 0
        if !unnamed {
            SignalCleanup.arm(tempPath)
            fd = open(tempPath, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o666)
            guard fd >= 0 else {
                let code = errno
                SignalCleanup.disarm()
                throw MercurialError("cannot create a file in '\(UserPath(checked: directory))' (\(String(cString: strerror(code)))); choose another path")
            }
        }
        var failure: MercurialError?
        do {
            try writeAll(bytes, to: fd, what: "'\(given)'")
        } catch {
            failure = error
        }
        if failure == nil && unnamed {
            SignalCleanup.arm(tempPath)
            if linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, tempPath, AT_SYMLINK_FOLLOW) != 0 {
                failure = writeError(errno, "'\(given)'")
            }
        }
        close(fd)
        if failure == nil && rename(tempPath, file.string) != 0 {
            failure = writeError(errno, "'\(given)'")
        }
        if failure != nil { unlink(tempPath) }
        SignalCleanup.disarm()
        if let failure { throw failure }
    }

    /// `O_TMPFILE`, which Swift does not import (it is a macro of macros).
    private static let oTmpFile: Int32 = 0o20_000_000 | O_DIRECTORY
}

/// Names of temporary outputs: `.NAME.tmp-PID-RANDOM`, with NAME cut short so that
/// the whole stays within 255 bytes. The process id lets a later run tell the
/// leftovers of a killed process from the files of one still writing.
struct TemporaryName {
    let prefix: String

    init(for name: String) {
        // "." + name + ".tmp-" + up to 10 digits + "-" + 6 letters.
        var cut = Substring(name)
        while cut.utf8.count > 255 - 23 { cut = cut.dropLast() }
        prefix = "." + cut + ".tmp-"
    }

    func fresh() -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return prefix + "\(getpid())-" + String((0..<6).map { _ in letters.randomElement()! })
    }

    /// Deletes the temporary files of this output left by processes that are gone.
    func removeStale(in directory: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in names where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count).split(separator: "-")
            guard rest.count == 2, rest[1].count == 6, let pid = pid_t(rest[0]), pid > 0, pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            var info = stat()
            let path = directory + "/" + entry
            if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG { unlink(path) }
        }
    }
}

/// Removes the temporary file being written when SIGINT, SIGTERM or SIGHUP
/// arrives, from the signal handler itself (`unlink` is async-signal-safe), so
/// that nothing is left however busy the process is.
public enum SignalCleanup {
    /// The path to remove, NUL-terminated, and whether it is set.
    nonisolated(unsafe) private static let path = UnsafeMutablePointer<CChar>.allocate(capacity: Int(PATH_MAX) + 1)
    nonisolated(unsafe) private static let armed = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
    /// The status to exit with after cleaning up, or -1 to die of the signal.
    nonisolated(unsafe) private static let exitStatus = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    /// Installs the handlers. With `exitStatus`, a signal ends the process with that
    /// status (a watch stopped with Ctrl-C exits 0); without, it dies of the signal.
    public static func install(exitStatus status: Int32? = nil) {
        armed.pointee = 0
        path.pointee = 0
        exitStatus.pointee = status ?? -1
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signalNumber in
                if SignalCleanup.armed.pointee != 0 { unlink(SignalCleanup.path) }
                let status = SignalCleanup.exitStatus.pointee
                if status >= 0 { _exit(status) }
                signal(signalNumber, SIG_DFL)
                raise(signalNumber)
            }
            sigemptyset(&action.sa_mask)
            for blocked in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&action.sa_mask, blocked) }
            sigaction(signalNumber, &action, nil)
        }
        // A parent may have left them blocked (spawned children inherit the mask).
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&unblocked, signalNumber) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    static func arm(_ newPath: String) {
        armed.pointee = 0
        let bytes = Array(newPath.utf8.prefix(Int(PATH_MAX)))
        for (i, b) in bytes.enumerated() { path[i] = CChar(bitPattern: b) }
        path[bytes.count] = 0
        armed.pointee = 1
    }

    static func disarm() { armed.pointee = 0 }
}
