import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Watches files through Linux inotify, on their containing directories, so
/// that saves which write a new file and rename it over the old one (vim, VS
/// Code, `sed -i`), deletions and re-creations are all seen. Folders can be
/// watched for existence too: a folder that is removed is reported, its parent is
/// watched instead, and its return is reported. Event driven: no polling.
///
/// Unchecked Sendable: its mutable state is touched only on `queue`, a serial queue
/// (the read source's handler runs there and `watch` waits there with `sync`).
public final class FileWatcher: @unchecked Sendable {
    /// Called on the watcher's queue with the path that changed.
    public typealias Handler = @Sendable (String) -> Void

    private let fd: Int32
    private let queue = DispatchQueue(label: "mercurial.file-watcher")
    private var source: DispatchSourceRead?
    private let handler: Handler
    // Guarded by `queue`.
    private var directories: [Int32: String] = [:]      // watch descriptor → directory
    private var files: Set<String> = []                 // absolute paths of the watched files
    private var folders: Set<String> = []               // folders watched for existence
    private var stamps: [String: SeenFile] = [:]       // each watched file as last seen (absent: no file)

    private static let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB
                                       | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF)

    public init(handler: @escaping Handler) throws(MercurialError) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else {
            throw MercurialError("cannot watch files (inotify: \(String(cString: strerror(errno))))")
        }
        self.handler = handler
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        // Weak: an event already queued when the watcher goes finds nothing to read into.
        source.setEventHandler { [weak self] in self?.readEvents() }
        // The descriptor is closed only once the source is off libdispatch's epoll set: closed
        // at cancel() (as it was), its number could be reused by another file or socket before
        // libdispatch had let go of it, and its event loop crashed on a stale registration
        // (a SIGSEGV in _dispatch_event_loop_drain, seen once in a full test run).
        source.setCancelHandler { [fd] in close(fd) }
        source.resume()
        self.source = source
    }

    deinit {
        source?.cancel()
    }

    /// Watches exactly these files, and these folders for existence, from now on.
    public func watch(_ paths: [String], folders: [String] = []) {
        queue.sync {
            // Events already queued happened before this call: they are read against the files
            // watched until now (read after, a file written just before it was watched would be
            // reported as changed, and the editor read its scene again over unsaved edits).
            readEvents()
            let watchedBefore = files
            files = Set(paths.map(Self.absolute))
            self.folders = Set(folders.map(Self.absolute))
            // A file watched already keeps how it was last reported (what was read since may be
            // older than what is on disk now); a file new to the watch is taken as it is now.
            stamps = stamps.filter { files.contains($0.key) }
            for file in files where stamps.index(forKey: file) == nil && !watchedBefore.contains(file) {
                stamps[file] = SeenFile(file)
            }
            addMissingWatches()
        }
    }

    /// Every folder whose events matter: the files' folders and the watched folders.
    /// A folder that does not exist is stood in for by its nearest existing parent.
    private func addMissingWatches() {
        var needed = Set(files.map(Self.parent)).union(folders)
        for folder in needed where !Self.isDirectory(folder) {
            var ancestor = Self.parent(folder)
            while !Self.isDirectory(ancestor) && ancestor != "/" { ancestor = Self.parent(ancestor) }
            needed.insert(ancestor)
        }
        for directory in needed where Self.isDirectory(directory) && !directories.values.contains(directory) {
            let wd = inotify_add_watch(fd, directory, Self.events)
            if wd >= 0 { directories[wd] = directory }
        }
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            var offset = 0
            var changed: [String] = []
            var structureChanged = false
            buffer.withUnsafeBytes { raw in
                while offset + MemoryLayout<inotify_event>.size <= n {
                    let wd = raw.load(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.load(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = raw[nameStart..<min(nameStart + length, n)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    offset = nameStart + length
                    guard let directory = directories[wd] else { continue }
                    if mask & UInt32(IN_IGNORED) != 0 || mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                        // The folder itself went away: report what depended on it.
                        directories[wd] = nil
                        inotify_rm_watch(fd, wd)
                        structureChanged = true
                        if folders.contains(directory) || files.contains(where: { Self.parent($0) == directory }) {
                            if !changed.contains(directory) { changed.append(directory) }
                        }
                        continue
                    }
                    let path = directory == "/" ? "/" + name : directory + "/" + name
                    let isFolderEvent = mask & UInt32(IN_ISDIR) != 0
                    if isFolderEvent {
                        // A folder appeared or went: one we need may be back.
                        structureChanged = true
                        if folders.contains(path) || files.contains(where: { Self.parent($0) == path }) || files.contains(path) {
                            if !changed.contains(path) { changed.append(path) }
                        }
                    } else if mask & UInt32(IN_CREATE) == 0 || Self.isSymbolicLink(path),
                              files.contains(path), !changed.contains(path), isNew(path) {
                        // Creating a file is followed by its close-after-write: wait for that
                        // (a symbolic link has none: it is complete when created).
                        changed.append(path)
                    }
                }
            }
            if structureChanged { addMissingWatches() }
            changed.forEach(handler)
        }
    }

    /// Whether `path` differs from how it was last seen (and notes it as seen). An event can
    /// come late: a file written just before `watch` is closed for the last time only when a
    /// process forked meanwhile (the suite's, the editor's ffmpeg) execs or exits, and that
    /// close-after-write then arrived after `watch` had read the events queued before it.
    /// Reported, the editor took it for a change on disk and read its scene again over
    /// unsaved edits. So a file is reported only if it is not as `watch` (or the last report) saw it.
    private func isNew(_ path: String) -> Bool {
        let now = SeenFile(path)
        guard now != stamps[path] else { return false }
        stamps[path] = now
        return true
    }

    public static func absolute(_ path: String) -> String {
        UserPath(checked: path).absolute
    }

    public static func parent(_ path: String) -> String {
        UserPath(checked: path).directory
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}


/// A watched file as last seen: which file, its size and modification time (`FileStamp`), its
/// mode and status-change time (a chmod is a change: the file may now be unreadable), and for a
/// file of at most 1 MB (scenes, recipes) a hash of its bytes, since the kernel's times are as
/// coarse as its clock tick (a few ms) and two quick saves of the same length can share them.
/// `mercurial watch` also takes one of its scene before each render reads it.
public struct SeenFile: Equatable {
    var stamp: FileStamp
    var mode: UInt32
    var changed: (seconds: Int, nanoseconds: Int)
    var contents: Int?
    /// Where the path points, when it is a symbolic link (a link pointed elsewhere at a file
    /// with the same bytes is a change: what the watcher follows is not the same chain).
    var linkTarget: String?

    public init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        stamp = FileStamp(info)
        mode = info.st_mode
        changed = (info.st_ctim.tv_sec, info.st_ctim.tv_nsec)
        linkTarget = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
        if stamp.size <= 1 << 20, let data = FileManager.default.contents(atPath: path) {
            var hasher = Hasher()
            hasher.combine(data)
            contents = hasher.finalize()
        }
    }

    public static func == (a: SeenFile, b: SeenFile) -> Bool {
        a.stamp == b.stamp && a.mode == b.mode && a.changed == b.changed && a.contents == b.contents
            && a.linkTarget == b.linkTarget
    }
}
