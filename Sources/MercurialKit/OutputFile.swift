import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a file atomically: the bytes go to a temporary file in the same
/// directory, which is then renamed over the destination. A reader sees the old
/// file or the new one, never half of one; a failure leaves no file behind.
public enum OutputFile {
    /// Checks that `path` can be written, before any work is done.
    public static func validate(_ path: String) throws(MercurialError) {
        guard !path.isEmpty else { throw MercurialError("the output path is empty; give a file name with -o") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
            throw MercurialError("output '\(path)' is a directory; give a file name, e.g. \(folder)/title.png")
        }
        let directory = directoryOf(path)
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw MercurialError("output directory '\(directory)' does not exist; create it or choose another path")
        }
        guard isDirectory.boolValue else {
            throw MercurialError("output directory '\(directory)' is not a directory; choose another path")
        }
        guard access(directory, W_OK) == 0 else {
            throw MercurialError("output directory '\(directory)' is not writable; choose another path or fix its permissions")
        }
    }

    /// Writes `bytes` to `path` atomically.
    public static func write(_ bytes: [UInt8], to path: String) throws(MercurialError) {
        try validate(path)
        let directory = directoryOf(path)
        let base = (path as NSString).lastPathComponent
        guard let (fd, tempPath) = TemporaryFiles.shared.create("\(directory)/.\(base).tmp-XXXXXX") else {
            throw MercurialError("cannot create a file in '\(directory)' (\(String(cString: strerror(errno)))); choose another path")
        }
        defer { TemporaryFiles.shared.remove(tempPath) }
        var ok = fchmod(fd, mode_t(0o666) & ~processUmask) == 0
        var offset = 0
        while ok && offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { ok = false }
        }
        let writeErrno = errno
        close(fd)
        guard ok, rename(tempPath, path) == 0 else {
            let reason = String(cString: strerror(ok ? errno : writeErrno))
            unlink(tempPath)
            throw MercurialError("cannot write '\(path)' (\(reason)); check free space and permissions")
        }
    }

    public static func directoryOf(_ path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    /// The process's umask, read once (reading it means setting it).
    private static let processUmask: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }()
}

/// Temporary output files being written right now, so that a signal handler can
/// remove them before the process exits.
public final class TemporaryFiles: @unchecked Sendable {
    public static let shared = TemporaryFiles()
    private let lock = NSLock()
    private var paths: Set<String> = []
    private var closed = false

    /// Creates a new file from an `mkstemp` template; nil (errno set) on failure or
    /// once `removeAll` has run, so that no temporary file outlives the process.
    func create(_ template: String) -> (Int32, String)? {
        lock.withLock {
            guard !closed else { errno = ECANCELED; return nil }
            var bytes = Array(template.utf8CString)
            let fd = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { return nil }
            let path = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            paths.insert(path)
            return (fd, path)
        }
    }

    func remove(_ path: String) { lock.withLock { _ = paths.remove(path) } }

    /// Deletes every temporary file still being written, and refuses new ones.
    public func removeAll() {
        lock.withLock {
            closed = true
            for path in paths { unlink(path) }
            paths.removeAll()
        }
    }
}
