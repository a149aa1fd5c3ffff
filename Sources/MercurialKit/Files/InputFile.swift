#if canImport(Glibc)
import Glibc
#endif

/// Reading the files the user names: only regular files, never more than a budget.
public enum InputFile {
    /// Reads the whole regular file at `path`. A FIFO, device, socket or folder is
    /// refused without waiting on it, and a file over `limit` bytes before it is read.
    public static func read(_ path: String, role: String, limit: Int) throws(MercurialError) -> [UInt8] {
        let (fd, info) = try open(path, role: role)
        defer { close(fd) }
        let userPath = UserPath(checked: path)
        guard Int(info.st_size) <= limit else { throw tooLarge(userPath, role, limit) }

        // Straight into the array, up to the size the file had when opened and one byte more,
        // which shows a file that has grown since (or a size that lies, /proc's 0): that one
        // reads on in chunks below. (Not cleared first: a 196 KB shading file is read whole.)
        let expected = Int(info.st_size) + 1
        var failure: MercurialError?
        var bytes = [UInt8](unsafeUninitializedCapacity: expected) { buffer, count in
            switch Result(catching: { () throws(MercurialError) in try readFully(fd, into: buffer, path: path, role: role) }) {
            case .success(let n): count = n
            case .failure(let error): count = 0; failure = error
            }
        }
        if let failure { throw failure }
        guard bytes.count <= limit else { throw tooLarge(userPath, role, limit) }
        if bytes.count < expected { return bytes }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let result = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(MercurialError) in try read(fd, into: buffer, path: path, role: role) }
            }
            let n = try result.get()
            if n == 0 { break }
            // A file that grows while it is read (or lies about its size) stops at the budget.
            guard bytes.count + n <= limit else { throw tooLarge(userPath, role, limit) }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Reads the whole regular file at `path`, as `read` does, into new memory the caller
    /// owns and deallocates: a font FreeType reads in place is then read once, not read into
    /// an array and copied (a 705 KB font: 170 page faults fewer).
    public static func readAllocated(_ path: String, role: String, limit: Int) throws(MercurialError) -> UnsafeMutableBufferPointer<UInt8> {
        let (fd, info) = try open(path, role: role)
        let userPath = UserPath(checked: path)
        guard Int(info.st_size) <= limit else { close(fd); throw tooLarge(userPath, role, limit) }
        let expected = Int(info.st_size) + 1
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: expected)
        let count: Int
        do {
            count = try readFully(fd, into: buffer, path: path, role: role)
        } catch {
            close(fd)
            buffer.deallocate()
            throw error
        }
        close(fd)
        if count < expected { return UnsafeMutableBufferPointer(rebasing: buffer[..<count]) }
        // The file grew as it was read: read it again, whole, as `read` does.
        buffer.deallocate()
        let bytes = try read(path, role: role, limit: limit)
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = copy.initialize(from: bytes)
        return copy
    }

    /// Reads `fd` into `buffer` until it is full or the file ends: the count read.
    private static func readFully(_ fd: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, path: String,
                                  role: String) throws(MercurialError) -> Int {
        var count = 0
        while count < buffer.count {
            let n = try read(fd, into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...])),
                             path: path, role: role)
            if n == 0 { break }
            count += n
        }
        return count
    }

    /// Opens `path`, which must be a regular file, for reading: the descriptor (the
    /// caller closes it) and what it is.
    public static func open(_ path: String, role: String) throws(MercurialError) -> (fd: Int32, info: stat) {
        let userPath = try UserPath(path, role: role)
        var info = stat()
        // Look before opening: opening a FIFO or a device can block or act.
        guard stat(path, &info) == 0 else { throw openError(errno, userPath, role) }
        try requireRegularFile(info, userPath, role)
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw openError(errno, userPath, role) }
        // The file may have been swapped since the look: check what was opened.
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw readError(code, userPath, role)
        }
        do {
            try requireRegularFile(info, userPath, role)
        } catch {
            close(fd)
            throw error
        }
        return (fd, info)
    }

    /// Reads up to `count` bytes into `buffer` from `fd`, a file opened by `open`
    /// (EINTR retried): the count read, 0 at the end.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String,
                            role: String) throws(MercurialError) -> Int {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw readError(errno, UserPath(checked: path), role) }
        }
    }

    /// A regular file opened for reading (see `open`), of at most `limit` bytes; closed
    /// when let go. `bytes(at:count:)` reads a part of it, so a large file need not be
    /// held whole.
    public final class RegularFile {
        let fd: Int32
        let path: String
        let role: String
        /// Its size when it was opened.
        public let size: Int
        private var window: [UInt8] = []
        private var windowStart = 0

        public init(_ path: String, role: String, limit: Int) throws(MercurialError) {
            let (fd, info) = try InputFile.open(path, role: role)
            guard Int(info.st_size) <= limit else {
                close(fd)
                throw tooLarge(UserPath(checked: path), role, limit)
            }
            (self.fd, self.path, self.role, self.size) = (fd, path, role, Int(info.st_size))
        }

        deinit { close(fd) }

        /// `count` bytes from `offset`, read through a 64 KB window so that walking many
        /// small pieces costs few reads; fewer bytes only if the file shrank meanwhile.
        public func bytes(at offset: Int, count: Int) throws(MercurialError) -> ArraySlice<UInt8> {
            if offset >= windowStart, offset + count <= windowStart + window.count {
                return window[(offset - windowStart)..<(offset - windowStart + count)]
            }
            var buffer = [UInt8](repeating: 0, count: max(count, 1 << 16))
            var filled = 0
            while filled < buffer.count {
                let n = buffer.withUnsafeMutableBytes {
                    pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(offset + filled))
                }
                if n == 0 { break }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw readError(errno, UserPath(checked: path), role)
                }
                filled += n
            }
            buffer.removeLast(buffer.count - filled)
            (window, windowStart) = (buffer, offset)
            return window[0..<min(count, filled)]
        }
    }

    /// Refuses `path` if it exists but is not a regular file (a FIFO, a device…).
    public static func refuseIfNotRegular(_ path: String, role: String) throws(MercurialError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        try requireRegularFile(info, try UserPath(path, role: role), role)
    }

    /// What kind of file `info` describes, for "… is a FIFO" messages; nil for a regular file.
    static func kindName(_ info: stat) -> String? {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    private static func requireRegularFile(_ info: stat, _ path: UserPath, _ role: String) throws(MercurialError) {
        guard let kind = kindName(info) else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            throw MercurialError("\(role) '\(path)' is a directory; give a file")
        }
        throw MercurialError("\(role) '\(path)' is \(kind), not a regular file; give a file (save a stream to a file first)")
    }

    private static func openError(_ code: Int32, _ path: UserPath, _ role: String) -> MercurialError {
        switch code {
        case ENOENT, ENOTDIR: return MercurialError("\(role) '\(path)' does not exist; check the path")
        case ELOOP: return MercurialError("\(role) '\(path)' is a loop of symbolic links; fix the link")
        case ENAMETOOLONG: return MercurialError("\(role) '\(path)' is too long a path; use a shorter one")
        default: return readError(code, path, role)
        }
    }

    private static func readError(_ code: Int32, _ path: UserPath, _ role: String) -> MercurialError {
        MercurialError("\(role) '\(path)' cannot be read (\(String(cString: strerror(code)))); check its permissions")
    }

    private static func tooLarge(_ path: UserPath, _ role: String, _ limit: Int) -> MercurialError {
        MercurialError.limit("\(role) '\(path)' is larger than \(limit / 1_048_576) MB; use a smaller file")
    }
}

/// Screening of PNG files before libpng sees them.
///
/// libpng's limits on ancillary chunks (`png_set_chunk_malloc_max`, …) cannot be
/// set through its simplified `png_image` API, which reads the header in the same
/// call that creates the decoder; so the chunks it would spend memory on never
/// reach it: every chunk must fit in the file, and ancillary chunks that do not
/// change the pixels (text, palettes, profiles, unknown chunks) are dropped.
enum PNGChunks {
    /// Ancillary chunks the decoder uses for the pixels; all are small and fixed in size.
    static let kept: Set<String> = ["tRNS", "gAMA", "cHRM", "sRGB", "sBIT"]

    /// The PNG with only the chunks that decide its pixels; `fail` makes the error.
    static func screened(_ bytes: [UInt8], fail: (String) -> MercurialError) throws(MercurialError) -> [UInt8] {
        var offset = 8
        var dropped: [Range<Int>] = []
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else {
                throw fail("is truncated or damaged: \(bytes.count - offset) stray bytes after the last chunk")
            }
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let left = max(bytes.count - offset - 12, 0)
            guard length <= 0x7FFF_FFFF, length <= left, bytes.count - offset >= 12 else {
                throw fail("is truncated or damaged: a '\(type.escapedForTerminal)' chunk claims \(length) bytes but the file has \(left) left")
            }
            let end = offset + 12 + length
            let ancillary = bytes[offset + 4] & 0x20 != 0
            if ancillary && !kept.contains(type) { dropped.append(offset..<end) }
            offset = end
            if type == "IEND" { break }
        }
        guard !dropped.isEmpty else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var start = 0
        for range in dropped {
            out.append(contentsOf: bytes[start..<range.lowerBound])
            start = range.upperBound
        }
        out.append(contentsOf: bytes[start..<offset])
        return out
    }
}

/// The files a render reads, so that the output is never one of them.
public enum InputFiles {
    /// Every file `settings` (and the scene file, if any) reads, with its role.
    public static func of(_ settings: RenderSettings, sceneFile: String?) -> [(role: String, path: String)] {
        var files: [(String, String)] = []
        if let sceneFile { files.append(("scene file", sceneFile)) }
        if UserPath.looksLikePath(settings.material) { files.append(("material", settings.material)) }
        if settings.mask == nil, let font = try? FontLibrary.resolve(settings.font) { files.append(("font", font)) }
        if let path = settings.shadingImage { files.append(("shading image", path)) }
        if let path = settings.mask { files.append(("mask", path)) }
        for s in [settings] + settings.layers.map(\.settings) {
            if let image = s.image { files.append(("image", image.file)) }
        }
        return files
    }

    /// Refuses an output that is one of `inputs`: the same file (device and inode,
    /// through any link) or the same path once links and `..` are resolved.
    public static func checkOutput(_ output: String, against inputs: [(role: String, path: String)]) throws(MercurialError) {
        guard let out = identity(output) else { return }
        for input in inputs {
            guard let other = identity(input.path) else { continue }
            let sameFile = out.inode != nil && out.inode == other.inode
            if sameFile || out.path == other.path {
                throw MercurialError("the output '\(output.escapedForTerminal)' is the \(input.role) '\(input.path.escapedForTerminal)'; writing it would destroy the input (and a watch would render its own output forever); choose another -o")
            }
        }
    }

    private static func identity(_ path: String) -> (inode: [UInt64]?, path: String)? {
        guard !path.isEmpty, path != "-", !path.utf8.contains(0) else { return nil }
        let userPath = UserPath(checked: path)
        var info = stat()
        let inode = stat(path, &info) == 0 ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
        let final = userPath.followingLinks() ?? userPath
        return (inode, final.absolute)
    }
}

/// A file as it is now: which file (device and inode, however its path is spelled) and
/// which version of it (size and modification time). Caches keyed by it read a file once
/// through any of its names (`dir/././f.ttf`, a link) and again once it changes.
public struct FileStamp: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int
    var seconds: Int
    var nanoseconds: Int

    /// The file at `path` (links followed); nil when there is none.
    public init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The file `info` describes (what `stat` gave).
    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int(info.st_size)
        (seconds, nanoseconds) = (info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
    }
}
