import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import MercurialKit
import NIOCore
import NIOWebSocket
import Synchronization

/// The HTTP server of `mercurial edit`, on Hummingbird 2 (SwiftNIO), bound to 127.0.0.1 only.
///
/// NIO parses every request (llhttp: linear, one parser for the whole connection, a
/// head of at most `maximumHead` bytes), closes a connection that has not sent a
/// whole head within `headDeadline` of its last answer, holds at most
/// `maximumConnections` open (`ConnectionLimit`, `IdleConnections`), and reads
/// WebSocket frames of at most `maximumBody`
/// bytes. Our checks are middleware (`EditorGuard`): a request whose `Host` is not
/// `127.0.0.1:PORT` or `localhost:PORT` is refused (DNS rebinding); everything but the
/// page itself needs the session's token (128 random bits, in the `X-Mercurial-Token`
/// header or the `token` query item); a state-changing request or a socket also needs
/// a same-origin `Origin`, and a change a JSON body of at most `maximumBody` bytes; a
/// page never names a file to read (see `EditorSession.insideFolder` and
/// `allowedFont`). Malformed requests get a 4xx and the server goes on.
public final class EditorServer: Sendable {
    public static let defaultPort: UInt16 = 8470
    /// The largest request body, and the largest message on the page's socket.
    public static let maximumBody = 256 * 1024
    /// The largest request head (request line and headers).
    static let maximumHead = 16 * 1024
    /// A connection must send a whole request head within this time of opening, or of its last answer.
    static let headDeadlineSeconds: Int64 = 10
    /// A request's body must arrive within this time.
    static let bodyDeadline: Duration = .seconds(10)
    /// Connections open at once; further ones wait in the listen queue until one closes.
    static let maximumConnections = 512
    /// Of these, connections busy with a request or that have shown the token (each may hold a response).
    static let maximumBusyConnections = 256
    /// Of these, connections waiting for a request head without having shown the token:
    /// when one more starts to wait, the one that has waited longest is closed (`IdleConnections`).
    static let maximumIdleConnections = 128
    /// The listen queue's length (Linux caps it at net.core.somaxconn, 4096 by default
    /// since 5.4): a connection beyond it is not even queued, and its client tries again
    /// only after 1 s, 3 s, 7 s…, so a flood of idle connections must fit in it.
    static let listenQueue = 4096
    /// Pages' sockets open at once.
    static let maximumSockets = 4
    /// Responses of a whole frame (raw, PNG or delta) made or sent at once: each holds a frame.
    static let concurrentFrameResponses = 2
    /// The longest a frame request waits for a new frame (`/frame.delta?wait=`), in seconds.
    static let longestFrameWait = 20

    public let session: EditorSession
    public let token: String
    private let requestedPort: UInt16
    private let state = Mutex(ServerState())

    struct ServerState {
        var port: UInt16 = 0
        var failure: String?
    }

    public init(session: EditorSession, port: UInt16 = defaultPort) throws(MercurialError) {
        self.session = session
        token = Self.makeToken()
        requestedPort = port
    }

    /// Serves until the task is cancelled or the socket fails.
    public func run() async throws(MercurialError) {
        let gate = ResponseGate(limit: Self.concurrentFrameResponses)
        let sockets = SocketCount(limit: Self.maximumSockets)
        let routes = EditorRoutes(session: session, gate: gate, sockets: sockets)
        let router = Router(context: EditorContext.self)
        router.add(middleware: EditorGuard(token: token, port: { [self] in state.withLock { $0.port } }))
        routes.register(on: router)
        var logger = Logger(label: "mercurial-edit")
        logger.logLevel = .critical
        let head = HTTP1Channel.Configuration.DecoderConfiguration(maxHeaderFieldSize: Self.maximumHead,
                                                                   maxHeaderListSize: Self.maximumHead,
                                                                   maxHeaderFieldCount: 100)
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: .seconds(Self.headDeadlineSeconds), httpDecoderConfiguration: head),
            // A delta goes out in frames of this size too; the page's browser joins them.
            ws: .init(maxFrameSize: Self.maximumBody, autoPing: .enabled(timePeriod: .seconds(30)),
                      closeTimeout: .seconds(5), validateUTF8: true))
        let upgrades = router.buildResponder()
        let idle = IdleConnections(limit: Self.maximumIdleConnections)
        let server = HTTPServerBuilder { [token] responder in
            EditorChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: upgrades,
                                                              configuration: configuration),
                          idle: idle, token: token)
        }
        let app = Application(router: router, server: server,
                              configuration: .init(address: .hostname("127.0.0.1", port: Int(requestedPort)), serverName: nil,
                                                   backlog: Self.listenQueue,
                                                   availableConnectionsDelegate: ConnectionLimit(idle: idle)),
                              onServerRunning: { [self] channel in
                                  state.withLock { $0.port = UInt16(channel.localAddress?.port ?? 0) }
                              },
                              logger: logger)
        do {
            try await app.run()
        } catch {
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            let message = "cannot listen on 127.0.0.1:\(requestedPort) (\(reason)); choose another --port, or --port 0 for a free one"
            state.withLock { $0.failure = message }
            throw MercurialError(message)
        }
    }

    /// Waits until the server listens (at most `timeout` seconds) and returns its loopback port.
    public func waitUntilListening(timeout: Double = 10) async throws(MercurialError) -> UInt16 {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            let (port, failure) = state.withLock { ($0.port, $0.failure) }
            if let failure { throw MercurialError(failure) }
            if port != 0 { return port }
            try? await Task.sleep(for: .milliseconds(5))
        }
        throw MercurialError("the editor's server did not start listening within \(Int(timeout)) s")
    }

    /// The URL to open, with the token.
    public func url(port: UInt16) -> String { "http://127.0.0.1:\(port)/?token=\(token)" }

    /// 128 random bits, in hex.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }
}

/// A request's context: Hummingbird's, the WebSocket handler's slot, and the body `EditorGuard` read.
struct EditorContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    /// A change's body, read by `EditorGuard`.
    var body: [UInt8] = []
    var maxUploadSize: Int { EditorServer.maximumBody }

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
    }
}

/// A refusal: its status and message, answered as `{"error": message}`.
struct Refusal: HTTPResponseError {
    var status: HTTPResponse.Status
    var message: String

    init(_ code: Int, _ phrase: String, _ message: String) {
        status = .init(code: code, reasonPhrase: phrase)
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Responses.json(status, Refused(message))
    }
}

/// The checks every request passes before its route: Host, route and method, token,
/// Origin, and for a change its Content-Type and body (read here, within
/// `EditorServer.bodyDeadline`, up to `EditorServer.maximumBody`).
struct EditorGuard: RouterMiddleware {
    typealias Context = EditorContext
    let token: String
    let port: @Sendable () -> UInt16

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // NIO's parser takes `gzip, chunked` as chunked; no coding but plain chunked is read here.
        let codings = request.headers[values: .transferEncoding].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard codings.isEmpty || codings == ["chunked"] else {
            throw Refusal(501, "Not Implemented",
                          "Transfer-Encoding '\(codings.joined(separator: ", "))' is not supported; send the body as it is, with a Content-Length or Transfer-Encoding: chunked")
        }
        let port = port()
        let host = request.head.authority ?? ""
        // NIO's head keeps the first Host as the authority and any other among the fields.
        guard port != 0, host == "127.0.0.1:\(port)" || host == "localhost:\(port)", request.headers[.host] == nil else {
            throw Refusal(421, "Misdirected Request", "the Host header must be 127.0.0.1:\(port) or localhost:\(port)")
        }
        let route = Route(method: request.method.rawValue, path: request.uri.path)
        guard let kind = route.kind else {
            throw Refusal(404, "Not Found", "no such page")
        }
        guard route.method == kind.method else {
            throw Refusal(405, "Method Not Allowed", "use \(kind.method)")
        }
        if kind.needsToken {
            let given = request.headers[.mercurialToken] ?? request.uri.queryParameters["token"].map(String.init) ?? ""
            guard Self.constantTimeEqual(given, token) else {
                throw Refusal(403, "Forbidden", "a valid session token is required; open the URL mercurial edit printed")
            }
            // A browser names the page's origin; it must be this server.
            let origin = request.headers[.origin]
            if kind.method == "POST" || kind == .socket || origin != nil {
                guard origin == "http://\(host)" else {
                    throw Refusal(403, "Forbidden", "the request's Origin must be http://\(host)")
                }
            }
        }
        let declared = request.headers[.contentLength]
        let chunked = request.headers[.transferEncoding] != nil
        guard kind.method == "POST" else {
            guard declared.map({ $0 == "0" }) ?? !chunked else {
                throw Refusal(400, "Bad Request", "a \(kind.method) request has no body")
            }
            return try await next(request, context)
        }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/json") else {
            throw Refusal(415, "Unsupported Media Type", "send the body as application/json")
        }
        let limit = EditorServer.maximumBody
        if let declared, let count = Int(declared), count > limit {
            throw Refusal(413, "Content Too Large", "the body is \(count) bytes, over the limit of \(limit)")
        }
        var context = context
        context.body = try await Self.readBody(request, limit: limit)
        return try await next(request, context)
    }

    /// The body, or a refusal: over `limit` bytes, or not all there within the deadline.
    static func readBody(_ request: Request, limit: Int) async throws -> [UInt8] {
        let buffer = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                var request = request
                do {
                    return try await request.collectBody(upTo: limit)
                } catch let error as HTTPError where error.status == .contentTooLarge {
                    throw Refusal(413, "Content Too Large", "the body is over the limit of \(limit) bytes")
                }
            }
            group.addTask {
                try await Task.sleep(for: EditorServer.bodyDeadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else {
                throw Refusal(408, "Request Timeout", "the body did not arrive within \(EditorServer.bodyDeadline)")
            }
            return buffer
        }
        return Array(buffer.readableBytesView)
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension HTTPField.Name {
    static let mercurialToken = HTTPField.Name("X-Mercurial-Token")!
    static let frameNumber = HTTPField.Name("X-Frame")!
    static let frameInfo = HTTPField.Name("X-Frame-Info")!
    static let host = HTTPField.Name("Host")!
}

/// At most `limit` holders at once; the others wait their turn.
actor ResponseGate {
    private let limit: Int
    private var holders = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    func enter() async {
        if holders < limit {
            holders += 1
            return
        }
        // The one leaving hands its place over.
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            holders -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        await enter()
        defer { leave() }
        return try await body()
    }
}

/// The pages' sockets open now.
final class SocketCount: Sendable {
    private let open = Mutex(0)
    let limit: Int

    init(limit: Int) { self.limit = limit }

    var isFull: Bool { open.withLock { $0 >= limit } }

    func enter() -> Bool {
        open.withLock {
            guard $0 < limit else { return false }
            $0 += 1
            return true
        }
    }

    func leave() { open.withLock { $0 -= 1 } }
}

/// The routes, by method and exact path.
struct Route {
    enum Kind {
        case page, script, style, state, frame, pixels, delta, sphere, preset, fontPreview, events, socket, set, save, reload, export, download, video, cancelVideo

        var method: String {
            switch self {
            case .set, .save, .reload, .export, .video, .cancelVideo: return "POST"
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

    static let paths: [String: Kind] = [
        "/": .page, "/index.html": .page, "/editor.js": .script, "/editor-scene.js": .script, "/editor.css": .style, "/api/state": .state,
        "/frame": .frame, "/frame.rgba": .pixels, "/frame.delta": .delta, "/sphere": .sphere, "/preset-sphere": .preset, "/font-preview": .fontPreview, "/api/events": .events,
        "/api/socket": .socket, "/api/set": .set, "/api/save": .save, "/api/reload": .reload, "/api/export": .export, "/api/export.png": .download,
        "/api/export-video": .video, "/api/export-video/cancel": .cancelVideo,
    ]

    init(method: String, path: String) {
        self.method = method
        kind = Self.paths[path]
    }
}

/// Responses and their headers.
enum Responses {
    static func headers(_ type: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return headers
    }

    static func bytes(_ status: HTTPResponse.Status = .ok, _ type: String, _ bytes: some Sequence<UInt8>) -> Response {
        Response(status: status, headers: headers(type), body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func resource(_ file: EditorPage.File, socket: String? = nil) -> Response {
        var response = bytes(.ok, file.type, file.bytes)
        let connect = socket.map { "; connect-src 'self' \($0)" } ?? ""
        response.headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' blob:\(connect); frame-ancestors 'none'"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return response
    }

    static func json(_ status: HTTPResponse.Status, _ reply: some Encodable) -> Response {
        bytes(status, "application/json", EditorReply.bytes(reply))
    }

    /// A request refused for `error`: the status its kind says, its message and kind.
    static func refusal(_ error: MercurialError) -> Response {
        json(error.kind.httpStatus, Refused(error))
    }

    static func json(_ code: Int, _ reply: some Encodable) -> Response {
        let phrase = [200: "OK", 400: "Bad Request", 409: "Conflict", 422: "Unprocessable Content", 500: "Internal Server Error",
                      503: "Service Unavailable"][code] ?? "Error"
        return json(HTTPResponse.Status(code: code, reasonPhrase: phrase), reply)
    }
}
