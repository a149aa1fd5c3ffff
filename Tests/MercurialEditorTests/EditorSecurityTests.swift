import Foundation
import Testing
@testable import MercurialKit
@testable import MercurialEditor
#if canImport(Glibc)
import Glibc
import MercurialTestSupport
#endif

/// A `mercurial edit --port 0` process: its port and token from the URL line it prints.
final class EditorProcess: @unchecked Sendable {
    let process = Process()
    let folder: URL
    private(set) var port: UInt16 = 0
    private(set) var token = ""
    private let stdout = Pipe()
    private let stderr = Pipe()

    init(arguments: [String] = []) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("editor-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        process.executableURL = try CLI.binary()
        process.arguments = ["edit", "--port", "0"] + arguments
        process.currentDirectoryURL = folder
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard let text = CLI.firstLine(of: stdout, from: process, within: .seconds(30)) else {
            stop()
            throw CLI.SetupError(description: "mercurial edit printed no URL line within 30 s")
        }
        guard let url = text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines),
              let components = URLComponents(string: url), let port = components.port,
              let token = components.queryItems?.first(where: { $0.name == "token" })?.value else {
            stop()
            throw CLI.SetupError(description: "cannot read the URL line \(text.debugDescription)")
        }
        self.port = UInt16(port)
        self.token = token
    }

    /// SIGINT (Ctrl-C), then SIGKILL after 5 s; returns the termination status.
    @discardableResult
    func stop() -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGINT)
        let deadline = Date(timeIntervalSinceNow: 5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

@Suite(.serialized) struct EditorSecurityTests {
    /// The hostile requests: (what, bytes). Every one must get a 4xx or a closed connection.
    static func hostileRequests(port: UInt16, token: String) -> [(String, [UInt8])] {
        var cases: [(String, [UInt8])] = []
        func add(_ what: String, _ bytes: [UInt8]) { cases.append((what, bytes)) }
        func add(_ what: String, _ text: String) { add(what, Array(text.utf8)) }
        let r = { (method: String, path: String, token: String?, body: String?, host: String?, origin: String??, extra: [String]) in
            RawHTTP.request(method, path, port: port, token: token, body: body, host: host, origin: origin, extra: extra)
        }
        // Bad JSON bodies.
        let badBodies = ["", "{", "}", "[]", "null", "\"key\"", "{\"key\": 1}", "{\"key\": \"shininess\"}", "{\"value\": \"1\"}",
                         "{\"key\": [], \"value\": {}}", "{\"changes\": 5}", "{\"changes\": [1, 2]}", "{\"changes\": [{\"key\": \"a\"}]}",
                         "{\"key\": \"shininess\", \"value\": \"0.1\",}", "{'key': 'shininess'}", "{\"key\": \"shininess\" \"value\": \"1\"}",
                         String(repeating: "[", count: 5000), String(repeating: "{\"a\":", count: 3000),
                         "{\"key\": \"shininess\", \"value\": 1e999999}", "{\"key\": \"\\ud800\", \"value\": \"1\"}",
                         "{\"key\": \"text\", \"value\": \"\(String(repeating: "x", count: 20000))\"}",
                         "{\"key\": \"shininess\", \"value\": \"NaN\"}", "{\"key\": \"size\", \"value\": \"-inf\"}",
                         "{\"key\": \"width\", \"value\": \"99999999999999999999\"}", "{\"key\": \"maxLines\", \"value\": \"1.5\"}",
                         "{\"key\": \"light9.hue\", \"value\": \"0.5\"}", "{\"key\": \"material\", \"value\": \"../../etc/passwd\"}",
                         "{\"key\": \"mask\", \"value\": \"/dev/zero\"}", "{\"key\": \"shadingImage\", \"value\": \"/proc/self/environ\"}",
                         "{\"key\": \"font\", \"value\": \"/etc/shadow\"}", "{\"key\": \"font\", \"value\": \"~/.ssh/id_rsa\"}",
                         "{\"changes\": [\(Array(repeating: "{\"key\": \"radius\", \"value\": \"5\"}", count: 300).joined(separator: ","))]}"]
        for (i, body) in badBodies.enumerated() {
            add("bad JSON body \(i)", r("POST", "/api/set", token, body, nil, .none, []))
        }
        // Invalid UTF-8 in the body, the path and a header.
        add("invalid UTF-8 body", Array("POST /api/set HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nX-Mercurial-Token: \(token)\r\nOrigin: http://127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{\"key\": \"text\", \"value\": \"".utf8) + [0xFF, 0xFE, 0xC0] + Array("\"}".utf8))
        for bytes: [UInt8] in [[0xC3, 0x28], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80], [0x80], [0xFF]] {
            add("invalid UTF-8 path", Array("GET /".utf8) + bytes + Array(" HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
            add("invalid UTF-8 header", Array("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nX-Mercurial-Token: ".utf8) + bytes + Array("\r\n\r\n".utf8))
            add("invalid UTF-8 host", Array("GET /api/state HTTP/1.1\r\nHost: ".utf8) + bytes + Array("\r\nConnection: close\r\n\r\n".utf8))
        }
        // Huge bodies: declared, sent, and chunked.
        let big = String(repeating: "a", count: 300 * 1024)
        add("a 300 KB body", r("POST", "/api/set", token, big, nil, .none, []))
        for length in ["262145", "1000000", "99999999999", "9223372036854775807"] {
            add("Content-Length \(length) without the body", "POST /api/set HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nX-Mercurial-Token: \(token)\r\nOrigin: http://127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n{}")
        }
        for length in ["-1", "abc", "1, 2", "0x10", ""] {
            add("bad Content-Length \(length)", "POST /api/set HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nX-Mercurial-Token: \(token)\r\nOrigin: http://127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n{}")
        }
        let chunk = String(repeating: "b", count: 65536)
        add("a chunked body over the cap", "POST /api/set HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nX-Mercurial-Token: \(token)\r\nOrigin: http://127.0.0.1:\(port)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "10000\r\n\(chunk)\r\n", count: 5) + "0\r\n\r\n")
        add("a GET with a body", r("GET", "/api/state", token, "{}", nil, .none, []))
        // Wrong Host (DNS rebinding).
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.1", "localhost", "127.0.0.1:\(port + 1)", "127.0.0.1:\(port).evil.example",
                     "[::1]:\(port)", "0.0.0.0:\(port)", "127.1:\(port)", "LOCALHOST:\(port)x", "127.0.0.1:\(port)/", "-", "attacker.com"] {
            for path in ["/", "/api/state", "/frame"] {
                add("Host \(host) \(path)", r("GET", path, token, nil, host, .none, []))
            }
            add("Host \(host) POST", r("POST", "/api/set", token, "{\"key\":\"radius\",\"value\":\"5\"}", host, .none, []))
        }
        add("no Host", "GET /api/state HTTP/1.1\r\nConnection: close\r\nX-Mercurial-Token: \(token)\r\n\r\n")
        add("two Hosts, the last foreign", "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nHost: evil.example\r\nConnection: close\r\nX-Mercurial-Token: \(token)\r\n\r\n")
        // Missing or wrong token.
        let goodSet = "{\"key\": \"radius\", \"value\": \"5\"}"
        for badToken in [nil, "", "0", String(token.dropLast()), token + "0", token.uppercased() == token ? "x" + token.dropFirst() : token.uppercased(),
                         String(repeating: "0", count: 32), "\(token)x", "../\(token)"] as [String?] {
            for (method, path, body) in [("GET", "/api/state", nil), ("GET", "/api/events", nil), ("GET", "/frame", nil), ("GET", "/sphere", nil),
                                         ("POST", "/api/set", goodSet), ("POST", "/api/save", "{}"), ("POST", "/api/export", "{}"),
                                         ("GET", "/api/export.png", nil)] as [(String, String, String?)] {
                add("token \(badToken ?? "none") \(path)", r(method, path, badToken, body, nil, .none, []))
            }
        }
        add("token in the wrong query item", r("GET", "/api/state?tok=\(token)", nil, nil, nil, .none, []))
        // Wrong or missing Origin on state-changing requests.
        for origin in [nil, "http://evil.example", "null", "http://127.0.0.1:\(port + 1)", "https://127.0.0.1:\(port)",
                       "http://localhost:\(port).evil.example", "file://"] as [String?] {
            for path in ["/api/set", "/api/save", "/api/export"] {
                add("Origin \(origin ?? "none") \(path)", r("POST", path, token, path == "/api/set" ? goodSet : "{}", nil, .some(origin), []))
            }
        }
        add("cross-origin event stream", r("GET", "/api/events", token, nil, nil, .some("http://evil.example"), []))
        add("form-encoded POST", r("POST", "/api/set", token, nil, nil, .none, ["Content-Type: application/x-www-form-urlencoded", "Content-Length: 9", "", "key=value"]))
        // Path traversal, plain and encoded.
        for path in ["/../../etc/passwd", "/..%2f..%2fetc%2fpasswd", "/%2e%2e/%2e%2e/etc/passwd", "/%252e%252e/etc/passwd",
                     "/frame/../../etc/passwd", "/api/../../../etc/passwd", "//etc/passwd", "/etc/passwd", "/.%2e/.%2e/etc/passwd",
                     "/..\\..\\etc\\passwd", "/%c0%ae%c0%ae/etc/passwd", "/editor.js/../../../../etc/passwd", "/api/state/../../etc/passwd",
                     "/proc/self/environ", "/%00", "/index.html%00.png", "/api/export.png/../../../etc/shadow", "/~root/.ssh/id_rsa",
                     "/../" + String(repeating: "../", count: 200) + "etc/passwd", "/" + String(repeating: "a", count: 8000)] {
            add("path \(path.prefix(40))", r("GET", path + (path.contains("?") ? "&" : "?") + "token=\(token)", token, nil, nil, .none, []))
        }
        // Wrong methods.
        for method in ["PUT", "DELETE", "PATCH", "TRACE", "CONNECT", "OPTIONS", "FOO"] {
            add("method \(method)", r(method, "/api/set", token, goodSet, nil, .none, []))
        }
        add("GET on a POST route", r("GET", "/api/save", token, nil, nil, .none, []))
        add("POST on a GET route", r("POST", "/api/state", token, "{}", nil, .none, []))
        // Broken framing.
        // (Blank lines alone are not a request: HTTP/1.1 skips them; see `aHeadMustArriveWithinItsDeadline`.)
        for garbage in ["GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET / \r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
                        "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
                        "POST /api/set HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nxx\r\n",
                        String(repeating: "A", count: 8_000) + "\r\n\r\n", "GET / HTTP/1.1\r\n" + String(repeating: "X-Pad: \(String(repeating: "p", count: 200))\r\n", count: 40) + "\r\n",
                        // Heads over 16 KB: refused by NIO's parser as they arrive.
                        String(repeating: "A", count: 100_000) + "\r\n\r\n", "GET /" + String(repeating: "a", count: 1_000_000) + " HTTP/1.1\r\n\r\n",
                        "GET / HTTP/1.1\r\n" + String(repeating: "X-Pad: \(String(repeating: "p", count: 1000))\r\n", count: 200) + "\r\n",
                        "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"] {
            add("garbage \(garbage.prefix(20).debugDescription)", garbage)
        }
        // WebSocket upgrades that must not open a socket.
        let upgrade = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
        let socketPath = "/api/socket?token=\(token)"
        add("socket without a token", r("GET", "/api/socket", nil, nil, nil, .some("http://127.0.0.1:\(port)"), upgrade))
        add("socket with a wrong token", r("GET", "/api/socket?token=00", nil, nil, nil, .some("http://127.0.0.1:\(port)"), upgrade))
        add("socket from another origin", r("GET", socketPath, nil, nil, nil, .some("http://evil.example"), upgrade))
        add("socket with no Origin", r("GET", socketPath, nil, nil, nil, .some(nil), upgrade))
        add("socket from a rebound host", r("GET", socketPath, nil, nil, "evil.example:\(port)", .some("http://evil.example:\(port)"), upgrade))
        add("socket by POST", r("POST", socketPath, nil, "{}", nil, .some("http://127.0.0.1:\(port)"), upgrade))
        add("socket with a body", r("GET", socketPath, nil, nil, nil, .some("http://127.0.0.1:\(port)"), upgrade + ["Content-Length: 5"]))
        add("upgrade to another protocol", r("GET", socketPath, nil, nil, nil, .some("http://127.0.0.1:\(port)"),
                                             ["Upgrade: h2c", "Connection: Upgrade"]))
        add("socket without a key", r("GET", socketPath, nil, nil, nil, .some("http://127.0.0.1:\(port)"), Array(upgrade.prefix(2)) + ["Sec-WebSocket-Version: 13"]))
        add("socket without an upgrade", r("GET", socketPath, nil, nil, nil, .some("http://127.0.0.1:\(port)"), []))
        return cases
    }

    @Test func hostileRequestsGetA4xxAndTheServerGoesOn() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let cases = Self.hostileRequests(port: editor.port, token: editor.token)
        #expect(cases.count >= 200)
        // Slow-loris: connections that send half a request and stop, held open throughout.
        var slow: [Int32] = []
        for i in 0..<20 {
            let fd = try RawHTTP.connect(port: editor.port)
            RawHTTP.sendAll(fd, Array("POST /api/set HTTP/1.1\r\nHost: 127.0.0.1:\(editor.port)\r\nContent-Length: 100\r\n\(i % 2 == 0 ? "\r\n{" : "X-Half: ")".utf8))
            slow.append(fd)
        }
        defer { slow.forEach { close($0) } }
        var answered = 0, closed = 0
        var closedCases: [String] = []
        let probe = RawHTTP.request("GET", "/api/state", port: editor.port, token: editor.token)
        for (what, bytes) in cases {
            // A request the server waits on (a body that never comes) is given up after 3 s.
            let response = try RawHTTP.exchange(port: editor.port, bytes, timeout: 3)
            if let status = response.status {
                #expect((400..<500).contains(status), "\(what): \(status) \(response.text.prefix(200))")
                #expect(!response.text.contains("root:"), "\(what) leaked a file")
                answered += 1
            } else {
                closed += 1
                closedCases.append(what)
            }
            // After each, the server still answers a good request at once.
            let clock = ContinuousClock.now
            let alive = try RawHTTP.exchange(port: editor.port, probe, timeout: 5)
            #expect(alive.status == 200, "no answer after \(what)")
            #expect(clock.duration(to: .now) < .seconds(5))
            #expect(editor.process.isRunning, "the server stopped after \(what)")
            if !editor.process.isRunning || alive.status != 200 { return }
        }
        print("hostile requests: \(cases.count); answered with a 4xx: \(answered); closed unanswered: \(closed) \(closedCases)")
        // Every one is answered (broken framing too, by NIO's parser or `FirstRequestErrors`).
        #expect(answered == cases.count, "\(answered) answered, \(closed) closed: \(closedCases)")
        // With the slow connections still open, a good request still works at once.
        let clock = ContinuousClock.now
        let good = try RawHTTP.exchange(port: editor.port, RawHTTP.request("POST", "/api/set", port: editor.port, token: editor.token,
                                                                          body: "{\"key\": \"radius\", \"value\": \"6\"}"))
        #expect(good.status == 200, "\(good.text)")
        let page = try RawHTTP.exchange(port: editor.port, RawHTTP.request("GET", "/", port: editor.port, token: nil, host: "localhost:\(editor.port)"))
        #expect(page.status == 200)
        // The page may connect to its own server's socket, and nowhere else.
        #expect(page.headers.lowercased().contains("connect-src 'self' ws://localhost:\(editor.port);"), "\(page.headers)")
        #expect(clock.duration(to: .now) < .seconds(5))
        #expect(editor.process.isRunning)
        // Ctrl-C stops it at once and leaves nothing behind.
        let status = editor.stop()
        #expect(status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: editor.folder.path).isEmpty)
    }

    /// Each frame no browser sends closes its socket (the guard stops it before the
    /// server reads it), a socket opened meanwhile keeps working, and so does the server.
    @Test func hostileWebSocketFramesCloseTheirSocketAndTheServerGoesOn() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let good = try await offPool { try RawWebSocket(port: port, token: token) }
        #expect(good.status == 101)
        let first = try #require(try await offPool { good.receive() })
        #expect(first.opcode == 0x2)
        let cases = EditorSocketTests.badFrames(limit: EditorServer.maximumBody)
            + [("a 300 KB text frame", RawWebSocket.frame(0x1, [UInt8](repeating: 65, count: 300_000)))]
        for (what, bytes) in cases {
            let closed = try await offPool {
                let socket = try RawWebSocket(port: port, token: token, timeout: 5)
                guard socket.status == 101 else { return false }
                socket.sendRaw(bytes)
                return socket.closesWithin()
            }
            #expect(closed, "\(what): the socket stays open")
            #expect(editor.process.isRunning, "the server stopped after \(what)")
        }
        // The good socket still carries a change and its answer.
        good.send(#"{"id": 1, "changes": [{"key": "light2.hue", "value": "0.25"}]}"#)
        let answer = try #require(try await offPool { good.receive() })
        #expect(RawWebSocket.json(answer.payload)["status"] as? Int == 200, "\(String(decoding: answer.payload, as: UTF8.self))")
        let state = try RawHTTP.exchange(port: port, RawHTTP.request("GET", "/api/state", port: port, token: token))
        #expect(state.status == 200)
    }

    /// Pages that leave in the middle of a frame (a reload during a drag) do not stop
    /// later connections from being served: each of 400 sockets, closed as soon as it
    /// opens while its first frame is being written, is followed by one that opens.
    @Test func socketsClosedMidFrameLeaveTheServerServing() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let failed = try await offPool { () throws -> [String] in
            var failed: [String] = []
            for i in 0..<400 {
                // The server holds 4 pages' sockets (`maximumSockets`): one closed is counted out once
                // the server has seen it close, which under a load of 15 on two cores came after the next
                // had asked. That one is refused, and hummingbird-websocket answers any refused upgrade
                // 400 (a browser sees no status either way). So a refusal is asked again, until a deadline
                // for a server that stopped serving (a count that never came down), not a slow one.
                let deadline = ContinuousClock.now + .seconds(15)
                var status: Int? = nil
                repeat {
                    let socket = try RawWebSocket(port: port, token: token, timeout: 15)
                    status = socket.status
                    if status == 400 { usleep(20_000) }
                } while status == 400 && ContinuousClock.now < deadline
                if status != 101 { failed.append("\(i): \(status.map(String.init) ?? "no answer")") }
            }
            return failed
        }
        #expect(failed.isEmpty, "sockets \(failed) were not opened within 15 s")
        let state = try RawHTTP.exchange(port: port, RawHTTP.request("GET", "/api/state", port: port, token: token))
        #expect(state.status == 200)
    }

    /// Issue 31: a change refused on its head (403 without the token, 413 for a declared
    /// 100 MB body) ends its connection at once: the server read the whole 100 MB before.
    @Test func aRefusedBodyIsNotRead() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let size = 100 << 20
        for (expected, key) in [(403, "0123"), (413, token)] {
            let head = "POST /api/set HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Mercurial-Token: \(key)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(size)\r\n\r\n"
            let (response, closed, sent) = try await offPool { () throws -> (RawHTTP.Response?, Bool, Int) in
                let fd = try RawHTTP.connect(port: port, timeout: 2)
                defer { close(fd) }
                RawHTTP.sendAll(fd, Array(head.utf8))
                // The answer comes on the head; then the connection is closed, not read on.
                let (bytes, closed) = EditorLimitTests.readToClose(fd, timeout: 3)
                // What of the body still goes in (the socket's buffers at most, once it is closed).
                var sent = 0
                let chunk = [UInt8](repeating: 0x20, count: 1 << 16)
                while sent < size {
                    let n = chunk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { break }
                    sent += n
                }
                return (RawHTTP.parse(bytes), closed, sent)
            }
            #expect(response?.status == expected, "\(response?.headers ?? "no answer")")
            #expect(response?.headers.lowercased().contains("connection: close") == true, "\(response?.headers ?? "")")
            #expect(closed, "the connection stayed open after the \(expected)")
            #expect(sent < size / 4, "the server read \(sent) bytes of the body after its \(expected)")
        }
        #expect(try RawHTTP.exchange(port: port, RawHTTP.request("GET", "/api/state", port: port, token: token)).status == 200)
    }

    /// Issue 31: a body in a transfer coding other than plain `chunked` is refused with a 501
    /// (`gzip, chunked` was read as plain chunked).
    @Test func onlyPlainChunkedBodiesAreTaken() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let (port, token) = (editor.port, editor.token)
        let change = #"{"key": "radius", "value": "9"}"#
        let chunked = String(change.utf8.count, radix: 16) + "\r\n\(change)\r\n0\r\n\r\n"
        for coding in ["gzip, chunked", "deflate,chunked", "x-custom , chunked"] {
            let request = RawHTTP.request("POST", "/api/set", port: port, token: token, extra: [
                "Content-Type: application/json", "Transfer-Encoding: \(coding)"]) + Array(chunked.utf8)
            let response = try RawHTTP.exchange(port: port, request)
            #expect(response.status == 501, "\(coding): \(response.status as Any) \(response.text)")
            #expect(response.text.contains("chunked"), "\(response.text)")
        }
        let request = RawHTTP.request("POST", "/api/set", port: port, token: token, extra: [
            "Content-Type: application/json", "Transfer-Encoding: chunked"]) + Array(chunked.utf8)
        #expect(try RawHTTP.exchange(port: port, request).status == 200)
    }

    @Test func itListensOnLoopbackOnly() async throws {
        let editor = try EditorProcess()
        defer { editor.stop() }
        let tcp = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
        let portHex = String(format: ":%04X", editor.port)
        let listening = tcp.split(separator: "\n").filter { $0.contains(portHex + " ") && $0.contains(" 0A ") }
        #expect(!listening.isEmpty)
        // 0100007F is 127.0.0.1.
        #expect(listening.allSatisfy { $0.contains("0100007F" + portHex) })
        let tcp6 = (try? String(contentsOfFile: "/proc/net/tcp6", encoding: .utf8)) ?? ""
        #expect(!tcp6.contains(portHex + " 00000000:0000 0A"))
    }
}

/// The end-to-end test in headless Chromium (scripts/editor-browser-test.py, with
/// Selenium): controls for every parameter, a slider drag timed in the page (100 moves, 40 in a debug build),
/// the CLI's error text, a light dot dragged, undo and redo, save, and the saved scene
/// rendering the preview's PNG. Latency is asserted (median ≤ 50 ms) only for a
/// release binary; a debug build is checked for the rest.
@Suite(.serialized) struct EditorBrowserTests {
    // The limit counts the wait for a process slot (CLI.run's, shared with the whole suite): this
    // first browser test waits longest, and took 320 s in CI while its script took under 240 s.
    @Test(.timeLimit(.minutes(10))) func theEditorWorksInHeadlessChromium() async throws {
        let binary = try CLI.binary()
        let isRelease = !binary.path.contains("/debug/")
        // A debug build renders a 1080p frame in 1–5 s (more on a loaded CI machine), so it
        // checks everything but the latency on a quarter of the canvas, with 40 moves: alone
        // it takes 19 s, beside the rest of the suite on two cores 92 s.
        try await Self.run("editor-browser-test.py", ["--max-median", isRelease ? "50" : "0",
                                                      "--size", isRelease ? "1920x1080" : "960x540",
                                                      "--moves", isRelease ? "100" : "40"])
    }

    /// Issue 22's checks (scripts/editor-designer-test.py): a preset switch keeps the values
    /// typed before it and undo brings the previous preset back with them; an error goes
    /// when redo puts a valid state back; Save keeps `material`, `description` and the key order;
    /// scrubbing shows `mercurial animate`'s frames exactly; play shows its rate; a point light
    /// dragged on the preview moves in the render; a keyframe out of range is refused; a WebM
    /// export has alpha and every frame, a cancelled one leaves nothing. The rates (≥ 24 frames/s
    /// playing a 1280×720 light sweep, median scrub ≤ 50 ms) are asserted for a release binary;
    /// a debug build checks the rest at 640×360.
    @Test(.timeLimit(.minutes(8))) func theDesignersChecksPassInHeadlessChromium() async throws {
        let isRelease = !(try CLI.binary()).path.contains("/debug/")
        try await Self.run("editor-designer-test.py", isRelease ? [] : ["--size", "640x360", "--min-rate", "0", "--max-scrub", "0"],
                           timeout: 420)
    }

    /// Issue 22's item 2 (scripts/editor-groups-test.py): a control for every row of `params --json`,
    /// nested ones included, and no raw JSON field for lists, stops, layers or in/out; a gradient
    /// stop added changes the preview, one out of range is refused by the control and undo takes
    /// the stop back; in = fade for 0.7 s is saved so; a point light removed comes back with undo;
    /// the last layer cannot be removed nor a 17th added, a layer added and its text set puts ink under the title;
    /// delays, a vine's route (its points dragged on the preview) and a transition's extent have controls of their own.
    @Test(.timeLimit(.minutes(5))) func theListsStopsLayersAndInOutWorkInHeadlessChromium() async throws {
        try await Self.run("editor-groups-test.py", [])
    }

    /// Issue 33's defects, each in the page (scripts/editor-trust-test.py): a drop shadow turned
    /// on over a canvas sized to the title grows the page's frame to the render's, pixel for
    /// pixel; a change on disk under unsaved edits keeps both and offers #conflict, Overwrite
    /// saving the page's; unsaved edits are marked and leaving warns; undo outlives a reload;
    /// the bar says when the page is on the base scene; Space plays and pauses, ← → Home End
    /// move the playhead; a new scene given a fade-in, or a still scene a ◆, gets a 3 s
    /// animation and shows its timeline at once, and a refused value's message names no file and no line;
    /// a focused text box takes another tab's typing (its next keystroke adds to it); a refusal's
    /// message goes with a valid entry, one shows at a time, a typed colour shows in its swatch, and
    /// a title that cannot be drawn marks the preview as not up to date.
    @Test(.timeLimit(.minutes(5))) func theDesignersTrustChecksPassInHeadlessChromium() async throws {
        try await Self.run("editor-trust-test.py", [])
    }

    /// Issue 33's layers first (scripts/editor-layers-test.py): the layers listed at the top of the
    /// panel, a click on a layer's ink selects it, the panel then shows that layer as drawn and its
    /// edits (a radius, a text, a light, a ◆) go to it and change its pixels only; undo takes a key
    /// the layer did not give out again; keys that do nothing where the page edits are marked.
    @Test(.timeLimit(.minutes(5))) func theLayersComeFirstInHeadlessChromium() async throws {
        try await Self.run("editor-layers-test.py", [])
    }

    /// Issue 33's items 7 and 8 (scripts/editor-timeline-test.py): the timeline has a ruler of
    /// seconds and frame ticks, a named row per track holding its ◆, in and out as bars, and the
    /// playhead and markers on one scale (a ◆ at 2 s within 1 px of the playhead on frame 60);
    /// an export's progress moves no marker; the animation's own rows have no ◆; a tracked point
    /// light's handle stands where the frame on screen has it, scrubbed or playing, and a light off
    /// the canvas gets a handle at its edge marked `offcanvas`.
    @Test(.timeLimit(.minutes(5))) func theTimelineReadsAndTheLightsFollowInHeadlessChromium() async throws {
        try await Self.run("editor-timeline-test.py", [])
    }

    /// Runs a browser test script on the built binary; whatever happens, the editor it started is stopped.
    static func run(_ name: String, _ arguments: [String], timeout: Int = 240) async throws {
        let binary = try CLI.binary()
        let script = CLI.packageRoot.appendingPathComponent("scripts/" + name)
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing; run scripts/install-deps.sh --test")
        }
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("editor-browser-\(UUID().uuidString).pid")
        defer {
            if let text = try? String(contentsOf: pidFile, encoding: .utf8), let pid = Int32(text), pid > 0 {
                kill(pid, SIGKILL)
            }
            try? FileManager.default.removeItem(at: pidFile)
        }
        let result = try await CLI.run(["python3", script.path, binary.path, "--pid-file", pidFile.path] + arguments,
                                       in: FileManager.default.temporaryDirectory, timeout: .seconds(timeout),
                                       executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(!result.timedOut, "\(name) took over \(timeout) s")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("PASS"))
    }
}
