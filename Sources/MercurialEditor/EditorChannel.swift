import Foundation
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization

/// Each connection as Hummingbird's HTTP/1 channel with its WebSocket upgrade sets it
/// up, plus two checks that channel leaves out: a first request that NIO cannot parse,
/// or whose upgrade it refuses, is answered with a 400 before the connection closes
/// (Hummingbird answers parse errors only after a first request), and an upgraded
/// connection takes only masked frames.
///
/// It also keeps a flood of idle connections from shutting a good client out
/// (`ConnectionWatch`), and ends a connection whose request was answered before its body
/// had come, rather than read the rest of that body.
struct EditorChannel: ServerChildChannel {
    let inner: HTTP1WebSocketUpgradeChannel
    let idle: IdleConnections
    let token: String

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(FirstRequestErrors(), position: .after(decoder))
            try pipeline.addHandler(ConnectionWatch(idle: idle, token: token), position: .after(decoder))
            try pipeline.addHandler(UpgradeWatcher())
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
        // An upgrade NIO refused before any answer (one without a key, say) ends here
        // with the connection open and nothing written: it is answered, then closed.
        let channel = value.channel
        try? await channel.eventLoop.submit {
            guard channel.isActive, let check = try? channel.pipeline.syncOperations.context(handlerType: FirstRequestErrors.self) else { return }
            (check.handler as? FirstRequestErrors)?.answerIfSilent(context: check)
        }.get()
    }
}

/// Between NIO's HTTP decoder and the rest: a parse error in the connection's first
/// request gets a 400 and a close (later errors go on to Hummingbird, which answers
/// them), and so does a first request that asks for an upgrade but is not a WebSocket
/// handshake NIO would take (NIO would drop it and leave the connection silent).
///
/// It also gives the first request's head its deadline: Hummingbird's idle timeout
/// starts only once a first head has come, so until then a connection dribbling a
/// byte at a time would be held open for ever.
final class FirstRequestErrors: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = Never
    typealias OutboundOut = HTTPServerResponsePart
    private var requests = 0
    /// Whether anything was written to the connection.
    private(set) var answered = false
    private var deadline: Scheduled<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        let loop = context.eventLoop.assumeIsolated()
        deadline = loop.scheduleTask(in: .seconds(EditorServer.headDeadlineSeconds)) { [context] in
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // NIO's decoder passes a head on once it has all of it.
        deadline?.cancel()
        requests += 1
        // Only the first read is sure to be a request head: after an upgrade come raw bytes.
        if requests == 1, case .head(let head) = unwrapInboundIn(data), head.headers.contains(name: "upgrade"),
           let problem = Self.problem(withUpgrade: head) {
            answer(problem, context: context)
            return
        }
        context.fireChannelRead(data)
    }

    /// Why an upgrade request is not a WebSocket handshake, or nil when it is one.
    static func problem(withUpgrade head: HTTPRequestHead) -> String? {
        let headers = head.headers
        guard headers["upgrade"].count == 1, headers["upgrade"][0].lowercased() == "websocket" else {
            return "the only upgrade served is to a WebSocket, at /api/socket"
        }
        guard head.method == .GET, headers["content-length"].allSatisfy({ $0 == "0" }), headers["transfer-encoding"].isEmpty else {
            return "a WebSocket handshake is a GET request with no body"
        }
        let key = headers["sec-websocket-key"]
        guard headers["sec-websocket-version"] == ["13"], key.count == 1, Data(base64Encoded: key[0])?.count == 16,
              headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "upgrade" }) else {
            return "a WebSocket handshake needs Connection: Upgrade, Sec-WebSocket-Version: 13 and a Sec-WebSocket-Key of 16 bytes"
        }
        return nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        answered = true
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard requests == 0, error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        answer("the request is not well-formed HTTP/1.1 (\(error))", context: context)
    }

    /// Answers with a 400 (from here, so NIO's HTTP/1 encoder writes it) unless something was written already.
    func answerIfSilent(context: ChannelHandlerContext) {
        guard !answered else { return }
        answer("the request could not be read as HTTP/1.1 or as a WebSocket upgrade", context: context)
    }

    private func answer(_ message: String, context: ChannelHandlerContext) {
        guard !answered else { return }
        for part in Self.badRequest(message) {
            context.write(wrapOutboundOut(part), promise: nil)
        }
        answered = true
        context.flush()
        context.close(promise: nil)
    }

    static func badRequest(_ message: String) -> [HTTPServerResponsePart] {
        let body = EditorReply.bytes(Refused(message))
        let head = HTTPResponseHead(version: .http1_1, status: .badRequest,
                                    headers: ["Content-Type": "application/json", "Content-Length": String(body.count), "Connection": "close"])
        return [.head(head), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil)]
    }
}

/// The connections waiting for a request head (opened `grace` ago, or answered and kept
/// alive) that have not shown the session's token: at most `limit` of them. When one more
/// starts to wait, the one that has waited longest is closed, so a flood of idle
/// connections churns through these places while the others stay free for connections
/// that are busy with a request or have shown the token (`EditorServer.maximumConnections`
/// counts every connection).
final class IdleConnections: Sendable {
    private struct Waiting {
        var since: UInt64
        var channel: any Channel
    }

    private struct State {
        var waiting: [ObjectIdentifier: Waiting] = [:]
        var clock: UInt64 = 0
        /// Connections opened less than `grace` ago that have sent no head yet.
        var new = 0
    }

    private let state = Mutex(State())
    let limit: Int
    /// How long a new connection may go without a request head before it counts as waiting.
    static let grace: TimeAmount = .milliseconds(100)

    init(limit: Int) { self.limit = limit }

    /// `channel` waits for a head without having shown the token; the longest waiting is closed if there are too many.
    func waiting(_ channel: any Channel) {
        let evicted: (any Channel)? = state.withLock { state in
            state.clock += 1
            state.waiting[ObjectIdentifier(channel)] = Waiting(since: state.clock, channel: channel)
            guard state.waiting.count > limit, let oldest = state.waiting.min(by: { $0.value.since < $1.value.since }) else { return nil }
            state.waiting[oldest.key] = nil
            return oldest.value.channel
        }
        evicted?.close(promise: nil)
    }

    /// `channel` is busy with a request, has shown the token, or is gone.
    func notWaiting(_ channel: any Channel) {
        _ = state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// A connection opened (`true`), or is no longer new (`false`): its grace is over, its first head came, or it closed.
    func new(_ opened: Bool) {
        state.withLock { $0.new += opened ? 1 : -1 }
    }

    /// The connections new or waiting: all but those busy with a request or that have shown the token.
    var notBusy: Int { state.withLock { $0.new + $0.waiting.count } }
}

/// Hummingbird's check before each accept: at most `EditorServer.maximumConnections`
/// connections open, and at most `EditorServer.maximumBusyConnections` of them busy with a
/// request or having shown the token (the others are new or waiting, and
/// `IdleConnections` closes those in turn).
struct ConnectionLimit: AvailableConnectionsDelegate {
    let idle: IdleConnections
    var open = 0

    mutating func connectionOpened() { open += 1 }
    mutating func connectionClosed() { open -= 1 }

    func isAcceptingNewConnections() -> Bool {
        open < EditorServer.maximumConnections && open - idle.notBusy < EditorServer.maximumBusyConnections
    }
}

/// Between NIO's HTTP decoder and the rest, for the life of an HTTP connection: tells
/// `IdleConnections` when the connection waits for a head without having shown the
/// token, and when not; and ends the connection once it has answered a request whose
/// body had not all come (a 403 or 413 on the head of a 100 MB body): the answer says
/// `Connection: close`, and the rest of the body is not read (Hummingbird read it all,
/// to keep the connection).
final class ConnectionWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart
    private let idle: IdleConnections
    private let token: String
    /// Whether a request of this connection carried the token.
    private var shownToken = false
    /// Request heads that have come.
    private var heads = 0
    private var grace: Scheduled<Void>?
    /// Whether the connection is counted as new (see `IdleConnections.new`).
    private var isNew = false
    /// Requests whose head has come and whose answer has not ended.
    private var unanswered = 0
    /// Whether the last request's end (the end of its body) has come.
    private var lastRequestEnded = true
    /// Whether the answer being written ends the connection.
    private var closing = false

    init(idle: IdleConnections, token: String) {
        self.idle = idle
        self.token = token
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // A new connection counts as waiting only after `IdleConnections.grace` without a
        // head: a client that means to send a request has sent it by then, and is never
        // closed for being slow to be read by a server busy accepting a flood.
        isNew = true
        idle.new(true)
        grace = context.eventLoop.assumeIsolated().scheduleTask(in: IdleConnections.grace) { [self, context] in
            noLongerNew()
            if heads == 0 { idle.waiting(context.channel) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        grace?.cancel()
        noLongerNew()
        idle.notWaiting(context.channel)
    }

    private func noLongerNew() {
        if isNew { idle.new(false) }
        isNew = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            heads += 1
            noLongerNew()
            unanswered += 1
            lastRequestEnded = false
            if !shownToken, Self.carriesToken(head, token) { shownToken = true }
            idle.notWaiting(context.channel)
        case .body:
            break
        case .end:
            lastRequestEnded = true
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            // The answer to the only request in flight, whose body is still coming.
            guard unanswered == 1, !lastRequestEnded else { break }
            closing = true
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        case .end:
            if closing {
                let channel = context.channel
                let written = promise ?? context.eventLoop.makePromise()
                written.futureResult.whenComplete { _ in channel.close(promise: nil) }
                context.write(data, promise: written)
                return
            }
            unanswered = max(unanswered - 1, 0)
            if unanswered == 0, !shownToken { idle.waiting(context.channel) }
        default:
            break
        }
        context.write(data, promise: promise)
    }

    /// Whether `head` carries the session's token (in the header or the query, as `EditorGuard` reads it).
    static func carriesToken(_ head: HTTPRequestHead, _ token: String) -> Bool {
        let given = head.headers["X-Mercurial-Token"].first ?? URI(head.uri).queryParameters["token"].map(String.init) ?? ""
        return EditorGuard.constantTimeEqual(given, token)
    }
}

/// Once a connection becomes a WebSocket, puts `MaskedFramesOnly` right after the frame
/// decoder, before any frame is read (NIO announces the upgrade before it replays what
/// came after the request).
final class UpgradeWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .upgradeComplete? = event as? HTTPServerUpgradeEvents {
            let pipeline = context.pipeline.syncOperations
            do {
                // They read request heads, and no more come.
                try pipeline.removeHandler(pipeline.handler(type: FirstRequestErrors.self))
                try pipeline.removeHandler(pipeline.handler(type: ConnectionWatch.self))
                let decoder = try pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                try pipeline.addHandler(MaskedFramesOnly(), position: .after(decoder))
            } catch {
                context.close(promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// A WebSocket frame from the page must be masked (RFC 6455 5.1): one that is not closes the socket.
final class MaskedFramesOnly: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard unwrapInboundIn(data).maskKey != nil else {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}
