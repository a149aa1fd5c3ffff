import Foundation
import HummingbirdWebSocket
import MercurialKit
import NIOCore

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
///
/// Nothing queues without bound: messages are read one at a time (NIO stops reading
/// the socket while one is handled), an answer is written before the next message is
/// read, and only the newest `have` is kept.
struct EditorSocket {
    let session: EditorSession

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let (shown, has) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        let session = session
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var have = 0
                var acknowledgements = shown.makeAsyncIterator()
                while !Task.isCancelled {
                    await session.waitForFrame(after: have, timeout: .seconds(EditorServer.longestFrameWait))
                    guard !Task.isCancelled, !(await session.isStopped) else { break }
                    guard let message = await Self.frameMessage(session: session, have: have) else { continue }
                    do {
                        try await outbound.write(.binary(message))
                    } catch {
                        break
                    }
                    // The page's word that it has this frame (or 0 when it could not use it).
                    guard let next = await acknowledgements.next() else { break }
                    have = next
                }
            }
            do {
                for try await message in inbound.messages(maxSize: EditorServer.maximumBody) {
                    guard case .text(let text) = message else { continue }
                    if let answer = await Self.answer(text, session: session, has: has) {
                        try await outbound.write(.text(answer))
                    }
                }
            } catch {}
            has.finish()
            group.cancelAll()
        }
    }

    /// The answer to a text message from the page, or nil when none is due.
    static func answer(_ text: String, session: EditorSession, has: AsyncStream<Int>.Continuation) async -> String? {
        let members: [JSONMember]
        switch EditorMessage.members(Array(text.utf8)) {
        case .failure(let error): return EditorReply.text(ChangeAnswer(error: error.message, status: 400, answer: OrNull(nil)))
        case .success(let parsed): members = parsed
        }
        switch EditorMessage.have(members) {
        case .success(let frame)?:
            has.yield(frame)
            return nil
        case .failure(let error)?:
            return EditorReply.text(ChangeAnswer(error: error.message, status: 400))
        case nil:
            break
        }
        var id: Double?
        if case .number(let n)? = members.first(where: { $0.key == "id" })?.value.value { id = n }
        var (code, answer) = await EditorRoutes.set(EditorMessage.changes(members), session: session)
        (answer.status, answer.answer) = (code, OrNull(id))
        return EditorReply.text(answer)
    }

    /// The newest frame as a message, made from the frame the page has (`have`), or
    /// nil when there is none newer.
    static func frameMessage(session: EditorSession, have: Int) async -> ByteBuffer? {
        guard let (frame, base) = await session.frame(andBase: have), frame.number != have else { return nil }
        var info = EditorReply.bytes(session.frameInfo(frame))
        while info.count % 4 != 0 { info.append(32) }
        let count = UInt32(info.count)
        let prefix = [UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24)] + info
        // The delta is written after the info, into the buffer the socket sends: no copy of it is made.
        return FrameDelta.encode(frame.image, frame: frame.number, from: base?.image, baseNumber: base?.number ?? 0, after: prefix)
    }
}
