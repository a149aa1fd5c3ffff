import MercurialKit

/// The pages listening: server-sent events of every state, frame and export.
extension EditorSession {
    /// The event streams of the pages listening, by the id each was given.
    struct Listeners {
        private var streams: [Int: AsyncStream<[UInt8]>.Continuation] = [:]
        private var nextID = 0

        var count: Int { streams.count }

        /// Adds `stream`; returns its id.
        mutating func add(_ stream: AsyncStream<[UInt8]>.Continuation) -> Int {
            defer { nextID += 1 }
            streams[nextID] = stream
            return nextID
        }

        /// Takes the stream `id` out; true when it was the last.
        mutating func remove(_ id: Int) -> Bool {
            streams[id] = nil
            return streams.isEmpty
        }

        func send(_ bytes: [UInt8]) {
            for stream in streams.values { stream.yield(bytes) }
        }

        /// Ends every stream.
        mutating func finish() {
            for stream in streams.values { stream.finish() }
            streams.removeAll()
        }
    }

    /// A new listener: the stream of server-sent events, starting with the state and
    /// the last frame.
    public func subscribe() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = listeners.add(continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        continuation.yield(EditorReply.event("state", StateEvent(revision: revision, tag: OrNull(lastTag), unsaved: unsaved)))
        if let frame {
            continuation.yield(EditorReply.event("frame", frameInfo(frame)))
        }
        return stream
    }

    public var clientCount: Int { listeners.count }

    func unsubscribe(_ id: Int) {
        // The last page closed: nobody waits for the export, and no render is left running.
        if listeners.remove(id) { cancelExport() }
    }

    /// Sends every page the event `name` with `value` as its data.
    func broadcast(event name: String, _ value: some Encodable) {
        listeners.send(EditorReply.event(name, value))
    }

    /// Sends every page `text` as it is (a comment that keeps the connection alive).
    func broadcast(_ text: String) {
        listeners.send(Array(text.utf8))
    }
}
