import Foundation
import Testing
@testable import MercurialEditor
@testable import MercurialKit
#if canImport(Glibc)
import Glibc
import MercurialTestSupport
#endif

/// A WebSocket client on a raw loopback socket: the upgrade and RFC 6455 frames,
/// masked as a browser masks them, so that tests can also send frames no browser would.
/// One test uses one, from one task at a time.
final class RawWebSocket: @unchecked Sendable {
    let fd: Int32
    /// The upgrade's HTTP status (101 when it is a WebSocket).
    private(set) var status: Int?
    private var buffered: [UInt8] = []

    init(port: UInt16, token: String, origin: String? = nil, timeout: Int = 10) throws {
        fd = try RawHTTP.connect(port: port, timeout: timeout)
        let head = "GET /api/socket?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Origin: \(origin ?? "http://127.0.0.1:\(port)")\r\n\r\n"
        RawHTTP.sendAll(fd, Array(head.utf8))
        let separator: [UInt8] = [13, 10, 13, 10]
        while true {
            if buffered.count >= 4, let end = (0...(buffered.count - 4)).first(where: { Array(buffered[$0..<$0 + 4]) == separator }) {
                status = RawHTTP.parse(Array(buffered[..<(end + 4)]))?.status
                buffered.removeFirst(end + 4)
                return
            }
            guard read() else { return }
        }
    }

    deinit { close(fd) }

    /// How long a receive waits from now on.
    func waitAtMost(seconds: Int) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// One frame as a client sends it: masked (unless `masked` is false), FIN set unless `fin` is false.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, declaredLength: UInt64? = nil) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let length = declaredLength ?? UInt64(payload.count)
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length <= 125 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8(length >> (8 * UInt64($0)) & 0xFF) }
        }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        if masked { bytes += mask }
        bytes += payload.enumerated().map { masked ? $1 ^ mask[$0 % 4] : $1 }
        return bytes
    }

    func send(_ text: String) { RawHTTP.sendAll(fd, Self.frame(0x1, Array(text.utf8))) }
    func sendRaw(_ bytes: [UInt8]) { RawHTTP.sendAll(fd, bytes) }

    /// The next message from the server (opcode and payload), or nil when the
    /// connection closed or nothing came within the socket's time-out.
    func receive() -> (opcode: UInt8, payload: [UInt8])? {
        var opcode: UInt8 = 0
        var message: [UInt8] = []
        while true {
            guard let (fin, code, payload) = frame() else { return nil }
            if code != 0 { opcode = code }
            message += payload
            if fin { return (opcode, message) }
        }
    }

    /// Reads until the server closes the connection; false when it stays open past the time-out.
    func closesWithin() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { continue }
            if n == 0 || errno == ECONNRESET { return true }
            // A signal (the test process's children ending) cuts a timed receive short.
            if errno == EINTR { continue }
            return false
        }
    }

    private func frame() -> (fin: Bool, opcode: UInt8, payload: [UInt8])? {
        guard need(2) else { return nil }
        let fin = buffered[0] & 0x80 != 0, opcode = buffered[0] & 0x0F
        var length = Int(buffered[1] & 0x7F), headerLength = 2
        if length == 126 {
            guard need(4) else { return nil }
            length = Int(buffered[2]) << 8 | Int(buffered[3])
            headerLength = 4
        } else if length == 127 {
            guard need(10) else { return nil }
            length = buffered[2..<10].reduce(0) { $0 << 8 | Int($1) }
            headerLength = 10
        }
        guard need(headerLength + length) else { return nil }
        let payload = Array(buffered[headerLength..<(headerLength + length)])
        buffered.removeFirst(headerLength + length)
        return (fin, opcode, payload)
    }

    private func need(_ count: Int) -> Bool {
        while buffered.count < count {
            guard read() else { return false }
        }
        return true
    }

    private func read() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var n: Int
        repeat {
            n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        } while n < 0 && errno == EINTR
        guard n > 0 else { return false }
        buffered += chunk[0..<n]
        return true
    }

    /// A frame message's parts: its info (the frame's event) and its delta.
    static func frameMessage(_ payload: [UInt8]) throws -> (info: [String: Any], delta: [UInt8]) {
        try #require(payload.count >= 4)
        let length = Int(payload[0]) | Int(payload[1]) << 8 | Int(payload[2]) << 16 | Int(payload[3]) << 24
        try #require(length % 4 == 0 && 4 + length <= payload.count)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(payload[4..<(4 + length)])) as? [String: Any])
        return (info, Array(payload[(4 + length)...]))
    }

    static func json(_ payload: [UInt8]) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]) ?? [:]
    }
}

@Suite(.serialized) struct EditorSocketTests {
    /// Over the socket: a whole first frame, a change answered as `POST /api/set`
    /// answers it, the next frame as a delta from the page's, and the command line's
    /// error for an invalid value.
    @Test func theSocketCarriesChangesInAndFramesOut() async throws {
        try await EditorFixture.with { editor in
            try await eventually("the first frame") { await editor.session.frame != nil }
            await editor.session.waitUntilIdle()
            let first = try #require(await editor.session.frame)
            let (port, token) = (editor.port, editor.server.token)
            let socket = try await offPool { try RawWebSocket(port: port, token: token) }
            #expect(socket.status == 101)
            let whole = try #require(try await offPool { socket.receive() })
            #expect(whole.opcode == 0x2)
            let (info, delta) = try RawWebSocket.frameMessage(whole.payload)
            #expect(info["n"] as? Int == first.number)
            var pixels = [RGBA8](repeating: .clear, count: first.width * first.height)
            #expect(try FrameDelta.apply(delta, to: &pixels, width: first.width, height: first.height) == first.number)
            #expect(FrameDeltaTests.differing(pixels, first.image.pixels) == 0)
            socket.send("{\"have\": \(first.number)}")

            socket.send(#"{"id": 7, "changes": [{"key": "light3.hue", "value": "0.42"}], "tag": "socket:1"}"#)
            let answer = try #require(try await offPool { socket.receive() })
            #expect(answer.opcode == 0x1)
            let json = RawWebSocket.json(answer.payload)
            #expect(json["answer"] as? Int == 7 && json["status"] as? Int == 200 && json["changed"] as? Bool == true, "\(json)")
            let next = try #require(try await offPool { socket.receive() })
            let (nextInfo, nextDelta) = try RawWebSocket.frameMessage(next.payload)
            #expect(nextInfo["tag"] as? String == "socket:1")
            #expect(FrameDeltaTests.header(nextDelta)[4] == first.number, "a delta from the page's frame")
            let newer = try #require(await editor.session.frame)
            #expect(try FrameDelta.apply(nextDelta, to: &pixels, width: first.width, height: first.height) == newer.number)
            #expect(FrameDeltaTests.differing(pixels, newer.image.pixels) == 0)
            #expect(await editor.session.settings.scene.lights[2].hue == 0.42)

            socket.send(#"{"id": 8, "changes": [{"key": "light1.hue", "value": "7"}]}"#)
            let refused = RawWebSocket.json(try #require(try await offPool { socket.receive() }).payload)
            #expect(refused["answer"] as? Int == 8 && refused["status"] as? Int == 422 && refused["key"] as? String == "light1.hue")
            #expect((refused["error"] as? String)?.contains("out of range 0…1") == true, "\(refused)")
            socket.send("not JSON")
            let broken = RawWebSocket.json(try #require(try await offPool { socket.receive() }).payload)
            #expect(broken["status"] as? Int == 400 && (broken["error"] as? String)?.hasPrefix("the body is not JSON") == true, "\(broken)")
            #expect(await editor.session.settings.scene.lights[0].hue != 7)
        }
    }

    /// One frame in flight: while the page has not said it shows a frame, renders are
    /// not sent; once it has, it gets the newest, as one delta from the frame it has.
    @Test func aPageIsSentTheNewestFrameOnlyOnceItShowsItsLast() async throws {
        try await EditorFixture.with { editor in
            try await eventually("the first frame") { await editor.session.frame != nil }
            await editor.session.waitUntilIdle()
            let (port, token) = (editor.port, editor.server.token)
            let socket = try await offPool { try RawWebSocket(port: port, token: token, timeout: 30) }
            let whole = try #require(try await offPool { socket.receive() })
            let (info, delta) = try RawWebSocket.frameMessage(whole.payload)
            let shown = try #require(info["n"] as? Int)
            let first = try #require(await editor.session.frame)
            var pixels = [RGBA8](repeating: .clear, count: first.width * first.height)
            _ = try FrameDelta.apply(delta, to: &pixels, width: first.width, height: first.height)
            for (k, hue) in ["0.1", "0.2", "0.3"].enumerated() {
                socket.send("{\"id\": \(k), \"changes\": [{\"key\": \"light2.hue\", \"value\": \"\(hue)\"}], \"tag\": \"t:\(k)\"}")
                let answer = RawWebSocket.json(try #require(try await offPool { socket.receive() }).payload)
                #expect(answer["status"] as? Int == 200, "\(answer)")
                try await eventually("change \(k) rendered") {
                    await editor.session.waitUntilIdle()
                    return await editor.session.frame?.revision == (await editor.session.revision)
                }
            }
            // Three frames rendered since; none sent (a 1 s wait passes; the other receives
            // wait up to 30 s, which a loaded machine needed).
            socket.waitAtMost(seconds: 1)
            #expect(try await offPool { socket.receive()?.opcode } == nil)
            socket.waitAtMost(seconds: 30)
            socket.send("{\"have\": \(shown)}")
            let newest = try #require(await editor.session.frame)
            let next = try #require(try await offPool { socket.receive() })
            let (nextInfo, nextDelta) = try RawWebSocket.frameMessage(next.payload)
            #expect(nextInfo["n"] as? Int == newest.number && nextInfo["tag"] as? String == "t:2", "\(nextInfo)")
            #expect(try FrameDelta.apply(nextDelta, to: &pixels, width: first.width, height: first.height) == newest.number)
            #expect(FrameDeltaTests.differing(pixels, newest.image.pixels) == 0)
        }
    }

    /// What a browser sends passes the server: a message in two frames with a ping
    /// between them is answered, and so is the ping.
    @Test func theServerTakesGoodFrames() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let replies = try await offPool { () throws -> [(opcode: UInt8, payload: [UInt8])] in
            let socket = try RawWebSocket(port: port, token: token, timeout: 10)
            guard socket.status == 101 else { return [] }
            let message = Array(#"{"id": 7, "changes": [{"key": "radius", "value": "7"}]}"#.utf8)
            socket.sendRaw(RawWebSocket.frame(0x1, Array("{\"have\": 0}".utf8))
                + RawWebSocket.frame(0x1, Array(message.prefix(20)), fin: false)
                + RawWebSocket.frame(0x9, [1, 2, 3])
                + RawWebSocket.frame(0x0, Array(message.dropFirst(20))))
            var replies: [(opcode: UInt8, payload: [UInt8])] = []
            // Frames (binary) may come between; the pong and the answer must.
            while replies.filter({ $0.opcode != 0x2 }).count < 2, let reply = socket.receive() { replies.append(reply) }
            return replies
        }
        let pong = replies.first { $0.opcode == 0xA }
        #expect(pong?.payload == [1, 2, 3], "\(replies.map(\.opcode))")
        let answer = try #require(replies.first { $0.opcode == 0x1 })
        let json = RawWebSocket.json(answer.payload)
        #expect(json["answer"] as? Int == 7 && json["status"] as? Int == 200, "\(json)")
    }

    /// Frames no browser sends, each of which must close its socket (`limit`: the largest message).
    static func badFrames(limit: Int) -> [(String, [UInt8])] {
        [
            ("a text frame over the limit", RawWebSocket.frame(0x1, [UInt8](repeating: 65, count: limit + 1))),
            ("a 2^40-byte frame declared", RawWebSocket.frame(0x2, [], declaredLength: 1 << 40)),
            ("a 2^63-byte frame declared", RawWebSocket.frame(0x2, [], declaredLength: 1 << 63)),
            ("a message over the limit in two frames", RawWebSocket.frame(0x1, [UInt8](repeating: 65, count: limit / 2 + 1), fin: false)
                + RawWebSocket.frame(0x0, [UInt8](repeating: 65, count: limit / 2 + 1))),
            ("an unmasked frame", RawWebSocket.frame(0x1, Array("{}".utf8), masked: false)),
            ("a reserved bit", [0xC1, 0x82, 1, 2, 3, 4, 0x7A, 0x7F]),
            ("a reserved opcode", RawWebSocket.frame(0x3, [1])),
            ("a continuation with no message", RawWebSocket.frame(0x0, [1])),
            ("a new message inside a message", RawWebSocket.frame(0x1, [65], fin: false) + RawWebSocket.frame(0x1, [65])),
            ("a 126-byte ping", RawWebSocket.frame(0x9, [UInt8](repeating: 0, count: 126))),
            ("a fragmented close", RawWebSocket.frame(0x8, [3, 232], fin: false)),
        ]
    }
}
