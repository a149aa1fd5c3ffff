import Foundation
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Each connection as Hummingbird's HTTP/1 channel with its WebSocket upgrade sets it
/// up, plus two checks that channel leaves out: a first request that NIO cannot parse,
/// or whose upgrade it refuses, is answered with a 400 before the connection closes
/// (Hummingbird answers parse errors only after a first request), and an upgraded
/// connection takes only masked frames.
struct EditorChannel: ServerChildChannel {
    let inner: HTTP1WebSocketUpgradeChannel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(FirstRequestErrors(), position: .after(decoder))
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
        let body = Array(EditorJSON.string(["error": message]).utf8)
        let head = HTTPResponseHead(version: .http1_1, status: .badRequest,
                                    headers: ["Content-Type": "application/json", "Content-Length": String(body.count), "Connection": "close"])
        return [.head(head), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil)]
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
                // It reads request heads, and no more come.
                try pipeline.removeHandler(pipeline.handler(type: FirstRequestErrors.self))
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
