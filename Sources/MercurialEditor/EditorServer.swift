import FlyingFox
import FlyingSocks
import Foundation
import MercurialKit

/// The HTTP server of `mercurial edit`, on FlyingFox, bound to 127.0.0.1 only.
///
/// Security of a local server: a request whose `Host` is not `127.0.0.1:PORT` or
/// `localhost:PORT` is refused (DNS rebinding); everything but the page itself needs
/// the session's token (128 random bits, in the `X-Mercurial-Token` header or the
/// `token` query item); a state-changing request also needs a same-origin `Origin`
/// and a JSON body of at most `maximumBody` bytes; a page never names a file to
/// read (see `EditorSession.insideFolder` and `allowedFont`). Malformed requests get
/// a 4xx and the server goes on.
public final class EditorServer: Sendable {
    public static let defaultPort: UInt16 = 8470
    /// The largest request body taken.
    public static let maximumBody = 256 * 1024
    /// The longest a frame request waits for a new frame (`/frame.delta?wait=`), in seconds.
    static let longestFrameWait = 20

    public let session: EditorSession
    public let token: String
    private let server: HTTPServer
    private let port = PortBox()
    /// The loopback listener that checks each request's head before FlyingFox reads it.
    private let front: RequestGuard

    public init(session: EditorSession, port: UInt16 = defaultPort) throws(MercurialError) {
        self.session = session
        token = Self.makeToken()
        // FlyingFox listens on an abstract Unix socket (no file to leave behind); only
        // the guard listens on 127.0.0.1.
        var generator = SystemRandomNumberGenerator()
        let backend = "mercurial-edit-\(getpid())-\(String(generator.next() as UInt64, radix: 16))"
        front = try RequestGuard(port: port, backend: backend)
        self.port.set(front.port)
        let handler = EditorHandler(session: session, token: token, port: self.port)
        server = HTTPServer(config: HTTPServer.Configuration(address: sockaddr_un.unix(abstractNamespace: backend),
                                                             timeout: 30, logger: .disabled),
                            handler: handler)
    }

    /// Serves until the task is cancelled or the socket fails.
    public func run() async throws(MercurialError) {
        front.start()
        do {
            try await server.run()
        } catch {
            throw MercurialError("the editor's server stopped (\(error))")
        }
    }

    /// Waits until the server listens (at most `timeout` seconds) and returns its loopback port.
    public func waitUntilListening(timeout: Double = 10) async throws(MercurialError) -> UInt16 {
        do {
            try await server.waitUntilListening(timeout: timeout)
        } catch {
            throw MercurialError("the editor's server did not start listening within \(Int(timeout)) s")
        }
        return front.port
    }

    public func stop() async {
        front.stop()
        await server.stop()
    }

    /// The URL to open, with the token.
    public func url(port: UInt16) -> String { "http://127.0.0.1:\(port)/?token=\(token)" }

    /// 128 random bits, in hex.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }
}

/// The port, known once the server listens (`--port 0` picks one).
final class PortBox: @unchecked Sendable {
    private let lock = NSLock()
    private var port: UInt16 = 0
    func set(_ value: UInt16) { lock.withLock { port = value } }
    var value: UInt16 { lock.withLock { port } }
}

/// Every request: the checks, then the route.
struct EditorHandler: HTTPHandler {
    let session: EditorSession
    let token: String
    let port: PortBox

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let port = port.value
        let host = request.headers[.host] ?? ""
        guard port != 0, host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
            return Self.error(421, "Misdirected Request", "the Host header must be 127.0.0.1:\(port) or localhost:\(port)")
        }
        let route = Route(method: request.method.rawValue, path: request.path)
        guard let kind = route.kind else {
            return Self.error(404, "Not Found", "no such page")
        }
        guard route.method == kind.method else {
            return Self.error(405, "Method Not Allowed", "use \(kind.method)")
        }
        if kind.needsToken {
            let given = request.headers[HTTPHeader("X-Mercurial-Token")] ?? request.query["token"] ?? ""
            guard Self.constantTimeEqual(given, token) else {
                return Self.error(403, "Forbidden", "a valid session token is required; open the URL mercurial edit printed")
            }
            // A browser names the page's origin; it must be this server.
            let origin = request.headers[HTTPHeader("Origin")]
            if kind.method == "POST" || kind == .socket || origin != nil {
                guard origin == "http://\(host)" else {
                    return Self.error(403, "Forbidden", "the request's Origin must be http://\(host)")
                }
            }
        }
        var body: [UInt8] = []
        if kind.method == "POST" {
            let type = request.headers[.contentType]?.lowercased() ?? ""
            guard type.hasPrefix("application/json") else {
                return Self.error(415, "Unsupported Media Type", "send the body as application/json")
            }
            switch await Self.readBody(request) {
            case .success(let bytes): body = bytes
            case .failure(let error): return error.response
            }
        } else if let count = request.bodySequence.count, count > 0 {
            return Self.error(400, "Bad Request", "a \(kind.method) request has no body")
        }
        return await respond(kind, request: request, body: body)
    }

    private func respond(_ kind: Route.Kind, request: HTTPRequest, body: [UInt8]) async -> HTTPResponse {
        switch kind {
        case .page:
            // The socket named as well as 'self': not every browser lets 'self' cover ws:.
            let host = request.headers[.host] ?? ""
            return Self.resource(EditorPage.html, type: "text/html; charset=utf-8", socket: "ws://\(host)")
        case .script:
            return Self.resource(EditorPage.script, type: "text/javascript; charset=utf-8")
        case .style:
            return Self.resource(EditorPage.style, type: "text/css; charset=utf-8")
        case .state:
            return await state()
        case .delta:
            // The pixels that changed since the frame the page shows (`have`), as runs;
            // with `wait` (seconds, at most `longestFrameWait`), sent as soon as a frame
            // newer than `have` is rendered, or 204 when none came in that time.
            let have = Int(request.query["have"] ?? "") ?? 0
            if let wait = request.query["wait"].flatMap(Int.init), wait > 0 {
                await session.waitForFrame(after: have, timeout: .seconds(min(wait, EditorServer.longestFrameWait)))
                if (await session.frame?.number ?? 0) <= have {
                    return HTTPResponse(statusCode: .noContent, headers: Self.headers("text/plain"))
                }
            }
            guard let (frame, base) = await session.frame(andBase: have) else {
                return Self.error(404, "Not Found", await session.lastError ?? "no frame rendered yet")
            }
            let bytes = FrameDelta.encode(frame.image, frame: frame.number, from: base?.image, baseNumber: base?.number ?? 0)
            var response = HTTPResponse(statusCode: .ok, headers: Self.headers("application/octet-stream"), body: Data(bytes))
            response.headers[HTTPHeader("X-Frame")] = String(frame.number)
            // The frame's event, percent-encoded (a tag is the page's text: no line breaks in a header).
            let info = EditorJSON.string(session.frameInfo(frame))
            response.headers[HTTPHeader("X-Frame-Info")] = info.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "%7B%7D"
            return response
        case .frame, .sphere, .pixels:
            guard let frame = await session.frame else {
                return Self.error(404, "Not Found", await session.lastError ?? "no frame rendered yet")
            }
            if kind == .pixels {
                // The canvas's straight-alpha RGBA, for the page's <canvas>; its size is in the frame event.
                var response = HTTPResponse(statusCode: .ok, headers: Self.headers("application/octet-stream"),
                                            body: frame.image.withUnsafeBufferPointer { Data(buffer: $0) })
                response.headers[HTTPHeader("X-Frame")] = String(frame.number)
                return response
            }
            let bytes: [UInt8]
            do {
                bytes = kind == .frame ? try frame.png() : try session.spherePNG(for: frame.scene)
            } catch {
                return Self.error(500, "Internal Server Error", error.message)
            }
            var response = HTTPResponse(statusCode: .ok, headers: Self.headers("image/png"), body: Data(bytes))
            response.headers[HTTPHeader("X-Frame")] = String(frame.number)
            return response
        case .events:
            let stream = await session.subscribe()
            var headers = Self.headers("text/event-stream")
            headers[HTTPHeader("X-Accel-Buffering")] = "no"
            return HTTPResponse(statusCode: .ok, headers: headers,
                                body: HTTPBodySequence(from: EventBytes(stream: stream)))
        case .socket:
            // Changes in and frames out on one connection (see EditorSocket.swift).
            let upgrade = WebSocketHTTPHandler(handler: MessageFrameWSHandler(handler: EditorSocket(session: session),
                                                                              frameSize: EditorSocket.frameSize))
            return (try? await upgrade.handleRequest(request))
                ?? Self.error(400, "Bad Request", "this is a WebSocket: connect with an Upgrade: websocket request")
        case .set:
            let (code, json) = await Self.set(body, session: session)
            return Self.json(code, json)
        case .save:
            do {
                let path = try await session.save()
                return Self.json(200, ["path": path])
            } catch {
                return Self.error(500, "Internal Server Error", error.message)
            }
        case .export:
            do {
                let (path, bytes) = try await session.export()
                return Self.json(200, ["path": path, "bytes": bytes.count])
            } catch {
                return Self.error(500, "Internal Server Error", error.message)
            }
        case .download:
            guard let bytes = await session.exported else {
                return Self.error(404, "Not Found", "nothing exported yet; press Export PNG")
            }
            var headers = Self.headers("image/png")
            let name = UserPath(checked: session.scenePath).lastComponent
            let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
            let safe = stem.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_.".unicodeScalars.contains($0)) }
            headers[HTTPHeader("Content-Disposition")] = "attachment; filename=\"\(safe.isEmpty ? "title" : String(String.UnicodeScalarView(safe))).png\""
            return HTTPResponse(statusCode: .ok, headers: headers, body: Data(bytes))
        }
    }

    /// The parameter table with the current values (the JSON of `mercurial params
    /// --json`), and what the menus offer.
    private func state() async -> HTTPResponse {
        let settings = await session.settings
        let table = ParameterGroup.json(values: settings)
        let extra = EditorJSON.string([
            "revision": await session.revision,
            "material": settings.material,
            "materials": session.materials,
            "fonts": session.bundledFonts,
            "families": session.installedFamilies,
            "scene": session.scenePath,
            "error": await session.lastError ?? NSNull(),
        ])
        // {"parameters": […]} and the rest, in one object.
        let merged = table.dropLast().trimmingCharacters(in: .whitespacesAndNewlines) + ",\n  \"editor\": " + extra + "\n}"
        return HTTPResponse(statusCode: .ok, headers: Self.headers("application/json"), body: Data(merged.utf8))
    }

    /// `{"changes": [{"key": K, "value": V}, …], "tag": T}` or `{"key": K, "value": V, "tag": T}`,
    /// from a POST or the page's socket: the answer's status and JSON.
    static func set(_ body: [UInt8], session: EditorSession) async -> (Int, [String: Any]) {
        let root: JSONNode
        do {
            root = try JSONDocument.parse(body)
        } catch {
            return (400, ["error": "the body is not JSON: \(error.location): \(error.reason)"])
        }
        guard case .object(let members) = root.value else {
            return (400, ["error": "the body must be a JSON object"])
        }
        func string(_ node: JSONNode?) -> String? {
            switch node?.value {
            case .string(let s)?: return s
            case .number(let v)?: return v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
            case .bool(let b)?: return b ? "true" : "false"
            case .null?: return nil
            default: return nil
            }
        }
        func change(_ fields: [JSONMember]) -> EditorSession.Change? {
            guard let key = string(fields.first { $0.key == "key" }?.value),
                  let value = string(fields.first { $0.key == "value" }?.value) else { return nil }
            return EditorSession.Change(key: key, value: value)
        }
        var changes: [EditorSession.Change] = []
        if let list = members.first(where: { $0.key == "changes" })?.value {
            guard case .array(let items) = list.value, items.count <= 256 else {
                return (400, ["error": "\"changes\" must be an array of at most 256 {\"key\", \"value\"} objects"])
            }
            for item in items {
                guard case .object(let fields) = item.value, let c = change(fields) else {
                    return (400, ["error": "each change must be {\"key\": string, \"value\": string}"])
                }
                changes.append(c)
            }
        } else if let c = change(members) {
            changes = [c]
        } else {
            return (400, ["error": "give {\"key\": string, \"value\": string} or {\"changes\": […]}"])
        }
        let tag = string(members.first { $0.key == "tag" }?.value).map { String($0.prefix(100)) }
        do {
            let (revision, changed) = try await session.apply(changes, tag: tag)
            return (200, ["revision": revision, "changed": changed])
        } catch {
            return (422, ["error": error.message, "key": error.key])
        }
    }

    // MARK: Requests

    struct BodyError: Error {
        var response: HTTPResponse
    }

    /// The body, refused if over `EditorServer.maximumBody`.
    static func readBody(_ request: HTTPRequest) async -> Result<[UInt8], BodyError> {
        let limit = EditorServer.maximumBody
        if let count = request.bodySequence.count, count > limit {
            return .failure(BodyError(response: error(413, "Content Too Large", "the body is \(count) bytes, over the limit of \(limit)")))
        }
        var bytes: [UInt8] = []
        do {
            for try await chunk in request.bodySequence {
                bytes.append(contentsOf: chunk)
                guard bytes.count <= limit else {
                    return .failure(BodyError(response: error(413, "Content Too Large", "the body is over the limit of \(limit) bytes")))
                }
            }
        } catch {
            return .failure(BodyError(response: Self.error(400, "Bad Request", "the body could not be read")))
        }
        return .success(bytes)
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: Responses

    static func headers(_ type: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers[.contentType] = type
        headers[HTTPHeader("Cache-Control")] = "no-store"
        headers[HTTPHeader("X-Content-Type-Options")] = "nosniff"
        headers[HTTPHeader("Referrer-Policy")] = "no-referrer"
        return headers
    }

    static func resource(_ text: String, type: String, socket: String? = nil) -> HTTPResponse {
        var headers = headers(type)
        let connect = socket.map { "; connect-src 'self' \($0)" } ?? ""
        headers[HTTPHeader("Content-Security-Policy")] = "default-src 'self'; img-src 'self' blob:\(connect); frame-ancestors 'none'"
        headers[HTTPHeader("X-Frame-Options")] = "DENY"
        return HTTPResponse(statusCode: .ok, headers: headers, body: Data(text.utf8))
    }

    static func json(_ code: Int, _ object: [String: Any]) -> HTTPResponse {
        let phrase = code == 200 ? "OK" : code == 400 ? "Bad Request" : "Unprocessable Content"
        return HTTPResponse(statusCode: HTTPStatusCode(code, phrase: phrase),
                     headers: headers("application/json"), body: Data(EditorJSON.string(object).utf8))
    }

    static func error(_ code: Int, _ phrase: String, _ message: String) -> HTTPResponse {
        HTTPResponse(statusCode: HTTPStatusCode(code, phrase: phrase), headers: headers("application/json"),
                     body: Data(EditorJSON.string(["error": message]).utf8))
    }
}

/// The routes, by method and exact path.
struct Route {
    enum Kind {
        case page, script, style, state, frame, pixels, delta, sphere, events, socket, set, save, export, download

        var method: String {
            switch self {
            case .set, .save, .export: return "POST"
            default: return "GET"
            }
        }

        var needsToken: Bool {
            switch self {
            case .page, .script, .style: return false
            default: return true
            }
        }
    }

    let method: String
    let kind: Kind?

    init(method: String, path: String) {
        self.method = method
        switch path {
        case "/", "/index.html": kind = .page
        case "/editor.js": kind = .script
        case "/editor.css": kind = .style
        case "/api/state": kind = .state
        case "/frame": kind = .frame
        case "/frame.rgba": kind = .pixels
        case "/frame.delta": kind = .delta
        case "/sphere": kind = .sphere
        case "/api/events": kind = .events
        case "/api/socket": kind = .socket
        case "/api/set": kind = .set
        case "/api/save": kind = .save
        case "/api/export": kind = .export
        case "/api/export.png": kind = .download
        default: kind = nil
        }
    }
}

/// Server-sent events as the bytes of an endless response body.
struct EventBytes: AsyncBufferedSequence {
    typealias Element = UInt8
    let stream: AsyncStream<[UInt8]>

    func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var base: AsyncStream<[UInt8]>.Iterator
        var pending: [UInt8] = []

        mutating func next() async -> UInt8? {
            while pending.isEmpty {
                guard let chunk = await base.next() else { return nil }
                pending = chunk
            }
            return pending.removeFirst()
        }

        mutating func nextBuffer(suggested count: Int) async -> [UInt8]? {
            while pending.isEmpty {
                guard let chunk = await base.next() else { return nil }
                pending = chunk
            }
            let head = Array(pending.prefix(Swift.max(1, count)))
            pending.removeFirst(head.count)
            return head
        }
    }
}
