import NIOCore
import NIOHTTPTypes

/// Gives each request a deadline to arrive whole, head and body: from the connection's
/// start, and again from the end of each answer (so an idle keep-alive connection is
/// closed by the same clock). A client that sends a byte at a time (slowloris) or
/// never finishes its body is cut off at the deadline; NIO's idle timeout alone would
/// not (each byte restarts it). The connection is closed without an answer: an idle
/// keep-alive connection's client would take an unasked-for answer as its next one's.
final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limit: TimeAmount
    private var timer: Scheduled<Void>?

    init(limit: TimeAmount) { self.limit = limit }

    func handlerAdded(context: ChannelHandlerContext) { start(context) }
    func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head, .body: break
        case .end:
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { start(context) }
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let loop = context.eventLoop.assumeIsolated()
        timer = loop.scheduleTask(in: limit) { [context] in
            context.close(promise: nil)
        }
    }
}
