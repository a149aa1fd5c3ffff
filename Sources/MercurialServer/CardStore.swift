import Foundation
import MercurialKit
import NIOCore

/// A rendered card: its bytes, format and name (the SHA-256 that is its ETag). The
/// bytes are a `ByteBuffer`, which every answer shares rather than copies.
struct Card: Sendable {
    var body: ByteBuffer
    var format: StillFormat
    var identity: String
    var path: String { "/v1/cards/\(identity).\(format.fileExtension)" }
    var size: Int { body.readableBytes }

    init(bytes: [UInt8], format: StillFormat, identity: String) {
        body = ByteBuffer(bytes: bytes)
        self.format = format
        self.identity = identity
    }
}

/// The cards a server keeps: the most recently used in memory, up to `memoryLimit`
/// bytes, in front of an optional folder on disk (`--cache`) that keeps them all;
/// which card each request (its canonical query or body, and encoding) named, so a
/// repeated request is answered without reading its scene again; and the renders in
/// flight, so that identical requests arriving together are rendered once.
actor CardStore {
    let memoryLimit: Int
    let folder: String?

    private var cards: [String: Card] = [:]
    /// Identities, least recently used first (a card's position is found by a linear
    /// scan only when it is touched again, over at most a few thousand cards).
    private var order: [String] = []
    private var bytes = 0
    private var named: [String: String] = [:]
    private var flights: [String: Task<Card, any Error>] = [:]
    /// Requests being read, by their key: identical requests at once are read once.
    private var readings: [String: Task<CardRequest, any Error>] = [:]
    static let maximumNamedRequests = 100_000

    init(memoryLimit: Int, folder: String?) {
        self.memoryLimit = memoryLimit
        self.folder = folder
    }

    var memoryBytes: Int { bytes }
    var count: Int { cards.count }

    /// The card a request named before, if it is still in memory.
    func card(forRequest key: String) -> Card? {
        guard let identity = named[key] else { return nil }
        return memoryCard(identity)
    }

    func remember(request key: String, identity: String) {
        if named.count >= Self.maximumNamedRequests { named.removeAll(keepingCapacity: true) }
        named[key] = identity
    }

    /// The card in memory, marked as just used.
    func memoryCard(_ identity: String) -> Card? {
        guard let card = cards[identity] else { return nil }
        if let i = order.lastIndex(of: identity) {
            order.remove(at: i)
            order.append(identity)
        }
        return card
    }

    /// Keeps `card` in memory, dropping the least recently used beyond the limit.
    func keep(_ card: Card) {
        guard cards[card.identity] == nil, card.size <= memoryLimit else { return }
        cards[card.identity] = card
        order.append(card.identity)
        bytes += card.size
        while bytes > memoryLimit, !order.isEmpty {
            let oldest = order.removeFirst()
            bytes -= cards.removeValue(forKey: oldest)?.size ?? 0
        }
    }

    /// The card `identity` names: from memory, else rendered by `render` unless the same
    /// render is already in flight, in which case that one's result is shared.
    func card(_ identity: String, render: @escaping @Sendable () async throws -> Card) async throws -> (card: Card, rendered: Bool) {
        if let card = memoryCard(identity) { return (card, false) }
        if let flight = flights[identity] { return (try await flight.value, false) }
        let flight = Task { try await render() }
        flights[identity] = flight
        defer { flights[identity] = nil }
        let card = try await flight.value
        keep(card)
        return (card, true)
    }

    /// The request `key` names, read by `read` (on a worker), unless the same request is
    /// being read already, in which case that reading's result is shared: a burst of one
    /// popular card's requests takes one place in the queue, not one each (each was
    /// refused with a 429 beyond the queue's length before any had been read).
    func request(_ key: String, read: @escaping @Sendable () async throws -> CardRequest) async throws -> CardRequest {
        if let reading = readings[key] { return try await reading.value }
        let reading = Task { try await read() }
        readings[key] = reading
        defer { readings[key] = nil }
        return try await reading.value
    }

    // MARK: On disk

    /// Where the card's file is kept: FOLDER/ab/abcdef….ext.
    nonisolated func diskPath(_ identity: String, _ format: StillFormat) -> String? {
        folder.map { "\($0)/\(identity.prefix(2))/\(identity).\(format.fileExtension)" }
    }

    /// The card from the disk cache, or nil (read on the caller's thread: a worker's).
    nonisolated func diskCard(_ identity: String, _ format: StillFormat) -> Card? {
        guard let path = diskPath(identity, format), let bytes = try? InputFile.read(path, role: "card", limit: 1 << 30) else { return nil }
        return Card(bytes: bytes, format: format, identity: identity)
    }

    /// Writes the card to the disk cache, atomically; a failure only costs a later render.
    nonisolated func saveToDisk(_ card: Card) {
        guard let path = diskPath(card.identity, card.format) else { return }
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? OutputTarget.path(path).write(Array(buffer: card.body))
    }
}
