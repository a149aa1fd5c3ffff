import Foundation
import Synchronization
import Testing
@testable import MercurialEditor
@testable import MercurialKit
#if canImport(Glibc)
import Glibc
import MercurialTestSupport
#endif

/// What a hostile client on loopback could do to the editor's server before it moved to
/// SwiftNIO (issue 19, items 1–6), each through the real `mercurial edit` binary.
@Suite(.serialized) struct EditorLimitTests {
    /// The server process's peak resident size (VmHWM) and its CPU time so far, from /proc.
    static func usage(_ pid: Int32) -> (peakMB: Int, cpuSeconds: Double) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        let ticks = fields.count > 12 ? (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0) : 0
        return (peak / 1024, ticks / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// Reads what comes back on `fd` until the server closes it or `timeout` seconds pass.
    static func readToClose(_ fd: Int32, timeout: Double) -> (bytes: [UInt8], closed: Bool) {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return (data, true) }
            data += chunk[0..<n]
        }
        return (data, false)
    }

    /// What the server sends on each of `fds` and whether it closes it, within `timeout` seconds, read all at once.
    static func readAll(_ fds: [Int32], timeout: Double) -> [(bytes: [UInt8], closed: Bool)] {
        var read = [Int32: [UInt8]](), closed = Set<Int32>()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while closed.count < fds.count, ContinuousClock.now < deadline {
            var pollers = fds.filter { !closed.contains($0) }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&pollers, nfds_t(pollers.count), 100) > 0 else { continue }
            for poller in pollers where poller.revents != 0 {
                let n = chunk.withUnsafeMutableBytes { recv(poller.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n > 0 { read[poller.fd, default: []] += chunk[0..<n] }
                if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) { closed.insert(poller.fd) }
            }
        }
        return fds.map { (read[$0] ?? [], closed.contains($0)) }
    }

    static func statusLines(_ bytes: [UInt8]) -> Int {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").count - 1
    }

    static func revision(_ editor: EditorProcess) throws -> Int? {
        let state = try RawHTTP.exchange(port: editor.port, RawHTTP.request("GET", "/api/state", port: editor.port, token: editor.token))
        let json = (try? JSONSerialization.jsonObject(with: Data(state.body))) as? [String: Any]
        return (json?["editor"] as? [String: Any])?["revision"] as? Int
    }

    /// Item 1: a second request after a bare LF, which a parser splitting heads on CRLF
    /// never saw, is never answered nor carried out: one answer (a 400) at most.
    @Test func aSmuggledSecondRequestIsNeverAnswered() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let before = try Self.revision(editor)
        let change = #"{"key": "radius", "value": "9"}"#
        let smuggled = "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nX-Mercurial-Token: \(token)\r\nX: a\n\n"
            + "POST /api/set HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Mercurial-Token: \(token)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(change.utf8.count)\r\n\r\n\(change)"
        let (bytes, closed) = try await offPool { () throws -> ([UInt8], Bool) in
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            RawHTTP.sendAll(fd, Array(smuggled.utf8))
            return Self.readToClose(fd, timeout: 5)
        }
        #expect(closed, "the connection stayed open")
        #expect(Self.statusLines(bytes) <= 1, "\(String(decoding: bytes, as: UTF8.self))")
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 400"), "\(String(decoding: bytes.prefix(200), as: UTF8.self))")
        // The change it carried was not made.
        #expect(try Self.revision(editor) == before)
    }

    /// Item 2: a 256 KB request line, smuggled or not, is refused for well under a second of CPU.
    @Test(.timeLimit(.minutes(2))) func aLongRequestLineCostsLittleCPU() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let pid = editor.process.processIdentifier
        let long = "/" + String(repeating: "a", count: 256 * 1024)
        let cpuBefore = Self.usage(pid).cpuSeconds
        // The last: a head that a parser splitting on CRLF took as one, with a body; one
        // splitting on a bare LF saw three requests, the third a 256 KB line.
        for request in ["GET \(long) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n",
                        "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Mercurial-Token: \(token)\r\nX: a\n\nGET \(long) HTTP/1.1\r\n\r\n",
                        "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX: a\n\nContent-Length: \(long.utf8.count + 4)\r\n\r\nGET \(long)"] {
            let response = try await offPool { try RawHTTP.exchange(port: port, Array(request.utf8), timeout: 10) }
            #expect(response.status.map { (400..<500).contains($0) } ?? false, "\(response.status as Any) \(response.text.prefix(100))")
        }
        let cpu = Self.usage(pid).cpuSeconds - cpuBefore
        #expect(cpu < 1, "the server spent \(cpu) s of CPU on three long request lines")
    }

    /// Item 3: slow-loris connections, each sending a byte of its head every 2 s, hold no
    /// place for long: with 300 of them (more than the server holds at once) a good
    /// request is answered within the head deadline, and each of them is closed by it.
    @Test(.timeLimit(.minutes(2))) func slowConnectionsAreCutAtTheHeadDeadline() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let probe = RawHTTP.request("GET", "/api/state", port: port, token: token)
        let deadline = Double(EditorServer.headDeadlineSeconds)
        let slow = try await offPool { () throws -> [Int32] in
            try (0..<300).map { i in
                let fd = try RawHTTP.connect(port: port, timeout: 5)
                // Blank lines alone are no request either: HTTP/1.1 skips them before a request line.
                RawHTTP.sendAll(fd, Array((i % 10 == 0 ? "\r\n\r\n" : "GET / HTTP/1.1\r\nX-Slow: ").utf8))
                return fd
            }
        }
        defer { slow.forEach { close($0) } }
        let clock = ContinuousClock.now
        let dribbler = Task.detached {
            // A byte every 2 s from each, until each is closed or 3 deadlines pass.
            var open = Set(slow)
            while !open.isEmpty, clock.duration(to: .now) < .seconds(deadline * 3), !Task.isCancelled {
                for fd in open where send(fd, "x", 1, Int32(MSG_NOSIGNAL)) < 0 { open.remove(fd) }
                try? await Task.sleep(for: .seconds(2))
            }
        }
        defer { dribbler.cancel() }
        let good = try await offPool { try RawHTTP.exchange(port: port, probe, timeout: Int(deadline) + 5) }
        #expect(good.status == 200)
        #expect(clock.duration(to: .now) < .seconds(deadline + 5))
        // Every slow connection is closed by the server, though it kept sending.
        let closed = try await offPool { Self.readAll(slow, timeout: deadline * 2 + 4).filter(\.closed).count }
        #expect(closed == slow.count, "\(slow.count - closed) slow connections stayed open")
        #expect(clock.duration(to: .now) < .seconds(deadline * 3))
    }

    /// Item 4: a refused WebSocket upgrade is answered and its connection closed; 300 of
    /// them, left open by their clients, do not keep a good request out.
    @Test func aRefusedUpgradeClosesItsConnection() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let port = editor.port
        let upgrade = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
        let closing = RawHTTP.request("GET", "/api/socket?token=00", port: port, token: nil, origin: .some("http://127.0.0.1:\(port)"),
                                      extra: upgrade)
        // Keep-alive: the client leaves it open; the server must close it.
        let request = Array(String(decoding: closing, as: UTF8.self).replacingOccurrences(of: "Connection: close\r\n", with: "").utf8)
        let results = try await offPool { () throws -> [(bytes: [UInt8], closed: Bool)] in
            let fds = try (0..<300).map { _ in
                let fd = try RawHTTP.connect(port: port, timeout: 5)
                RawHTTP.sendAll(fd, request)
                return fd
            }
            defer { fds.forEach { close($0) } }
            return Self.readAll(fds, timeout: 10)
        }
        let statuses = results.map { RawHTTP.parse($0.bytes)?.status }
        #expect(statuses.allSatisfy { $0.map { (400..<500).contains($0) } ?? false }, "\(statuses)")
        let open = results.filter { !$0.closed }.count
        #expect(open == 0, "\(open) refused upgrades stayed open")
        let good = try RawHTTP.exchange(port: port, RawHTTP.request("GET", "/api/state", port: port, token: editor.token))
        #expect(good.status == 200)
    }

    /// A connection to 127.0.0.1:`port` begun without waiting for it (non-blocking); -1 if no descriptor was left.
    static func startConnecting(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return fd
    }

    /// Issue 31, item 10: 2,000 idle connections without a token, each opened again as soon
    /// as the server closes it, leave room for a good client: a request with the token is
    /// answered within 8 s, as docs/security.md promises (it waited 10 to 17 s, over 20 s in
    /// the hostile wave, when the server held 256 of them for their 10 s head deadline and
    /// the rest filled its listen queue).
    /// The flood runs on a thread of its own for at most 40 s and 10 million loop turns,
    /// and closes every socket it opened.
    @Test(.timeLimit(.minutes(2))) func aFloodOfIdleConnectionsLeavesRoomForAGoodClient() async throws {
        // The open-file limit (ulimit -n) must allow the flood's 2,000 sockets and the test's
        // own; the server, started after, inherits it for its ends of them.
        let flood = 2_000
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < rlim_t(flood + 500) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(flood + 500))
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        try #require(limit.rlim_cur >= rlim_t(flood + 500), "ulimit -n is \(limit.rlim_cur); this test needs \(flood + 500) open files")
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        final class Flood: @unchecked Sendable {
            let stop = Mutex(false)
            let stats = Mutex((reopened: 0, open: 0))
        }
        let state = Flood()
        let flooder = Thread {
            var fds = (0..<flood).map { _ in Self.startConnecting(port: port) }
            defer { fds.forEach { if $0 >= 0 { close($0) } } }
            let deadline = ContinuousClock.now + .seconds(40)
            var turns = 0
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !state.stop.withLock({ $0 }), ContinuousClock.now < deadline, turns < 10_000_000 {
                turns += 1
                var pollers = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                guard poll(&pollers, nfds_t(pollers.count), 50) > 0 else { continue }
                var reopened = 0
                for (i, poller) in pollers.enumerated() where poller.revents != 0 {
                    let n = chunk.withUnsafeMutableBytes { recv(poller.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    // Closed (or refused) by the server: open it again at once.
                    if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) || poller.revents & Int16(POLLHUP | POLLERR) != 0 {
                        close(poller.fd)
                        fds[i] = Self.startConnecting(port: port)
                        reopened += 1
                    }
                }
                let open = fds.filter { $0 >= 0 }.count
                state.stats.withLock { $0 = ($0.reopened + reopened, open) }
            }
        }
        flooder.start()
        defer {
            state.stop.withLock { $0 = true }
            while !flooder.isFinished { usleep(10_000) }
        }
        // The flood is under way: its connections fill the server's places and its queue.
        try await Task.sleep(for: .seconds(3))
        let probe = RawHTTP.request("GET", "/api/state", port: port, token: token)
        var waits: [Duration] = []
        for _ in 0..<3 {
            let start = ContinuousClock.now
            // A connection not made within the time-out throws: no answer either.
            let answer = try? await offPool { try RawHTTP.exchange(port: port, probe, timeout: 12) }
            waits.append(start.duration(to: .now))
            #expect(answer?.status == 200, "a good request got \(answer?.status.map(String.init) ?? "no answer") under the flood")
        }
        let stats = state.stats.withLock { $0 }
        let peak = Self.usage(editor.process.processIdentifier).peakMB
        print("flood of \(flood) idle connections (ulimit -n \(limit.rlim_cur)): \(stats.reopened) reopened; good requests waited \(waits); server's peak \(peak) MB")
        #expect(stats.open == flood, "the flood could not keep its \(flood) connections open")
        #expect(stats.reopened > flood, "the server closed only \(stats.reopened) idle connections")
        for wait in waits {
            #expect(wait < .seconds(8), "a good request waited \(wait) under the flood")
        }
    }

    /// Drains a socket on a thread of its own until it closes (the server's answers must
    /// not back up while a test floods it).
    final class Drain: @unchecked Sendable {
        private let thread: Thread
        init(_ fd: Int32) {
            thread = Thread {
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) { return }
                }
            }
            thread.start()
        }
    }

    /// Item 5: floods of small `have` messages and of 256 KB changes on the page's socket
    /// keep the server's memory bounded: it reads a message only when the last is handled.
    @Test(.timeLimit(.minutes(3))) func floodsOnTheSocketKeepMemoryBounded() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let pid = editor.process.processIdentifier
        let have = RawWebSocket.frame(0x1, Array(#"{"have":0}"#.utf8))
        let tag = String(repeating: "t", count: EditorServer.maximumBody - 100)
        let big = RawWebSocket.frame(0x1, Array(#"{"changes": [{"key": "radius", "value": "5"}], "tag": "\#(tag)"}"#.utf8))
        try await offPool {
            let socket = try RawWebSocket(port: port, token: token, timeout: 30)
            guard socket.status == 101 else { return }
            let drain = Drain(socket.fd)
            for _ in 0..<15 { RawHTTP.sendAll(socket.fd, Array([[UInt8]](repeating: have, count: 10_000).joined())) }
            for _ in 0..<1_000 { RawHTTP.sendAll(socket.fd, big) }
            _ = drain
        }
        // The server goes on serving. Under the suite's load the flood's backlog can hold
        // the server's threads past a new connection's 10 s head deadline, which then
        // closes it unanswered (seen once in a full CI run): a second try must be answered.
        var state = try RawHTTP.exchange(port: port, RawHTTP.request("GET", "/api/state", port: port, token: token), timeout: 45)
        if state.status != 200 {
            state = try RawHTTP.exchange(port: port, RawHTTP.request("GET", "/api/state", port: port, token: token), timeout: 45)
        }
        #expect(state.status == 200)
        let peak = Self.usage(pid).peakMB
        print("socket floods (150,000 haves, 1,000 changes of 256 KB): peak \(peak) MB")
        #expect(peak < 256, "the server's peak resident size was \(peak) MB")
    }

    /// Item 6: an 8K canvas changed a few times with no page connected, then 1,000
    /// requests for its raw pixels at once from clients that do not read, keep the
    /// server within about 512 MB.
    @Test(.timeLimit(.minutes(5))) func largeFramesKeepMemoryBounded() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let pid = editor.process.processIdentifier
        func set(_ body: String) throws -> Int? {
            try RawHTTP.exchange(port: port, RawHTTP.request("POST", "/api/set", port: port, token: token, body: body), timeout: 120).status
        }
        let events = try EventListener(port: port, token: token)
        defer { events.stop() }
        #expect(try set(#"{"changes": [{"key": "width", "value": "7680"}, {"key": "height", "value": "4320"}, {"key": "size", "value": "900"}]}"#) == 200)
        for radius in 5...8 {
            #expect(try set(#"{"key": "radius", "value": "\#(radius)"}"#) == 200)
            try await Task.sleep(for: .milliseconds(500))
        }
        // The last state rendered.
        try await eventually("the 8K frame", seconds: 180) {
            events.events("frame").contains { $0["revision"] as? Int == 5 && $0["width"] as? Int == 7680 }
        }
        let afterRenders = Self.usage(pid).peakMB
        let request = RawHTTP.request("GET", "/frame.rgba", port: port, token: token)
        try await offPool {
            var fds: [Int32] = []
            defer { fds.forEach { close($0) } }
            for _ in 0..<1_000 { fds.append(Self.startConnecting(port: port)) }
            // Each sends its request once connected, and reads nothing.
            var waiting = Set(fds)
            let deadline = ContinuousClock.now + .seconds(10)
            while !waiting.isEmpty, ContinuousClock.now < deadline {
                for fd in waiting {
                    var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    if poll(&poller, 1, 0) > 0, request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0 {
                        waiting.remove(fd)
                    }
                }
                usleep(10_000)
            }
            sleep(3)
        }
        let state = try RawHTTP.exchange(port: port, RawHTTP.request("GET", "/api/state", port: port, token: token), timeout: 30)
        #expect(state.status == 200)
        let peak = Self.usage(pid).peakMB
        print("8K canvas: peak \(afterRenders) MB after 5 renders, \(peak) MB after 1,000 raw-pixel requests")
        #expect(peak < 560, "the server's peak resident size was \(peak) MB")
    }

    /// Issue 31's leftover: a page on the socket editing an 8K canvas over a backdrop (so
    /// every frame goes out whole, 133 MB) with seven radius changes, each waited for. The
    /// session kept an earlier frame beside the newest (let go after each frame by the
    /// pressure check, so it served no delta) and the socket's message was made in four
    /// copies: 702 MB at the peak (debug build). Now the newest frame counts against the
    /// frame budget and the message is written once, into the buffer the socket sends.
    @Test(.timeLimit(.minutes(5))) func sevenRadiusChangesOnAnEightKCanvasKeepMemoryBounded() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("editor-8k-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let scene = folder.appendingPathComponent("scene.json")
        try Data(##"{"text": "MercurialText", "size": 900, "width": 7680, "height": 4320, "radius": 4, "background": "#202020"}"##.utf8)
            .write(to: scene)
        let editor = try EditorProcess(arguments: [scene.path])
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let frames = try await offPool { () throws -> [Int] in
            let socket = try RawWebSocket(port: port, token: token, timeout: 120)
            guard socket.status == 101 else { return [] }
            /// The next frame's number, once the page has said it shows it.
            func nextFrame() throws -> Int? {
                while let message = socket.receive() {
                    // The server's pings (a page's browser answers them; a slow reader must too).
                    if message.opcode == 0x9 { socket.sendRaw(RawWebSocket.frame(0xA, message.payload)) }
                    guard message.opcode == 0x2 else { continue }
                    let (info, delta) = try RawWebSocket.frameMessage(message.payload)
                    guard let n = info["n"] as? Int, delta.count >= 7680 * 4320 * 4 else { return nil }
                    socket.send("{\"have\": \(n)}")
                    return n
                }
                return nil
            }
            var numbers = [try nextFrame() ?? 0]
            for radius in 5...11 {
                socket.send(#"{"id": \#(radius), "changes": [{"key": "radius", "value": "\#(radius)"}]}"#)
                numbers.append(try nextFrame() ?? 0)
            }
            return numbers
        }
        #expect(frames.count == 8 && frames.allSatisfy { $0 > 0 } && frames == frames.sorted(), "\(frames)")
        let peak = Self.usage(editor.process.processIdentifier).peakMB
        print("8K canvas over a backdrop, a page on the socket, seven radius changes: peak \(peak) MB")
        #expect(peak < 560, "the server's peak resident size was \(peak) MB")
    }

    /// One message setting an 8K canvas, every style at its largest, zoom 16 and a move:
    /// the frame's styles are held to the streamed title's cap (`Compositing.checkStyles`),
    /// so the page is told why and the server stays small (it drew them whole, in memory:
    /// 1,808 MB in the audit, with 64 point lights).
    @Test(.timeLimit(.minutes(3))) func aFrameOverTheStylesCapIsRefusedNotDrawn() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let events = try EventListener(port: port, token: token)
        defer { events.stop() }
        let values = [("width", "7680"), ("height", "4320"), ("size", "1200"), ("zoom", "16"), ("shiftX", "100"),
                      ("dropShadow.distance", "4096"), ("dropShadow.size", "250"), ("dropShadow.spread", "100"),
                      ("outerGlow.size", "250"), ("outerGlow.spread", "100"), ("stroke.width", "250"),
                      ("innerShadow.distance", "4096"), ("innerShadow.size", "250"), ("innerShadow.choke", "100")]
        let body = "{\"changes\": [" + values.map { #"{"key": "\#($0.0)", "value": "\#($0.1)"}"# }.joined(separator: ", ") + "]}"
        let set = try RawHTTP.exchange(port: port, RawHTTP.request("POST", "/api/set", port: port, token: token, body: body),
                                       timeout: 120)
        #expect(set.status == 200, "\(set)")
        try await eventually("the render error", seconds: 150) {
            events.events("render-error").contains { ($0["message"] as? String)?.contains("reaches too far to draw") == true }
        }
        let message = events.events("render-error").compactMap { $0["message"] as? String }.last ?? ""
        #expect(message.contains("at most 64 M values"), "\(message)")
        let peak = Self.usage(editor.process.processIdentifier).peakMB
        print("8K canvas with every style at its largest, zoomed: refused at a peak of \(peak) MB")
        #expect(peak < 474, "the server's peak resident size was \(peak) MB")
    }
}
