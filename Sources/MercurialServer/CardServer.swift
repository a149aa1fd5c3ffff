import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import MercurialKit
import NIOCore
import ServeOptions
import Synchronization

/// `mercurial serve`: cards rendered on demand through the one job API (`RenderJob`),
/// named by their SHA-256, cached in memory and on disk.
///
///     POST /v1/render            a scene as JSON            → the card
///     GET  /v1/render?KEY=VALUE  scene keys as a query      → the card
///     GET  /v1/cards/SHA.EXT     a card rendered before     → the card, or 404
///     GET  /healthz, GET /metrics
public final class CardServer: Sendable {
    let options: ServeOptions
    let key: [UInt8]?
    let store: CardStore
    let queue: RenderQueue
    let metrics = ServerMetrics()
    private let listening = Mutex<(port: Int, failure: String?)>((0, nil))

    /// The largest request body, a scene's JSON.
    public static let maximumBody = 64 * 1024
    /// The largest canvas a request may ask for.
    public static let maximumPixels = 16_777_216

    public init(options: ServeOptions) throws(MercurialError) {
        try options.check()
        self.options = options
        key = try options.key.map { path throws(MercurialError) in try CardSignature.readKey(path) }
        if let folder = options.cache {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw MercurialError("cannot create the cache folder '\(UserPath(checked: folder))' (\(error.localizedDescription)); choose another --cache")
            }
        }
        store = CardStore(memoryLimit: options.memoryCache * 1_048_576, folder: options.cache)
        queue = RenderQueue(workers: options.workerCount, waiting: options.queueLength)
    }

    /// Serves until SIGTERM or SIGINT, then stops taking connections, lets the requests
    /// under way finish (each within its render deadline) and returns.
    public func run(onListening: @escaping @Sendable (String) -> Void) async throws(MercurialError) {
        let router = Router(context: CardContext.self)
        router.add(middleware: Answers(metrics: metrics))
        router.get("/healthz") { _, _ in Self.text("ok\n") }
        router.get("/metrics") { [self] _, _ in
            Self.text(metrics.text(queueDepth: await queue.depth, busy: await queue.busy,
                                   cachedCards: await store.count, cachedBytes: await store.memoryBytes),
                      type: "text/plain; version=0.0.4")
        }
        router.get("/v1/render") { [self] request, context in try await render(request, body: nil, channel: context.channel) }
        router.post("/v1/render") { [self] request, context in
            let tooLarge = Refusal(413, "the scene is over \(Self.maximumBody / 1024) KB; send a smaller scene")
            if let length = request.headers[.contentLength].flatMap(Int.init), length > Self.maximumBody { throw tooLarge }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: Self.maximumBody)
            } catch is NIOTooManyBytesError {
                throw tooLarge
            } catch let error as HTTPError where error.status == .contentTooLarge {
                throw tooLarge
            }
            return try await render(request, body: Array(buffer: body), channel: context.channel)
        }
        router.get("/v1/cards/{name}") { [self] request, context in try await storedCard(request, name: context.parameters.get("name") ?? "") }
        var logger = Logger(label: "mercurial-serve")
        logger.logLevel = .critical
        let deadline = TimeAmount.milliseconds(Int64(options.readDeadline * 1000))
        let head = HTTP1Channel.Configuration.DecoderConfiguration(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024,
                                                                   maxHeaderFieldCount: 100)
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [RequestDeadline(limit: deadline)],
                                                idleTimeout: deadline, httpDecoderConfiguration: head)),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil, backlog: 256,
                                 availableConnectionsDelegate: MaximumAvailableConnections(options.maxConnections)),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? 0
                listening.withLock { $0.port = port }
                let host = options.host.contains(":") ? "[\(options.host)]" : options.host
                onListening("http://\(host):\(port)/")
            },
            logger: logger)
        do {
            try await app.runService()
        } catch {
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw MercurialError("cannot listen on \(options.host):\(options.port) (\(reason)); choose another --port, or --port 0 for a free one")
        }
        await queue.shutdown()
    }

    // MARK: Routes

    private func render(_ request: Request, body: [UInt8]?, channel: any Channel) async throws -> Response {
        let started = ContinuousClock.now
        let limit = Duration.milliseconds(Int64(options.deadline * 1000))
        // A request whose client has gone is dropped when its turn comes (or between
        // bands), so that a queue left full by a burst drains at once.
        let cancellation = Cancellation.deadline(started + limit, limit: limit)
            .or(Cancellation { channel.isActive ? nil : "the client closed the connection" })
        let query = try CardSignature.parameters(request.uri.query ?? "")
        let (encoding, negotiated) = try Self.encoding(query, accept: request.headers[.accept])
        if let key {
            let signed: Bool
            if let body {
                signed = CardSignature.verify(body: body, signature: query.last { $0.key == CardRequest.signatureKey }?.value, key: key)
            } else {
                signed = try CardSignature.verify(query, key: key)
            }
            guard signed else {
                throw Refusal(403, "a valid signature is required: add sig, the HMAC-SHA256 of the canonical query (or of the body, for a POST) under the server's key; see 'mercurial sign'")
            }
        }
        let encodingKey = "\(encoding.format) \(encoding.quality ?? -1) \(encoding.lossless) \(encoding.progressive)"
        let requestKey: String
        if let body {
            requestKey = "POST \(encodingKey) " + CardSignature.hex(CardSignature.sha256(body))
        } else {
            requestKey = "GET \(encodingKey) " + (try CardSignature.canonical(query))
        }
        if let card = await store.card(forRequest: requestKey) {
            metrics.cache(.memory)
            return answer(card, request, negotiated: negotiated, started: started)
        }
        let withRecipe = options.recipe
        let card = try await store.request(requestKey) { [self] in
            try await queued { () throws(MercurialError) -> CardRequest in
                try cancellation.check()
                let card = if let body { try CardRequest(json: body, encoding: encoding) } else { try CardRequest(query: query, encoding: encoding) }
                try Self.checkCanvas(card.settings)
                return card
            }
        }
        let identity = card.identity(withRecipe: withRecipe)
        await store.remember(request: requestKey, identity: identity)
        if Self.matches(request.headers[.ifNoneMatch], identity) {
            metrics.cache(.notModified)
            return notModified(identity)
        }
        let (rendered, fresh) = try await store.card(identity) { [self] in
            try await queued { [self] () throws(MercurialError) -> Card in
                if let kept = store.diskCard(identity, encoding.format) {
                    metrics.cache(.disk)
                    return kept
                }
                metrics.cache(.miss)
                let output = MemoryOutput()
                let report = try RenderJob.run(card.job(withRecipe: withRecipe), to: .memory(output), cancellation: cancellation)
                metrics.rendered(seconds: report.milliseconds / 1000)
                let made = Card(bytes: output.bytes ?? [], format: encoding.format, identity: identity)
                store.saveToDisk(made)
                return made
            }
        }
        if !fresh { metrics.cache(.memory) }
        return answer(rendered, request, negotiated: negotiated, started: started)
    }

    private func storedCard(_ request: Request, name: String) async throws -> Response {
        let parts = name.split(separator: ".")
        guard parts.count == 2, parts[0].count == 64, parts[0].allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
              let format = StillFormat.allCases.first(where: { $0.fileExtension == parts[1] }) else {
            throw Refusal(404, "no card is named '\(name.escapedForTerminal)'; a card's name is its SHA-256 and .png, .jpg or .webp, as Content-Location gives it")
        }
        let identity = String(parts[0])
        if Self.matches(request.headers[.ifNoneMatch], identity) { return notModified(identity) }
        if let card = await store.memoryCard(identity), card.format == format {
            metrics.cache(.memory)
            return answer(card, request, negotiated: false, started: ContinuousClock.now)
        }
        if let card = store.diskCard(identity, format) {
            metrics.cache(.disk)
            await store.keep(card)
            return answer(card, request, negotiated: false, started: ContinuousClock.now)
        }
        throw Refusal(404, "card \(identity).\(format.fileExtension) is not kept here (never rendered, or dropped from the cache); ask /v1/render for its scene again")
    }

    // MARK: Answers

    private func answer(_ card: Card, _ request: Request, negotiated: Bool, started: ContinuousClock.Instant) -> Response {
        if Self.matches(request.headers[.ifNoneMatch], card.identity) {
            metrics.cache(.notModified)
            return notModified(card.identity)
        }
        var headers = Self.cacheHeaders(card.identity)
        headers[.contentType] = card.format.mediaType
        headers[.contentLocation] = card.path
        if negotiated { headers[.vary] = "Accept" }
        let elapsed = ContinuousClock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        headers[HTTPField.Name("Server-Timing")!] = "render;dur=\(String(format: "%.2f", ms))"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: card.body))
    }

    private func notModified(_ identity: String) -> Response {
        Response(status: .notModified, headers: Self.cacheHeaders(identity))
    }

    static func cacheHeaders(_ identity: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = "\"\(identity)\""
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return headers
    }

    static func text(_ body: String, type: String = "text/plain; charset=utf-8") -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// Whether an If-None-Match header names the card (`*`, or its ETag, weak or strong).
    static func matches(_ header: String?, _ identity: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { tag in
            let t = tag.trimmingCharacters(in: .whitespaces)
            return t == "*" || t == "\"\(identity)\"" || t == "W/\"\(identity)\""
        }
    }

    // MARK: Requests

    /// The encoding the query's `format`, `quality`, `lossless` and `progressive` ask for,
    /// else the first image type the Accept header names (then `negotiated`), else PNG.
    static func encoding(_ query: [(key: String, value: String)], accept: String?) throws(MercurialError) -> (StillEncoding, negotiated: Bool) {
        func value(_ key: String) -> String? { query.last { $0.key == key }?.value }
        func flag(_ key: String) throws(MercurialError) -> Bool {
            guard let text = value(key) else { return false }
            switch text.lowercased() {
            case "", "1", "true", "yes": return true
            case "0", "false", "no": return false
            default: throw MercurialError("query '\(key)' must be true or false, not '\(text.escapedForTerminal)'")
            }
        }
        var format = StillFormat.png
        var negotiated = false
        if let name = value("format") {
            switch name.lowercased() {
            case "png": format = .png
            case "jpg", "jpeg": format = .jpeg
            case "webp": format = .webp
            default: throw MercurialError("query 'format' must be png, jpg or webp, not '\(name.escapedForTerminal)'")
            }
        } else if let accept {
            let types = accept.split(separator: ",").map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased() }
            let known: [String: StillFormat] = ["image/png": .png, "image/jpeg": .jpeg, "image/webp": .webp]
            if let first = types.compactMap({ known[$0] }).first {
                format = first
                negotiated = true
            }
        }
        var quality: Int?
        if let text = value("quality") {
            guard let q = Int(text) else { throw MercurialError("query 'quality' must be a whole number 0…100, not '\(text.escapedForTerminal)'") }
            quality = q
        }
        let encoding = try StillEncoding.checked(format, quality: quality, lossless: try flag("lossless"), progressive: try flag("progressive"))
        return (encoding, negotiated)
    }

    /// Refuses a canvas over `maximumPixels`, before anything is drawn.
    static func checkCanvas(_ settings: RenderSettings) throws(MercurialError) {
        let size: (width: Int, height: Int)
        if settings.layers.isEmpty {
            size = try TitleRenderer.plannedSize(settings).canvas
        } else {
            size = (settings.width ?? 0, settings.height ?? 0)
        }
        guard Double(size.width) * Double(size.height) <= Double(maximumPixels) else {
            throw MercurialError.limit("the canvas would be \(size.width) × \(size.height) pixels, over the server's limit of \(maximumPixels / 1_048_576) M pixels; give a smaller width, height or size")
        }
    }

    /// Runs `work` on a render worker; a full queue is a 429.
    private func queued<T: Sendable>(_ work: @escaping @Sendable () throws(MercurialError) -> T) async throws -> T {
        do {
            return try await queue.run(work)
        } catch is RenderQueue.Overloaded {
            throw Refusal(429, "the server is busy (\(queue.workers) renders running, \(queue.waiting) waiting); try again in a second", retryAfter: 1)
        }
    }
}

/// A request's context: Hummingbird's, and its connection (whether the client is still there).
struct CardContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// A request refused: its status and message, answered as `{"error": message}`.
struct Refusal: Error {
    var status: Int
    var message: String
    var retryAfter: Int?
    init(_ status: Int, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }
}

/// Every answer passes here: a refusal or a `MercurialError` becomes a JSON body with
/// the status it calls for (never an empty 200), and each status is counted.
struct Answers: RouterMiddleware {
    typealias Context = CardContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response: Response
        do {
            response = try await next(request, context)
        } catch let refusal as Refusal {
            response = Self.json(refusal.status, refusal.message, retryAfter: refusal.retryAfter)
        } catch let error as MercurialError {
            // The user's scene (400), or over a limit (400 as well: the message says which);
            // a deadline or the machine (503: the same request may go through later).
            switch error.kind {
            case .input, .limit: response = Self.json(400, error.message)
            case .resource: response = Self.json(503, error.message, retryAfter: 1)
            case .internal: response = Self.json(500, error.message)
            }
        } catch let error as HTTPError where error.status == .notFound {
            response = Self.json(404, "no such route; the server answers POST and GET /v1/render, GET /v1/cards/SHA.EXT, /healthz and /metrics")
        } catch let error as HTTPError {
            response = Self.json(Int(error.status.code), error.body ?? error.status.reasonPhrase)
        } catch {
            response = Self.json(500, "internal error: \(error)")
        }
        metrics.answered(response.status.code)
        return response
    }

    static func json(_ status: Int, _ message: String, retryAfter: Int? = nil) -> Response {
        struct Body: Encodable { var error: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let bytes = (try? encoder.encode(Body(error: message))).map { Array($0) } ?? Array(#"{"error":"internal error"}"#.utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes + [10])))
    }
}
