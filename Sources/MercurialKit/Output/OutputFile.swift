import FoundationEssentials
import Synchronization
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

    /// Extensions of other formats than PNG, which a PNG must not be written under
    /// (`render -o title.webm` wrote PNG bytes there); a name with none, or with one not
    /// listed (`title.v2`), is taken as it is.
    static let otherFormats: [String: String] = {
        var names: [String: String] = [:]
        for (name, extensions) in [("JPEG", "jpg jpeg jpe jfif"), ("WebP", "webp"), ("GIF", "gif"), ("BMP", "bmp"),
                                   ("TIFF", "tif tiff"), ("AVIF", "avif"), ("HEIF", "heic heif"), ("JPEG XL", "jxl"),
                                   ("SVG", "svg"), ("PDF", "pdf"), ("ICO", "ico"), ("TGA", "tga"), ("EXR", "exr"),
                                   ("Photoshop", "psd"), ("WebM", "webm"), ("MP4", "mp4 m4v"), ("QuickTime", "mov"),
                                   ("Matroska", "mkv"), ("AVI", "avi"), ("APNG", "apng"), ("JSON", "json jsonl"),
                                   ("CSV", "csv"), ("text", "txt"), ("HTML", "html htm")] {
            for ext in extensions.split(separator: " ") { names[String(ext)] = name }
        }
        return names
    }()

    /// Refuses a `path` whose extension names another format: `command` writes PNG only
    /// (or, with `animations`, also what `AnimationFormat.forPath` takes: watch's animated
    /// scenes). Standard output, devices and FIFOs have no format to contradict.
    public static func requirePNGName(_ path: String, command: String, animations: Bool = false) throws(MercurialError) {
        guard case .file(let given, _) = try destination(path) else { return }
        let name = given.lastComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return }
        let ext = name[name.index(after: dot)...].lowercased()
        guard let format = otherFormats[ext], !(animations && ["webm", "mov", "mp4"].contains(ext)) else { return }
        let png = UserPath(checked: String(given.string.dropLast(ext.count)) + "png")
        let video = ["webm", "mp4", "m4v", "mov", "apng"].contains(ext)
            ? "; for an animation, use mercurial animate SCENE.json -o \(shortQuote(name))" : ""
        let writes = animations ? "PNG (.webm, .mov or .mp4 for an animated scene)" : "PNG only"
        throw MercurialError("output '\(given)' ends in .\(ext) (\(format)), but \(command) writes \(writes); name it '\(png)'\(video)")
    }

    /// Refuses `path` unless it is a file (existing or not) in a folder: not standard
    /// output, a device or a FIFO. `reason` says why a file is needed.
    public static func refuseUnlessFile(_ path: String, because reason: String) throws(MercurialError) {
        switch try destination(path) {
        case .file: return
        case .standardOutput: throw MercurialError("\(reason), not standard output")
        case .stream(let stream):
            var info = stat()
            let kind = stat(stream.string, &info) == 0 ? InputFile.kindName(info) ?? "a stream" : "a stream"
            throw MercurialError("\(reason), not '\(stream)' (\(kind))")
        }
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
        try OutputTarget.path(path).write(bytes)
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
        var folder = stat()
        guard stat(directory.string, &folder) == 0 else {
            throw MercurialError("output directory '\(directory)' does not exist; create it or choose another path")
        }
        guard folder.st_mode & S_IFMT == S_IFDIR else {
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

    /// Writes every byte, waiting out a full pipe; the error names `what`.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, what: String) throws(MercurialError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
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

    static func writeError(_ code: Int32, _ what: String) -> MercurialError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT:
            return MercurialError.resource("cannot write \(what): no space left (\(reason)); free some space or choose another output")
        case EPIPE:
            return MercurialError.resource("cannot write \(what): its reader has gone (\(reason))")
        case EFBIG:
            var limit = rlimit()
            let size = getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 && limit.rlim_cur != rlim_t.max
                ? " of \(limit.rlim_cur) bytes" : ""
            return MercurialError.resource("cannot write \(what): file too large for the limit\(size) set by ulimit -f; raise it (ulimit -f unlimited) or write a smaller output")
        default:
            return MercurialError("cannot write \(what) (\(reason)); check free space and permissions", errno: code)
        }
    }

    /// `O_TMPFILE`, which Swift does not import (it is a macro of macros).
    static let oTmpFile: Int32 = 0o20_000_000 | O_DIRECTORY
    /// `O_PATH` (Linux), also not imported: a folder opened only to name files in it.
    static let oPath: Int32 = 0o10_000_000

    /// A folder opened for creating files in (with `openat`), or the error why not.
    static func openFolder(_ path: String) throws(MercurialError) -> Int32 {
        let fd = open(path, oPath | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw MercurialError("cannot open output folder '\(UserPath(checked: path))' (\(String(cString: strerror(code)))); choose another path", errno: code)
        }
        return fd
    }
}

extension OutputFile {
    /// An output written in pieces, by the same rules as `write`: it appears whole
    /// at `commit`, and `discard` (or a failure, or SIGINT/SIGTERM/SIGHUP) leaves
    /// nothing. A file goes to an unnamed temporary (`O_TMPFILE`) where the file
    /// system allows, or else to a named one that the signal handler removes.
    public final class Stream {
        public let path: String
        private let what: String
        private var fd: Int32
        private enum Kind { case standardOutput, device, file(folder: Int32, name: String, pending: PendingFile), memory(MemoryOutput) }
        /// A memory output's bytes so far.
        private var held: [UInt8] = []
        private let kind: Kind
        private var finished = false

        /// `namedTemporary`: always give the temporary file a name (for a child
        /// process such as ffmpeg to write to, by `temporaryPath`).
        public init(_ path: String, namedTemporary: Bool = false) throws(MercurialError) {
            self.path = path
            switch try OutputFile.destination(path) {
            case .standardOutput:
                kind = .standardOutput
                fd = STDOUT_FILENO
                what = "standard output"
            case .stream(let stream):
                what = "'\(stream)'"
                // Non-blocking, so that a FIFO nobody reads is an error, not a hang.
                fd = open(stream.string, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
                guard fd >= 0 else {
                    if errno == ENXIO {
                        throw MercurialError("output '\(stream)' is a named pipe (FIFO) that nobody reads; start its reader first or choose a file")
                    }
                    let code = errno
                    throw MercurialError("cannot open output '\(stream)' (\(String(cString: strerror(code)))); choose another path", errno: code)
                }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                kind = .device
            case .file(let given, let file):
                what = "'\(given)'"
                let directory = file.directory
                TemporaryName.removeStale(in: directory, prefix: TemporaryName(for: file.lastComponent).prefix)
                let folder = try OutputFile.openFolder(directory)
                let pending: PendingFile
                do {
                    pending = try PendingFile(in: folder, at: directory, for: file.lastComponent, named: namedTemporary)
                } catch {
                    close(folder)
                    throw MercurialError("cannot create a file in '\(UserPath(checked: directory))' (\(String(cString: strerror(error.code)))); choose another path", errno: error.code)
                }
                fd = pending.fd
                kind = .file(folder: folder, name: file.lastComponent, pending: pending)
            }
        }

        /// `name` in `folder`, by the folder's rules: a name that is a symbolic link (or
        /// not a regular file) is refused, and the file is created and renamed into place
        /// relative to the folder's descriptor, never through a link planted meanwhile.
        init(in folder: OutputFolder, name: String) throws(MercurialError) {
            try folder.check(name)
            let display = folder.display(name)
            path = display.string
            what = "'\(display)'"
            // The stream closes its descriptor when done; the folder keeps its own.
            let descriptor = fcntl(folder.fd, F_DUPFD_CLOEXEC, 0)
            let pending: PendingFile
            do throws(PendingFile.Failure) {
                guard descriptor >= 0 else { throw PendingFile.Failure(code: errno) }
                pending = try PendingFile(in: descriptor, at: folder.path, for: name, named: false)
            } catch {
                if descriptor >= 0 { close(descriptor) }
                throw MercurialError("cannot create a file in '\(UserPath(checked: folder.path))' (\(String(cString: strerror(error.code)))); choose another path", errno: error.code)
            }
            fd = pending.fd
            kind = .file(folder: descriptor, name: name, pending: pending)
        }

        /// Bytes kept in `memory` when committed.
        init(memory: MemoryOutput) {
            path = "memory"
            what = "memory"
            fd = -1
            kind = .memory(memory)
        }

        /// The named temporary file, for a child process to write instead of us.
        public var temporaryPath: String? {
            if case .file(_, _, let pending) = kind, !pending.unnamed { return pending.folderPath + "/" + pending.temporary }
            return nil
        }

        public func write(_ bytes: UnsafeRawBufferPointer) throws(MercurialError) {
            if case .memory = kind {
                held.append(contentsOf: bytes)
                return
            }
            do {
                try OutputFile.writeAll(bytes, to: fd, what: what)
            } catch {
                discard()
                throw error
            }
        }

        public func write(_ bytes: [UInt8]) throws(MercurialError) {
            let result = bytes.withUnsafeBytes { raw in Result { () throws(MercurialError) in try write(raw) } }
            try result.get()
        }

        /// Makes the output appear (renaming a file over its target).
        public func commit() throws(MercurialError) {
            guard !finished else { return }
            finished = true
            switch kind {
            case .standardOutput:
                return
            case .device:
                close(fd)
            case let .file(folder, name, pending):
                defer { close(folder) }
                try pending.commit(as: name, what: what)
            case .memory(let memory):
                memory.commit(held)
                held = []
            }
        }

        /// Drops the output: nothing is left (a device keeps what it was sent).
        public func discard() {
            guard !finished else { return }
            finished = true
            switch kind {
            case .standardOutput: return
            case .device: close(fd)
            case let .file(folder, _, pending):
                pending.discard()
                close(folder)
            case .memory:
                held = []
            }
        }

        deinit { discard() }
    }
}

/// Where an output file goes: a path the user gave (`-o`), by `OutputFile`'s rules, or
/// a name in an `OutputFolder` (batch's titles), by the folder's. Either way the file
/// appears whole, or not at all, and only when it is committed.
public enum OutputTarget: Sendable {
    case path(String)
    case folder(OutputFolder, name: String)
    /// Bytes kept in memory (a server's answer), whole once committed.
    case memory(MemoryOutput)

    /// Opens the output to be written in pieces (`OutputFile.Stream`).
    public func open() throws(MercurialError) -> OutputFile.Stream {
        switch self {
        case .path(let path): try OutputFile.Stream(path)
        case .folder(let folder, let name): try OutputFile.Stream(in: folder, name: name)
        case .memory(let memory): OutputFile.Stream(memory: memory)
        }
    }

    /// Writes `bytes` as the whole output.
    public func write(_ bytes: [UInt8]) throws(MercurialError) {
        let output = try open()
        try output.write(bytes)
        try output.commit()
    }
}

/// A file being written in a folder held open by `folder`: unnamed (`O_TMPFILE`)
/// where the file system allows, else a named temporary `.NAME.tmp-PID-XXXXXX`
/// that `SignalCleanup` removes on SIGINT, SIGTERM or SIGHUP. `commit` gives it its
/// name with `renameat` in the same folder, which replaces a symbolic link found
/// there rather than follow it.
final class PendingFile {
    /// Why the file could not be created: an `errno`.
    struct Failure: Error { var code: Int32 }

    let folder: Int32
    /// The folder's path, for `temporaryPath` only.
    let folderPath: String
    let temporary: String
    let unnamed: Bool
    private(set) var fd: Int32
    private var slot: Int?
    private var finished = false

    /// `named`: always give the temporary a name. MERCURIAL_NO_TMPFILE forces that
    /// too, as on file systems without O_TMPFILE.
    init(in folder: Int32, at folderPath: String, for name: String, named: Bool) throws(Failure) {
        self.folder = folder
        self.folderPath = folderPath
        temporary = TemporaryName(for: name).fresh()
        // An unnamed file vanishes with the process, even on SIGKILL; it gets a
        // (temporary) name only once it is complete.
        var fd = named || getenv("MERCURIAL_NO_TMPFILE") != nil
            ? -1 : openat(folder, ".", OutputFile.oTmpFile | O_WRONLY | O_CLOEXEC, 0o666)
        unnamed = fd >= 0
        if !unnamed {
            slot = SignalCleanup.arm(folder: folder, name: temporary)
            fd = openat(folder, temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o666)
            guard fd >= 0 else {
                let code = errno
                SignalCleanup.disarm(slot)
                throw Failure(code: code)
            }
        }
        self.fd = fd
    }

    /// Names the file `name` in its folder; `what` names the output in errors.
    func commit(as name: String, what: String) throws(MercurialError) {
        guard !finished else { return }
        finished = true
        var failure: MercurialError?
        if unnamed {
            slot = SignalCleanup.arm(folder: folder, name: temporary)
            if linkat(AT_FDCWD, "/proc/self/fd/\(fd)", folder, temporary, AT_SYMLINK_FOLLOW) != 0 {
                failure = OutputFile.writeError(errno, what)
            }
        }
        close(fd)
        if failure == nil && renameat(folder, temporary, folder, name) != 0 {
            failure = OutputFile.writeError(errno, what)
        }
        if failure != nil { unlinkat(folder, temporary, 0) }
        SignalCleanup.disarm(slot)
        if let failure { throw failure }
    }

    func discard() {
        guard !finished else { return }
        finished = true
        close(fd)
        if !unnamed { unlinkat(folder, temporary, 0) }
        SignalCleanup.disarm(slot)
    }

    deinit { discard() }
}

/// A folder for the outputs a command names itself (batch's titles, `--emit`'s maps
/// beside `-o`). It is opened once and each file is created in it and renamed into
/// place relative to that descriptor, so a symbolic link planted in the folder is
/// never followed: a name that is a link is refused, and one planted while the file
/// is written is replaced, not written through. Nothing leaves the folder.
public final class OutputFolder: Sendable {
    /// The folder as given.
    public let path: String
    /// The folder, open (`O_PATH`): files are named relative to it.
    let fd: Int32

    /// Opens `path`, first making it and its parents (like `mkdir -p`) if `create`,
    /// and checks once that a file can be created in it. `option` names the flag in errors.
    public init(_ path: String, create: Bool, option: String = "-o") throws(MercurialError) {
        let given = try UserPath(path, role: "output folder")
        self.path = path
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT || errno == ENOTDIR, create else {
                throw MercurialError("output folder '\(given)' does not exist; create it or give another with \(option)")
            }
            try Self.makeFolders(given)
        } else if info.st_mode & S_IFMT != S_IFDIR {
            throw MercurialError("output folder '\(given)' is \(InputFile.kindName(info) ?? "a file"), not a folder; give a folder with \(option)")
        }
        fd = try OutputFile.openFolder(path)
        do {
            try PendingFile(in: fd, at: path, for: "probe", named: false).discard()
        } catch {
            close(fd)
            throw MercurialError("output folder '\(given)' is not writable (\(String(cString: strerror(error.code)))); fix its permissions or give another with \(option)")
        }
        TemporaryName.removeStale(in: path, prefix: nil)
    }

    deinit { close(fd) }

    /// `path`/`name`, for messages.
    public func display(_ name: String) -> UserPath {
        UserPath(checked: path == "." ? name : path.hasSuffix("/") ? path + name : path + "/" + name)
    }

    /// Refuses a `name` in the folder that is a symbolic link or not a regular file.
    public func check(_ name: String) throws(MercurialError) {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK:
            throw MercurialError("output '\(display(name))' is a symbolic link, which a derived output never follows; remove it or choose another folder")
        default:
            throw MercurialError("output '\(display(name))' is \(InputFile.kindName(info) ?? "not a regular file"); remove it or choose another folder")
        }
    }

    /// Writes `bytes` as `name` in the folder, atomically (see `OutputFile`).
    public func write(_ bytes: [UInt8], name: String) throws(MercurialError) {
        try OutputTarget.folder(self, name: name).write(bytes)
    }

    /// `mkdir -p`: each missing folder on the way to `path`.
    private static func makeFolders(_ path: UserPath) throws(MercurialError) {
        let bytes = Array(path.string.utf8)
        // Every prefix that ends a component (a one-letter name, `g`, is one too).
        for end in bytes.indices where end == bytes.count - 1 || bytes[end + 1] == UInt8(ascii: "/") {
            guard bytes[end] != UInt8(ascii: "/") else { continue }
            let prefix = String(decoding: bytes[...end], as: UTF8.self)
            if mkdir(prefix, 0o777) != 0 && errno != EEXIST {
                let code = errno
                throw MercurialError("cannot create output folder '\(UserPath(checked: prefix))' (\(String(cString: strerror(code)))); create it yourself or give another with -o", errno: code)
            }
        }
    }
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

    /// Deletes the temporary files left in `directory` by processes that are gone:
    /// those of one output (names starting with `prefix`), or of any (nil).
    static func removeStale(in directory: String, prefix: String?) {
        // Read with readdir, each name's first bytes compared where they lie: a listing of
        // Strings (FileManager's) made every write into a folder of 6,700 files 3 ms slower.
        guard let folder = opendir(directory) else { return }
        defer { closedir(folder) }
        let wanted = Array((prefix ?? ".").utf8)
        while let found = readdir(folder) {
            let entry: String? = withUnsafeBytes(of: found.pointee.d_name) { name in
                guard name.count > wanted.count, wanted.indices.allSatisfy({ name[$0] == wanted[$0] }) else { return nil }
                return String(cString: name.bindMemory(to: CChar.self).baseAddress!)
            }
            guard let entry, let marker = entry.ranges(of: ".tmp-").last else { continue }
            let rest = entry[marker.upperBound...].split(separator: "-")
            guard rest.count == 2, rest[1].count == 6, let pid = pid_t(rest[0]), pid > 0, pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            var info = stat()
            let path = directory + "/" + entry
            if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG { unlink(path) }
        }
    }
}

/// Removes the temporary files being written when SIGINT, SIGTERM or SIGHUP
/// arrives, from the signal handler itself (`unlinkat` is async-signal-safe), so
/// that nothing is left however busy the process is. Several threads may write at
/// once (batch's workers), so the files are kept in a fixed table the handler reads
/// without allocating: a folder descriptor and a name a slot, and a bit a slot.
public enum SignalCleanup {
    /// The most temporary files armed at once; a writer beyond that waits for a slot.
    static let slotCount = 64
    /// A temporary's name is at most 255 bytes (see `TemporaryName`), plus its NUL.
    private static let nameCapacity = 256
    // nonisolated(unsafe): a signal handler may take no lock, so these are bare memory,
    // allocated once. Slot i is written only by the writer that owns it in `taken`, and
    // read by the handler only while `armed` says it is complete.
    nonisolated(unsafe) private static let names = UnsafeMutablePointer<CChar>.allocate(capacity: slotCount * nameCapacity)
    nonisolated(unsafe) private static let folders = UnsafeMutablePointer<Int32>.allocate(capacity: slotCount)
    /// Bit i: slot i belongs to a writer.
    private static let taken = Atomic<UInt64>(0)
    /// Bit i: slot i's file is to be removed on a signal.
    private static let armed = Atomic<UInt64>(0)
    /// The status to exit with after cleaning up, or -1 to die of the signal.
    /// Written by `install` before the handlers are, then only read (by them).
    nonisolated(unsafe) private static let exitStatus = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    /// Installs the handlers. With `exitStatus`, a signal ends the process with that
    /// status (a watch stopped with Ctrl-C exits 0); without, it dies of the signal.
    public static func install(exitStatus status: Int32? = nil) {
        // Over `ulimit -f`, a write fails with EFBIG (reported) instead of killing us.
        signal(SIGXFSZ, SIG_IGN)
        prepareTable()
        exitStatus.pointee = status ?? -1
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signalNumber in
                SignalCleanup.removeArmed()
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

    /// The signal that asked a long job to stop (0: none), with `installDeferred`.
    /// A `sig_atomic_t` the handler sets and the work polls: the one kind of shared
    /// variable a handler may write.
    nonisolated(unsafe) private static let stopSignal: UnsafeMutablePointer<sig_atomic_t> = {
        let p = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
        p.pointee = 0
        return p
    }()

    /// For work done in steps (an animation's frames): SIGINT, SIGTERM and SIGHUP
    /// remove the armed temporary files at once and set `stopRequested`, which the
    /// command line's job `Cancellation` reads: the job stops and cleans up the rest,
    /// and the command then calls `die()`.
    public static func installDeferred() {
        prepareTable()
        stopSignal.pointee = 0
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signalNumber in
                SignalCleanup.removeArmed()
                SignalCleanup.stopSignal.pointee = signalNumber
            }
            sigemptyset(&action.sa_mask)
            for blocked in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&action.sa_mask, blocked) }
            sigaction(signalNumber, &action, nil)
        }
    }

    /// The signal received since `installDeferred`, or nil.
    public static var stopRequested: Int32? {
        let s = stopSignal.pointee
        return s == 0 ? nil : s
    }

    /// Ends the process by the signal that asked it to stop, as if it had not been caught.
    public static func die() -> Never {
        let s = stopSignal.pointee == 0 ? SIGTERM : stopSignal.pointee
        signal(s, SIG_DFL)
        raise(s)
        _exit(128 + s)
    }

    /// Statics are made on first use (`swift_once`, which a handler may not call):
    /// make the table's before any handler can run.
    private static func prepareTable() {
        _ = armed.load(ordering: .relaxed)
        _ = taken.load(ordering: .relaxed)
        _ = (names, folders)
    }

    /// From the handler: only atomic loads and `unlinkat`, no allocation.
    private static func removeArmed() {
        let mask = armed.load(ordering: .acquiring)
        var slot = 0
        while slot < slotCount {
            if mask & (1 << UInt64(slot)) != 0 { unlinkat(folders[slot], names + slot * nameCapacity, 0) }
            slot += 1
        }
    }

    /// Marks `name` in the folder open as `folder` for removal on a signal; the slot is for `disarm`.
    static func arm(folder: Int32, name: String) -> Int {
        var slot = 0
        while true {
            let current = taken.load(ordering: .relaxed)
            slot = (~current).trailingZeroBitCount
            if slot >= slotCount { sched_yield(); continue }
            if taken.compareExchange(expected: current, desired: current | 1 << UInt64(slot),
                                     ordering: .acquiringAndReleasing).exchanged { break }
        }
        let bytes = name.utf8.prefix(nameCapacity - 1)
        let start = names + slot * nameCapacity
        for (i, b) in bytes.enumerated() { start[i] = CChar(bitPattern: b) }
        start[bytes.count] = 0
        folders[slot] = folder
        armed.bitwiseOr(1 << UInt64(slot), ordering: .releasing)
        return slot
    }

    static func disarm(_ slot: Int?) {
        guard let slot else { return }
        armed.bitwiseAnd(~(1 << UInt64(slot)), ordering: .releasing)
        taken.bitwiseAnd(~(1 << UInt64(slot)), ordering: .releasing)
    }
}
