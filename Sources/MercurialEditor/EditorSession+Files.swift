import Foundation
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

/// The scene file and the files it reads: watched, read again, saved.
extension EditorSession {
    /// A watched file changed: the scene is read again, as watch mode reads it;
    /// a font, mask or shading image is rendered again. A sequence is read again whichever
    /// of its files changed (its titles' scenes are read with it).
    func fileChanged(_ path: String) {
        let sceneFile = UserPath(checked: scenePath).symlinkChain().contains(path) || path == scenePath
        // The file as the editor last read or saved it (the watcher reporting the editor's own
        // save): reading it again would put the saved scene back over the changes made since.
        if sceneFile, let onDisk, DiskState(scenePath) == onDisk { return }
        if sceneFile, unsaved {
            // Reading it would put the file over the page's edits, and saving would put the
            // edits over the file: neither is done until the page chooses (Reload or Overwrite).
            diskConflict = "the scene file '\(UserPath(checked: scenePath).lastComponent)' changed on disk, and the editor has unsaved changes: take the file's (Reload from disk) or keep yours (Overwrite saves them over it)"
            revision += 1
            broadcast(event: "state", StateEvent(revision: revision, tag: OrNull("file"), unsaved: unsaved))
            return
        }
        do {
            if sceneFile {
                let (loaded, read, before) = try Self.read(scenePath)
                (document, onDisk, sceneReads) = (read, before, sceneReads + 1)
                (savedText, diskConflict) = (read.text, nil)
                (settings, timeline, sequence) = (loaded.settings, loaded.timeline, loaded.sequence)
            } else if sequence != nil {
                // A title's own scene file: the sequence is read again from the scene as edited,
                // so its unsaved changes stay; only the titles' files come from disk. Nothing
                // changed (a save that wrote the same bytes): no new revision.
                let loaded = try document.load(as: scenePath)
                guard loaded.sequence != sequence || loaded.settings != settings else { return }
                (settings, timeline, sequence, sceneReads) = (loaded.settings, loaded.timeline, loaded.sequence, sceneReads + 1)
            }
            // A track or the animation taken away on disk: the playhead stays within what is left.
            playhead = Self.playhead(playhead, in: timeline, sequence: sequence)
        } catch {
            lastError = error.message
            broadcast(event: "render-error", RenderErrorEvent(message: error.message, revision: revision, tag: OrNull(nil)))
            return
        }
        changed(tag: "file")
    }

    /// The scene file at `path` read: what it gives, its document, and the file as it was read.
    static func read(_ path: String) throws(MercurialError) -> (SceneDocument.Loaded, SceneDocument, DiskState?) {
        let before = DiskState(UserPath(checked: path).absolute)
        let parsed = before.flatMap { try? SceneDocument(parsing: $0.bytes) }
        if let parsed, parsed["sequence"] != nil {
            return (try parsed.load(as: path), parsed, before)
        }
        var settings = RenderSettings()
        let timeline = try SceneFile.load(path, into: &settings)
        // The file as it was read (parsed again only if the first parse failed and the file changed since).
        let document = if let parsed { parsed } else { try SceneDocument(parsing: before?.bytes ?? []) }
        return (SceneDocument.Loaded(settings: settings, timeline: timeline), document, before)
    }

    /// Every file the scene reads (a sequence's titles' too).
    var inputFiles: [(role: String, path: String)] {
        sequence?.inputFiles(sceneFile: scenePath) ?? InputFiles.of(settings, sceneFile: scenePath)
    }

    func rewatch() {
        let inputs = sequence?.inputFiles(sceneFile: scenePath) ?? InputFiles.of(settings, sceneFile: nil)
        let files = ([scenePath] + inputs.map(\.path).filter { $0 != scenePath })
            .flatMap { UserPath(checked: $0).symlinkChain() }
        guard files != watchedFiles else { return }
        watchedFiles = files
        watcher?.watch(files)
    }

    // MARK: Saving

    /// A save that would replace an edit made on disk since the editor read or wrote the file.
    public struct SaveConflict: Error, Sendable {
        public var message: String
    }

    /// Writes the scene atomically to the scene file; returns its path. Unless
    /// `overwrite`, refuses (`SaveConflict`) when the file changed on disk since the
    /// editor last read or wrote it, even to something that does not parse yet.
    public func save(overwrite: Bool = false) throws -> String {
        let name = UserPath(checked: scenePath)
        if !overwrite, let now = DiskState(scenePath), now != onDisk {
            let message = "the scene file '\(name)' changed on disk since the editor last read or saved it; reload it from disk, or overwrite it with the editor's scene"
            diskConflict = message
            throw SaveConflict(message: message)
        }
        // The file's own members in its order, `material` named, the keys equal to the preset's left out.
        var saved = document.pruned(base: try preset(document["material"] == nil ? nil : settings.material),
                                    material: settings.material)
        if saved["description"] == nil {
            saved = SceneDocument(members: [JSONMember(key: "description", keyLocation: .none, value: JSONNode(
                value: .string("A scene saved by mercurial edit; render it with: mercurial render --params \(name.lastComponent)"),
                location: .none))] + saved.members)
        }
        let bytes = Array(saved.text.utf8)
        try OutputFile.write(bytes, to: scenePath)
        // As the file now lays it out: an error in a member then gives its place in the file written.
        document = (try? SceneDocument(parsing: bytes)) ?? saved
        onDisk = DiskState(scenePath)
        (savedText, diskConflict) = (document.text, nil)
        return scenePath
    }

    /// Reads the scene file again (the page's "Reload from disk"), or throws its error and changes nothing.
    public func reload() throws(MercurialError) {
        let (loaded, read, before) = try Self.read(scenePath)
        let same = loaded.sequence == nil && loaded.settings == settings && loaded.timeline == timeline && read.text == document.text
        (document, timeline, sequence, onDisk, lastError) = (read, loaded.timeline, loaded.sequence, before, nil)
        (savedText, diskConflict) = (read.text, nil)
        sceneReads += 1
        playhead = Self.playhead(playhead, in: timeline, sequence: sequence)
        guard !same else { return }
        settings = loaded.settings
        changed(tag: "file")
    }
}

/// A file as it is on disk: where it lies (device and inode), its size and time, and its bytes.
struct DiskState: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var bytes: [UInt8]

    /// The file at `path` (links followed), or nil when it cannot be read or is not a plain
    /// file. Opened without waiting: `open` on a FIFO waits for a writer (the session hung).
    init?(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= 64 << 20 else { return nil }
        (device, inode, size, modified) = (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size), info.st_mtim)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            count += n
        }
        self.bytes = Array(bytes.prefix(count))
    }

    /// The same file unchanged: the same identity, size and time, or else the same bytes.
    static func == (a: DiskState, b: DiskState) -> Bool {
        if a.device == b.device, a.inode == b.inode, a.size == b.size,
           a.modified.tv_sec == b.modified.tv_sec, a.modified.tv_nsec == b.modified.tv_nsec { return true }
        return a.bytes == b.bytes
    }
}
