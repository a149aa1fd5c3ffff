import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches files through Linux inotify, on their containing directories, so
/// that saves which write a new file and rename it over the old one (vim, VS
/// Code, `sed -i`), deletions and re-creations are all seen. Event driven: no
/// polling.
public final class FileWatcher: @unchecked Sendable {
    /// Called on the watcher's queue with the path that changed.
    public typealias Handler = @Sendable (String) -> Void

    private let fd: Int32
    private let queue = DispatchQueue(label: "mercurial.file-watcher")
    private var source: DispatchSourceRead?
    private let handler: Handler
    // Guarded by `queue`.
    private var directories: [Int32: String] = [:]      // watch descriptor → directory
    private var watched: Set<String> = []               // absolute paths of the files

    private static let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB)

    public init(handler: @escaping Handler) throws(MercurialError) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else {
            throw MercurialError("cannot watch files (inotify: \(String(cString: strerror(errno))))")
        }
        self.handler = handler
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [unowned self] in self.readEvents() }
        source.resume()
        self.source = source
    }

    deinit {
        source?.cancel()
        close(fd)
    }

    /// Watches exactly these files (absolute or relative paths) from now on.
    public func watch(_ paths: [String]) throws(MercurialError) {
        let absolute = Set(paths.map(Self.absolute))
        var failure: MercurialError?
        queue.sync {
            watched = absolute
            let needed = Set(absolute.map { ($0 as NSString).deletingLastPathComponent })
            for directory in needed where !directories.values.contains(directory) {
                let wd = inotify_add_watch(fd, directory, Self.events)
                if wd < 0 {
                    failure = MercurialError("cannot watch '\(directory)' (\(String(cString: strerror(errno)))); check that it exists")
                } else {
                    directories[wd] = directory
                }
            }
        }
        if let failure { throw failure }
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            var offset = 0
            var changed: [String] = []
            buffer.withUnsafeBytes { raw in
                while offset + MemoryLayout<inotify_event>.size <= n {
                    let wd = raw.load(fromByteOffset: offset, as: Int32.self)
                    let length = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = raw[nameStart..<min(nameStart + length, n)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if let directory = directories[wd] {
                        let path = directory + "/" + name
                        if watched.contains(path) && !changed.contains(path) { changed.append(path) }
                    }
                    offset = nameStart + length
                }
            }
            changed.forEach(handler)
        }
    }

    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (full as NSString).standardizingPath
    }
}
