import Foundation
import MercurialTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `mercurial serve` over real HTTP on loopback: one server for the ordinary answers,
/// others for a key, tight limits, a cache folder and SIGTERM.
@Suite struct CardServerTests {
    /// Runs `work(i)` for each i on threads of their own, all at once (blocking sockets:
    /// the cooperative pool's two threads would run only two), and returns the results in order.
    final class Results<T>: @unchecked Sendable {
        var results: [T?]
        let lock = NSLock()
        init(_ n: Int) { results = Array(repeating: nil, count: n) }
    }

    static func concurrently<T: Sendable>(_ count: Int, _ work: @escaping @Sendable (Int) -> T) -> [T] {
        let box = Results<T>(count)
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            Thread {
                let result = work(i)
                box.lock.withLock { box.results[i] = result }
                group.leave()
            }.start()
        }
        _ = group.wait(timeout: .now() + 120)
        return box.lock.withLock { box.results.compactMap { $0 } }
    }

    @Test func aCardIsTheTitleRenderWouldWriteByteForByte() async throws {
        let server = try ServeProcess()
        try await CLI.withTemporaryDirectory { folder in
            let get = try server.request("/v1/render?text=Served%20card&size=48")
            #expect(get.status == 200)
            #expect(get.header("Content-Type") == "image/png")
            let cli = try await CLI.run(["render", "Served card", "--size", "48", "--no-metadata", "-o", "cli.png"], in: folder)
            #expect(cli.status == 0)
            #expect(get.body == Array(try Data(contentsOf: folder.appendingPathComponent("cli.png"))))

            let scene = #"{"text": "Posted", "size": 40, "material": "gold", "light2.hue": 0.3}"#
            try Data(scene.utf8).write(to: folder.appendingPathComponent("scene.json"))
            let post = try server.request("POST", "/v1/render", body: Array(scene.utf8), headers: ["Content-Type: application/json"])
            #expect(post.status == 200)
            let cliScene = try await CLI.run(["render", "--params", "scene.json", "--no-metadata", "-o", "scene.png"], in: folder)
            #expect(cliScene.status == 0)
            #expect(post.body == Array(try Data(contentsOf: folder.appendingPathComponent("scene.png"))))
            // Served cards carry no recipe (it would name this machine's font paths).
            #expect(!String(decoding: post.body, as: UTF8.self).contains("iTXt"))
        }
    }

    @Test func cardsAreNamedCachedAndRevalidated() async throws {
        let server = try ServeProcess()
        let first = try server.request("/v1/render?text=Named&size=40&format=jpg&background=%23102030")
        #expect(first.status == 200)
        #expect(first.header("Content-Type") == "image/jpeg")
        #expect(Array(first.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
        let etag = try #require(first.header("ETag"))
        #expect(etag.count == 66 && etag.hasPrefix("\"") && etag.hasSuffix("\""))
        #expect(first.header("Cache-Control") == "public, max-age=31536000, immutable")
        let identity = String(etag.dropFirst().dropLast())
        #expect(first.header("Content-Location") == "/v1/cards/\(identity).jpg")

        // The same scene spelt otherwise is the same card; another scene is another.
        let respelt = try server.request("/v1/render?background=%23102030&format=jpeg&size=40.0&text=Named")
        #expect(respelt.header("ETag") == etag)
        #expect(respelt.body == first.body)
        let other = try server.request("/v1/render?text=Named!&size=40&format=jpg&background=%23102030")
        #expect(other.status == 200 && other.header("ETag") != etag)

        let revalidated = try server.request("/v1/render?text=Named&size=40&format=jpg&background=%23102030",
                                             headers: ["If-None-Match: \(etag)"])
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)
        #expect(revalidated.header("ETag") == etag)

        let byName = try server.request("/v1/cards/\(identity).jpg")
        #expect(byName.status == 200 && byName.body == first.body)
        #expect(try server.request("/v1/cards/\(identity).jpg", headers: ["If-None-Match: W/\(etag)"]).status == 304)
        let wrongFormat = try server.request("/v1/cards/\(identity).png")
        #expect(wrongFormat.status == 404 && wrongFormat.errorMessage != nil)
        let notAName = try server.request("/v1/cards/..%2F..%2Fetc%2Fpasswd")
        #expect(notAName.status == 404 && notAName.errorMessage?.contains("SHA-256") == true)

        // WebP by the Accept header, said to caches with Vary.
        let webp = try server.request("/v1/render?text=Named&size=40", headers: ["Accept: image/avif,image/webp,*/*"])
        #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp")
        #expect(Array(webp.body.prefix(4)) == Array("RIFF".utf8) && webp.header("Vary") == "Accept")
    }

    @Test func layersAndEveryKeyComeFromTheQuery() async throws {
        let server = try ServeProcess()
        let layered = try server.request("/v1/render?width=600&height=300&layers%5B0%5D.text=Top&layers%5B1%5D.text=Low&layers%5B1%5D.anchor=bottom&layers%5B1%5D.material=gold&light1.hue=0.4")
        #expect(layered.status == 200, "\(layered.text)")
        try await CLI.withTemporaryDirectory { folder in
            let scene = #"{"width": 600, "height": 300, "layers": [{"text": "Top"}, {"text": "Low", "anchor": "bottom", "material": "gold"}], "light1.hue": 0.4}"#
            try Data(scene.utf8).write(to: folder.appendingPathComponent("layers.json"))
            let cli = try await CLI.run(["render", "--params", "layers.json", "--no-metadata", "-o", "layers.png"], in: folder)
            #expect(cli.status == 0)
            #expect(layered.body == Array(try Data(contentsOf: folder.appendingPathComponent("layers.png"))))
        }
    }

    /// Every bad request: a 4xx with a JSON error naming the culprit; never an empty 200.
    @Test func badRequestsAreRefusedWithTheirReason() async throws {
        let server = try ServeProcess()
        let cases: [(String, String, [UInt8]?, Int, String)] = [
            ("GET", "/v1/render?text=x&size=abc", nil, 400, "size"),
            ("GET", "/v1/render?text=x&colour=red", nil, 400, "colour"),
            ("GET", "/v1/render?text=x&font=/etc/passwd", nil, 400, "names a file"),
            ("GET", "/v1/render?text=x&font=fonts/../../etc/passwd", nil, 400, "names a file"),
            ("GET", "/v1/render?text=x&mask=/etc/passwd", nil, 400, "names a file"),
            ("GET", "/v1/render?text=x&shadingImage=x.png", nil, 400, "names a file"),
            ("GET", "/v1/render?text=x&material=/etc/passwd", nil, 400, "no bundled material"),
            ("GET", "/v1/render?text=x&format=gif", nil, 400, "format"),
            ("GET", "/v1/render?text=x&quality=500&format=jpg", nil, 400, "quality"),
            ("GET", "/v1/render?text=x&text=y", nil, 400, "twice"),
            ("GET", "/v1/render?text=%ZZ", nil, 400, "escape"),
            ("GET", "/v1/render?layers%5B999999%5D.text=x", nil, 400, "at most"),
            ("GET", "/v1/render?text=x&width=5000&height=5000", nil, 400, "limit"),
            ("GET", "/v1/render?text=x&format=jpg", nil, 400, "transparen"),
            ("POST", "/v1/render", Array(#"{"text": "x", "size": }"#.utf8), 400, "scene:1:"),
            ("POST", "/v1/render", Array(#"{"text": "x", "material": "../x.json"}"#.utf8), 400, "no bundled material"),
            ("POST", "/v1/render", Array(#"{"text": "x", "layers": [{"material": "/tmp/m.json"}], "width": 10, "height": 10}"#.utf8), 400, "no bundled material"),
            ("POST", "/v1/render", Array(#"{"text": "x", "animation": {"duration": 1}}"#.utf8), 400, "animation"),
            ("POST", "/v1/render", [UInt8](repeating: 32, count: 70_000), 413, "64 KB"),
            ("GET", "/v1/nothing", nil, 404, "/v1/render"),
        ]
        for (method, target, body, status, words) in cases {
            let answer = try server.request(method, target, body: body)
            #expect(answer.status == status, "\(method) \(target): \(answer.status.map(String.init) ?? "closed") \(answer.text)")
            #expect(answer.header("Content-Type") == "application/json", "\(target)")
            let message = answer.errorMessage ?? ""
            #expect(!message.isEmpty && message.contains(words), "\(target): \(answer.text)")
        }
        // Still serving.
        #expect(try server.request("/healthz").text == "ok\n")
    }

    @Test func aKeyedServerTakesSignedQueriesOnly() async throws {
        try await CLI.withTemporaryDirectory { folder in
            let key = folder.appendingPathComponent("card.key")
            try Data("0123456789abcdef0123456789abcdef\n".utf8).write(to: key)
            let server = try ServeProcess(["--key", key.path])
            let signed = try await CLI.run(["sign", "--key", key.path, "text=Signed card&size=40"], in: folder)
            #expect(signed.status == 0)
            let query = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            // RFC 4231's HMAC-SHA256 (Python's hmac): the signature of the canonical form.
            #expect(query.hasPrefix("size=40&text=Signed%20card&sig="))
            let python = try await CLI.shell("""
                python3 -c "import hmac,hashlib; print(hmac.new(b'0123456789abcdef0123456789abcdef', b'size=40&text=Signed%20card', hashlib.sha256).hexdigest())"
                """, in: folder)
            #expect(query.hasSuffix("sig=" + python.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            let sig = String(query.split(separator: "=").last ?? "")

            #expect(try server.request("/v1/render?\(query)").status == 200)
            // Another spelling of the same query carries the same signature.
            #expect(try server.request("/v1/render?text=Signed+card&size=40&sig=\(sig)").status == 200)
            for target in ["/v1/render?text=Signed%20card&size=40",
                           "/v1/render?text=Signed%20card&size=41&sig=\(sig)",
                           "/v1/render?text=Signed%20card&size=40&sig=\(String(sig.dropLast()))0",
                           "/v1/render?text=Signed%20card&size=40&sig=zz"] {
                let answer = try server.request(target)
                #expect(answer.status == 403, "\(target)")
                #expect(answer.errorMessage?.contains("signature") == true)
            }
            let body = Array(#"{"text": "Signed post", "size": 40}"#.utf8)
            let bodySig = try await CLI.shell("""
                printf '%s' '{"text": "Signed post", "size": 40}' | openssl dgst -sha256 -hmac 0123456789abcdef0123456789abcdef -r | cut -d' ' -f1
                """, in: folder).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try server.request("POST", "/v1/render?sig=\(bodySig)", body: body).status == 200)
            #expect(try server.request("POST", "/v1/render", body: body).status == 403)
        }
    }

    /// Over capacity the server answers 429 with Retry-After at once, keeps rendering
    /// what it took, and serves again as soon as the load goes; a render over its
    /// deadline is a 503; identical requests together are rendered once.
    @Test func overloadDeadlinesAndIdenticalRequests() async throws {
        let server = try ServeProcess(["--workers", "1", "--queue", "1", "--deadline", "30"])
        let answers = Self.concurrently(8) { i in
            (try? server.request("/v1/render?text=Load\(i)&size=300&width=2400&height=1200", timeout: 60))
        }
        let statuses = answers.map { $0?.status ?? 0 }
        #expect(statuses.filter { $0 == 200 }.count >= 2, "\(statuses)")
        #expect(statuses.filter { $0 == 429 }.count >= 1, "\(statuses)")
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 429 }, "\(statuses)")
        for case let refused? in answers where refused.status == 429 {
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.errorMessage?.contains("busy") == true)
        }
        #expect(try server.request("/v1/render?text=After&size=40").status == 200)

        let metrics = try server.request("/metrics").text
        #expect(metrics.contains("mercurial_requests_total{code=\"429\"}"))
        #expect(metrics.contains("mercurial_render_seconds_bucket{le=\"+Inf\"}"))
        #expect(metrics.contains("mercurial_queue_depth 0"))

        // Two workers: while one renders the card, the other reads the same request
        // three more times and finds that render in flight.
        let shared = try ServeProcess(["--workers", "2", "--queue", "16", "--deadline", "60"])
        let same = Self.concurrently(4) { _ in (try? shared.request("/v1/render?text=Once&size=300&width=2400&height=1200", timeout: 60))?.status }
        #expect(same == [200, 200, 200, 200])
        #expect(try shared.request("/metrics").text.contains("mercurial_cache_total{result=\"miss\"} 1\n"))

        // One worker and one place in the queue: eight identical requests at once share one
        // reading and one render, and none is refused (six were, each read on its own).
        let narrow = try ServeProcess(["--workers", "1", "--queue", "1", "--deadline", "60"])
        let burst = Self.concurrently(8) { _ in (try? narrow.request("/v1/render?text=Burst&size=300&width=2400&height=1200", timeout: 60))?.status }
        #expect(burst == Array(repeating: 200, count: 8), "\(burst)")
        #expect(try narrow.request("/metrics").text.contains("mercurial_cache_total{result=\"miss\"} 1\n"))

        let hurried = try ServeProcess(["--deadline", "0.001"])
        let late = try hurried.request("/v1/render?text=Late&size=300&width=2400&height=1200")
        #expect(late.status == 503, "\(late.text)")
        #expect(late.errorMessage?.contains("deadline") == true && late.header("Retry-After") == "1")
    }

    /// A client that sends its head a byte at a time is cut off at the read deadline,
    /// and the server goes on serving others meanwhile.
    @Test func aSlowClientIsCutOff() async throws {
        let server = try ServeProcess(["--read-deadline", "1"])
        let fd = try RawHTTP.connect(port: server.port, timeout: 5)
        defer { close(fd) }
        let started = ContinuousClock.now
        var closed = false
        for byte in Array("GET /v1/render?text=slow HTTP/1.1\r\nHost: x\r\n".utf8) {
            guard send(fd, [byte], 1, Int32(MSG_NOSIGNAL)) == 1 else { closed = true; break }
            #expect(try server.request("/healthz").status == 200)
            usleep(100_000)
            if ContinuousClock.now - started > .seconds(8) { break }
        }
        var byte: UInt8 = 0
        if !closed {
            // A close (0) or a reset; a time-out (EAGAIN) means the connection was left open.
            let n = recv(fd, &byte, 1, 0)
            closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        }
        #expect(closed)
        // The deadline is 1 s; a loaded machine may be slow to notice, but not 45 bytes' worth of dribble (4.5 s).
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test func sigtermFinishesTheRendersUnderWayAndExitsZero() async throws {
        let server = try ServeProcess(["--deadline", "30"])
        let port = server.port
        let process = server.process
        let answers = Self.concurrently(3) { i -> Int in
            if i == 2 {
                // SIGTERM once both renders are running (each takes about a second in a debug build).
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    let metrics = (try? server.request("/metrics").text) ?? ""
                    if metrics.contains("mercurial_renders_running 2\n") { break }
                    usleep(20_000)
                }
                kill(process.processIdentifier, SIGTERM)
                return 0
            }
            let bytes = Array("GET /v1/render?text=Term\(i)&size=300&width=2400&height=1200 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
            return (try? RawHTTP.exchange(port: port, bytes, timeout: 60))?.status ?? -1
        }
        #expect(answers == [200, 200, 0])
        #expect(server.stop(grace: 30) == 0)
    }

    @Test func theDiskCacheOutlivesTheServer() async throws {
        try await CLI.withTemporaryDirectory { folder in
            let cache = folder.appendingPathComponent("cards").path
            let first = try ServeProcess(["--cache", cache])
            let card = try first.request("/v1/render?text=Kept&size=40&format=webp")
            let location = try #require(card.header("Content-Location"))
            #expect(first.stop() == 0)
            let files = try FileManager.default.subpathsOfDirectory(atPath: cache).filter { $0.hasSuffix(".webp") }
            #expect(files.count == 1)
            let second = try ServeProcess(["--cache", cache])
            let again = try second.request(location)
            #expect(again.status == 200 && again.body == card.body)
            #expect(try second.request("/metrics").text.contains("mercurial_cache_total{result=\"disk\"} 1"))
        }
    }

    @Test func badServerOptionsAreOneLineErrors() async throws {
        try await CLI.withTemporaryDirectory { folder in
            try Data("short\n".utf8).write(to: folder.appendingPathComponent("short.key"))
            for (arguments, words) in [(["serve", "--port", "99999"], "--port 99999"),
                                       (["serve", "--deadline", "0"], "--deadline"),
                                       (["serve", "--key", "missing.key"], "missing.key"),
                                       (["serve", "--key", "short.key"], "at least 16"),
                                       (["sign", "--key", "short.key", "a=b"], "at least 16"),
                                       (["sign", "--key", "missing.key", "a=b"], "missing.key")] {
                let result = try await CLI.run(arguments, in: folder)
                #expect(result.status != 0, "\(arguments)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].hasPrefix("error: ") && lines[0].contains(words), "\(arguments): \(result.stderr)")
            }
        }
    }
}
