import FlyingFox
import Foundation
import MercurialKit

/// The page's WebSocket, `/api/socket`: changes in, frames out, on one connection
/// that stays open. On two cores, a fetch for each change and a request waiting for
/// each frame cost the page's browser a new connection, CORS checks and a loader
/// every time; over one socket a change is a small text message and a frame
/// arrives the moment it is sent.
///
/// In (text, JSON):
/// - `{"id": N, "changes": [{"key": K, "value": V}, …], "tag": T}`, answered by
///   `{"answer": N, "status": 200, "revision": R, "changed": B}`, or with the status
///   and `error` (and `key`) that `POST /api/set` gives;
/// - `{"have": F}`: the page now shows frame F (0: none it can build on).
///
/// Out (binary): a frame, as `UInt32` `infoLength`, the frame's info as JSON
/// (`EditorSession.frameInfo`) padded with spaces to a multiple of 4 bytes, then
/// the `FrameDelta` from the frame the page last said it has. One frame is in
/// flight at a time: the next goes when the page says it has this one, and it is
/// the newest then, so a page slower than the renders skips frames and never
/// falls behind.
struct EditorSocket: WSMessageHandler {
    let session: EditorSession
    /// FlyingFox's frames out: a delta goes in one WebSocket frame.
    static let frameSize = 64 << 20

    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let (messages, out) = AsyncStream.makeStream(of: WSMessage.self)
        let (shown, has) = AsyncStream.makeStream(of: Int.self)
        let session = session
        let reader = Task {
            for await message in client {
                guard case .text(let text) = message else { continue }
                if let answer = await Self.answer(text, session: session, has: has) {
                    out.yield(.text(answer))
                }
            }
            has.finish()
        }
        let sender = Task {
            var have = 0
            var acknowledgements = shown.makeAsyncIterator()
            while !Task.isCancelled {
                await session.waitForFrame(after: have, timeout: .seconds(EditorServer.longestFrameWait))
                guard !Task.isCancelled, !(await session.isStopped) else { break }
                guard let message = await Self.frameMessage(session: session, have: have) else { continue }
                out.yield(.data(Data(message)))
                // The page's word that it has this frame (or 0 when it could not use it).
                guard let next = await acknowledgements.next() else { break }
                have = next
            }
            out.finish()
        }
        out.onTermination = { _ in
            reader.cancel()
            sender.cancel()
        }
        return messages
    }

    /// The answer to a text message from the page, or nil when none is due.
    static func answer(_ text: String, session: EditorSession, has: AsyncStream<Int>.Continuation) async -> String? {
        let bytes = Array(text.utf8)
        // What is not a JSON object is answered by `set`'s own error.
        var members: [JSONMember] = []
        if let root = try? JSONDocument.parse(bytes), case .object(let fields) = root.value { members = fields }
        if let value = members.first(where: { $0.key == "have" })?.value {
            guard case .number(let n) = value.value, n >= 0, n < 1e15, n == n.rounded() else {
                return EditorJSON.string(["status": 400, "error": "\"have\" must be a frame number"])
            }
            has.yield(Int(n))
            return nil
        }
        var id: Any = NSNull()
        if case .number(let n)? = members.first(where: { $0.key == "id" })?.value.value { id = n }
        var (code, json) = await EditorHandler.set(bytes, session: session)
        json["status"] = code
        json["answer"] = id
        return EditorJSON.string(json)
    }

    /// The newest frame as a message, made from the frame the page has (`have`), or
    /// nil when there is none newer.
    static func frameMessage(session: EditorSession, have: Int) async -> [UInt8]? {
        guard let (frame, base) = await session.frame(andBase: have), frame.number != have else { return nil }
        var info = Array(EditorJSON.string(session.frameInfo(frame)).utf8)
        while info.count % 4 != 0 { info.append(32) }
        let count = UInt32(info.count)
        var bytes = [UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24)]
        bytes += info
        bytes += FrameDelta.encode(frame.image, frame: frame.number, from: base?.image, baseNumber: base?.number ?? 0)
        return bytes
    }
}
