import CNettle
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `batch --manifest FILE`: a line of JSON for each row as it finishes, appended and
/// written with one `write` each, so that a shard killed at any moment leaves every
/// line whole (as GNU parallel's joblog), and shards on one machine may share a file.
///
///     {"row": 3, "line": 4, "status": "written", "output": "out/3-C.png", "sha256": "…", "recipeSHA256": "…"}
///
/// `status` is `written`, `skipped` (`--skip-existing` found it done), `refused` (its
/// input; the same row fails again) or `failed` (the machine: worth retrying), the
/// last two with `error`. A rerun appends: a row's last line is its state.
public final class BatchManifest: Sendable {
    public enum Status: String, Sendable { case written, skipped, refused, failed }

    public struct Entry: Sendable {
        public var row: Int
        public var line: Int
        public var status: Status
        public var output: String?
        public var sha256: String?
        public var recipeSHA256: String?
        public var error: String?

        public init(row: Int, line: Int, status: Status, output: String? = nil, sha256: String? = nil,
                    recipeSHA256: String? = nil, error: String? = nil) {
            (self.row, self.line, self.status, self.output) = (row, line, status, output)
            (self.sha256, self.recipeSHA256, self.error) = (sha256, recipeSHA256, error)
        }

        /// The entry as one line of JSON, its newline included.
        public var jsonLine: String {
            var members: [(String, JSONValue)] = [("row", .number(Double(row))), ("line", .number(Double(line))),
                                                  ("status", .string(status.rawValue))]
            if let output { members.append(("output", .string(output))) }
            if let sha256 { members.append(("sha256", .string(sha256))) }
            if let recipeSHA256 { members.append(("recipeSHA256", .string(recipeSHA256))) }
            if let error { members.append(("error", .string(error))) }
            return JSONValue.members(members).text() + "\n"
        }
    }

    public let path: String
    private let fd: Int32

    /// Opens `path` to append to, making it if missing; refuses a link, a folder, a FIFO or a device.
    public init(path: String) throws(MercurialError) {
        let given = try UserPath(path, role: "manifest")
        self.path = path
        // O_NONBLOCK: opening a FIFO for writing would wait for a reader.
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o666)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP {
                throw MercurialError("--manifest '\(given)' is a symbolic link, which is never written through; give the file itself")
            }
            throw MercurialError("cannot open --manifest '\(given)' (\(String(cString: strerror(code)))); give a file in a folder you can write to", errno: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw MercurialError("--manifest '\(given)' is not a regular file; give a file's name")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Appends `entry`'s line with one `write` (a short write, the disk being full, is finished by more).
    public func append(_ entry: Entry) throws(MercurialError) {
        let bytes = Array(entry.jsonLine.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { all in all.baseAddress.map { write(fd, $0 + written, all.count - written) } ?? 0 }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                let code = errno
                throw MercurialError("cannot write --manifest '\(UserPath(checked: path))' (\(String(cString: strerror(code)))); free some space or give another file", errno: code)
            }
            written += n
        }
    }
}

extension OutputFolder {
    /// Whether `name` in the folder is a whole title that carries `recipe` written with
    /// `encoding` (the one this row would write): what `batch --skip-existing` leaves
    /// alone. A PNG must end with IEND and carry the recipe; a JPEG end with EOI and a
    /// WebP's RIFF size be its file's, and carry the recipe's stamp. Only headers, the
    /// recipe and the last bytes are read. Anything else (missing, cut short, another
    /// recipe, a link) is false.
    public func holdsTitle(_ name: String, recipe: String, encoding: StillEncoding) -> Bool {
        let fd = openat(self.fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        let size = Int(info.st_size)
        let bytes = { (offset: Int, count: Int) in Self.read(fd, at: offset, count: count) }
        switch encoding.format {
        case .png:
            // A PNG ends with an empty IEND chunk: its length, type and CRC.
            let end: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
            guard size >= 8 + end.count, bytes(size - end.count, end.count) == end else { return false }
            let found = try? SceneRecipe.read(pngOfSize: size, name: name) { offset, count throws(MercurialError) in
                ArraySlice(bytes(offset, count))
            }
            return found == recipe
        case .jpeg:
            guard size >= 4, bytes(size - 2, 2) == [0xFF, 0xD9] else { return false }
            return JPEGFile.comments(size: size, bytes: bytes)?.contains(SceneRecipe.stamp(recipe, encoding: encoding)) == true
        case .webp:
            return WebPFile.chunk(WebPFile.stampChunk, size: size, bytes: bytes) == Array(SceneRecipe.stamp(recipe, encoding: encoding).utf8)
        }
    }

    /// The SHA-256 of `name` in the folder, in hex (for the manifest).
    public func sha256(of name: String) throws(MercurialError) -> String {
        let fd = openat(self.fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            throw MercurialError("cannot read back '\(display(name))' (\(String(cString: strerror(code))))", errno: code)
        }
        defer { close(fd) }
        var hash = SHA256Hash()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else {
                let code = errno
                throw MercurialError("cannot read back '\(display(name))' (\(String(cString: strerror(code))))", errno: code)
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { hash.add(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        return CardSignature.hex(hash.digest())
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file; none on an error).
    private static func read(_ fd: Int32, at offset: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { all in
                all.baseAddress.map { pread(fd, $0 + filled, count - filled, off_t(offset + filled)) } ?? 0
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            filled += n
        }
        return Array(bytes[..<filled])
    }
}
