import Foundation
import MercurialKit

/// What the editor sends the page as JSON, each an `Encodable` value that `JSONEncoder`
/// writes (keys sorted): the answers to its requests, the events of `/api/events` and the
/// info of each frame. A value the page tells apart from a missing one is an `OrNull`.
enum EditorReply {
    static func text(_ value: some Encodable) -> String { String(decoding: bytes(value), as: UTF8.self) }

    /// The JSON of `value`. Only a number that is not finite fails to encode: no reply carries one
    /// (render times and an animation's times are finite), and `{}` would be the answer if one did.
    static func bytes(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(value)).map { [UInt8]($0) } ?? Array("{}".utf8)
    }

    /// A server-sent event: `event: NAME`, then `data: JSON`.
    static func event(_ name: String, _ value: some Encodable) -> [UInt8] {
        Array("event: \(name)\ndata: ".utf8) + bytes(value) + Array("\n\n".utf8)
    }
}

/// An optional the page reads as `null` when it is nil (`"tag": null`), rather than a key left out.
struct OrNull<Value: Encodable & Sendable>: Encodable, Sendable {
    var value: Value?
    init(_ value: Value?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

/// A refused request: `{"error": message}`, with the error's kind, the key of a change, or a save's conflict.
struct Refused: Encodable, Sendable {
    var error: String
    var kind: String? = nil
    var key: String? = nil
    var conflict: Bool? = nil

    init(_ message: String, kind: MercurialError.Kind? = nil, key: String? = nil, conflict: Bool? = nil) {
        (error, self.kind, self.key, self.conflict) = (message, kind?.rawValue, key, conflict)
    }

    init(_ error: MercurialError) { self.init(error.message, kind: error.kind) }
}

/// The answer to a change (`POST /api/set`, or a message on the page's socket, which adds its
/// `status` and the `answer`'s id): the new revision, whether anything changed and the
/// keyframes the edit added; or why it was refused.
struct ChangeAnswer: Encodable, Sendable {
    var revision: Int? = nil
    var changed: Bool? = nil
    var addedKeyframes: [String: Double]? = nil
    var error: String? = nil
    var key: String? = nil
    var kind: String? = nil
    /// On the socket only: the HTTP status the POST would have, and the message's id (null when it had none to read).
    var status: Int? = nil
    var answer: OrNull<Double>? = nil
}

/// What a page is told of a frame: its number, the state it shows, size and render time.
struct FrameInfo: Encodable, Sendable {
    var n: Int
    var revision: Int
    var tag: OrNull<String>
    /// The animation's frame it shows (null: the scene as edited).
    var frame: OrNull<Int>
    var width: Int
    var height: Int
    var ms: Double
    /// The point lights' centres [x, y] in the animation's frame it shows (left out off the timeline).
    var pointLights: [[Double]]? = nil
}

/// The `state` event: the revision now, and the tag of the change that made it.
struct StateEvent: Encodable, Sendable {
    var revision: Int
    var tag: OrNull<String>
    /// Whether the scene now has edits not saved (the page's marker).
    var unsaved: Bool
}

/// The `render-error` event.
struct RenderErrorEvent: Encodable, Sendable {
    var message: String
    var revision: Int
    var tag: OrNull<String>
}

/// The `export` event of a video export: `running` (frames `done` of `frames`), `done`, `cancelled` or `failed`.
struct ExportEvent: Encodable, Sendable {
    var state: String
    var done: Int? = nil
    var frames: Int? = nil
    var message: String? = nil
    var path: String
}

/// `POST /api/reload`'s answer: the revision now.
struct Revision: Encodable, Sendable {
    var revision: Int
}

/// The file a save or an export wrote (an export PNG's size too).
struct Written: Encodable, Sendable {
    var path: String
    var bytes: Int? = nil
}

/// `POST /api/export-video/cancel`'s answer: whether an export was running.
struct Cancelled: Encodable, Sendable {
    var cancelled: Bool
}
