import FlyingSocks
import Foundation
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

/// The loopback listener in front of the FlyingFox server. FlyingFox's parser takes
/// time that grows with the square of a line's length (a 100 KB request line costs
/// it 13 s of a core), so every connection is first read here: one request head of at
/// most `maximumHead` bytes within `headTimeout` seconds, a declared body of at most
/// `EditorServer.maximumBody` bytes and no chunked body. A request that passes is
/// handed, with `Connection: close`, to the FlyingFox server on an abstract Unix
/// socket, and its answer (a page, a PNG or an endless event stream) copied back.
/// One request per connection, so nothing unchecked ever follows a checked head; a
/// WebSocket upgrade (the page's `/api/socket`) stays open, and every frame the
/// client sends on it is checked as it passes (see `WebSocketFrameCheck`).
final class RequestGuard: @unchecked Sendable {
    static let maximumHead = 16 * 1024
    static let headTimeout = 10
    static let maximumConnections = 128

    private let listener: Int32
    private let backend: String
    private let lock = NSLock()
    private var connections = 0
    let port: UInt16

    /// Binds 127.0.0.1:`port` (0: a free one); requests go on to the abstract Unix socket `backend`.
    init(port: UInt16, backend: String) throws(MercurialError) {
        self.backend = backend
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MercurialError("cannot make a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw MercurialError("cannot listen on 127.0.0.1:\(port) (\(reason)); choose another --port, or --port 0 for a free one")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        self.port = UInt16(bigEndian: actual.sin_port)
    }

    /// Accepts connections on a thread of its own, each handled on a thread of its own.
    func start() {
        let thread = Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE {
                        if errno != EINTR { usleep(10_000) }
                        continue
                    }
                    return
                }
                let admitted = lock.withLock { () -> Bool in
                    guard connections < Self.maximumConnections else { return false }
                    connections += 1
                    return true
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                guard admitted else {
                    Self.answer(client, 503, "Service Unavailable", "too many connections")
                    close(client)
                    continue
                }
                let worker = Thread { [self] in
                    handle(client)
                    close(client)
                    lock.withLock { connections -= 1 }
                }
                worker.stackSize = 256 * 1024
                worker.start()
            }
        }
        thread.start()
    }

    /// Stops accepting (connections in progress run to their end).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { close(listener) }

    // MARK: One connection

    private func handle(_ client: Int32) {
        var timeout = timeval(tv_sec: Self.headTimeout, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The head, to its blank line.
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var headEnd: Int?
        while headEnd == nil {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return }   // closed, or no head within the time-out
            let searchFrom = max(0, bytes.count - 3)
            bytes += buffer[0..<n]
            headEnd = Self.find([13, 10, 13, 10], in: bytes, from: searchFrom)
            if headEnd == nil && bytes.count > Self.maximumHead {
                return Self.answer(client, 431, "Request Header Fields Too Large",
                                   "the request head is over \(Self.maximumHead / 1024) KB")
            }
        }
        guard let end = headEnd, end <= Self.maximumHead else {
            return Self.answer(client, 431, "Request Header Fields Too Large", "the request head is over \(Self.maximumHead / 1024) KB")
        }
        let head = Array(bytes[..<end])
        var body = Array(bytes[(end + 4)...])
        // Its framing: a request line, header lines, at most one Content-Length, no chunked body.
        var lines = Self.split(head)
        let requestLine = lines[0].split(separator: 32, omittingEmptySubsequences: false)
        // Printable ASCII only (the page and its requests never need more; FlyingFox drops
        // a connection whose head is not UTF-8 without an answer).
        guard head.allSatisfy({ ($0 >= 32 && $0 < 127) || $0 == 9 || $0 == 13 || $0 == 10 }) else {
            return Self.answer(client, 400, "Bad Request", "the request head may hold only printable ASCII")
        }
        guard requestLine.count == 3, requestLine[0].allSatisfy({ $0 >= 65 && $0 <= 90 }),
              requestLine[1].first == 47, requestLine[2].elementsEqual("HTTP/1.1".utf8) || requestLine[2].elementsEqual("HTTP/1.0".utf8),
              lines.dropFirst().allSatisfy({ $0.contains(58) && $0.first != 32 && $0.first != 9 }) else {
            return Self.answer(client, 400, "Bad Request", "a request is METHOD /PATH HTTP/1.1 and header lines NAME: VALUE")
        }
        guard requestLine[1].count <= 4096 else {
            return Self.answer(client, 414, "URI Too Long", "the request's path is over 4 KB")
        }
        var contentLength = 0
        var lengths = 0
        var upgrade = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: 58) else { continue }
            let name = String(decoding: line[..<colon], as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if name == "transfer-encoding" {
                return Self.answer(client, 411, "Length Required", "send the body with a Content-Length, not chunked")
            }
            if name == "upgrade" {
                guard value.lowercased() == "websocket" else {
                    return Self.answer(client, 400, "Bad Request", "the only upgrade is to a WebSocket")
                }
                upgrade = true
            }
            if name == "content-length" {
                lengths += 1
                guard let n = Int(value), n >= 0, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                    return Self.answer(client, 400, "Bad Request", "the Content-Length is not a number")
                }
                contentLength = n
            }
        }
        guard lengths <= 1 else { return Self.answer(client, 400, "Bad Request", "more than one Content-Length") }
        guard contentLength <= EditorServer.maximumBody else {
            return Self.answer(client, 413, "Content Too Large",
                               "the body is \(contentLength) bytes, over the limit of \(EditorServer.maximumBody)")
        }
        guard !upgrade || contentLength == 0 else {
            return Self.answer(client, 400, "Bad Request", "a WebSocket upgrade has no body")
        }
        // Bytes after an upgrade's head are the client's first WebSocket frames.
        var early: [UInt8] = []
        if upgrade { early = body; body = [] }
        if body.count > contentLength { body.removeLast(body.count - contentLength) }
        // One request per connection: the server closes after answering (an upgrade keeps
        // its own `Connection: Upgrade`).
        if !upgrade {
            lines.removeAll { line in
                String(decoding: line.prefix(11), as: UTF8.self).lowercased() == "connection:"
            }
        }
        var forwarded = lines.map { $0 + [13, 10] }.reduce([], +)
        forwarded += Array((upgrade ? "\r\n" : "Connection: close\r\n\r\n").utf8) + body
        guard let upstream = connectBackend() else {
            return Self.answer(client, 503, "Service Unavailable", "the editor is not ready")
        }
        defer {
            if upgrade {
                // However a WebSocket ends, FlyingFox is let end its side itself: it reads
                // the end of the stream, and what it was writing is read and dropped. Closed
                // under a pending write, FlyingFox 0.27.1's epoll pool kept the closed
                // socket's registration, and a later connection given the same descriptor
                // was never read (about 1 in 200 sockets closed that way).
                shutdown(client, Int32(SHUT_RDWR))
                Self.drain(upstream)
            }
            close(upstream)
        }
        guard Self.sendAll(upstream, forwarded) else { return }
        var remaining = contentLength - body.count
        var frames = upgrade ? WebSocketFrameCheck(maximumMessage: EditorServer.maximumBody) : nil
        if var check = frames, !early.isEmpty {
            guard check.passes(early[...]), Self.sendAll(upstream, early) else { return }
            frames = check
        }
        // The rest of the body to the server, its answer to the client (a frame's 8 MB
        // of pixels go through in 1 MB pieces, sent from where they were read).
        buffer = [UInt8](repeating: 0, count: 1 << 20)
        var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        while true {
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { return }
            if fds[1].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, $0.count, 0) }
                guard n > 0 else {
                    shutdown(client, Int32(SHUT_WR))
                    return
                }
                guard buffer.withUnsafeBytes({ Self.sendAll(client, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) else { return }
            }
            if fds[0].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                if n == 0 {
                    // The client has sent all it will: go on relaying the answer (a
                    // WebSocket's client has left).
                    guard remaining == 0, frames == nil else { return }
                    fds[0].fd = -1
                    continue
                }
                guard n > 0 else { return }
                if var check = frames {
                    // A WebSocket: each frame's header is checked before its bytes go on.
                    guard buffer.withUnsafeBytes({ bytes in
                        check.passes(bytes[0..<n]) && Self.sendAll(upstream, UnsafeRawBufferPointer(rebasing: bytes[0..<n]))
                    }) else { return }
                    frames = check
                } else if remaining > 0 {
                    let take = min(remaining, n)
                    guard buffer.withUnsafeBytes({ Self.sendAll(upstream, UnsafeRawBufferPointer(rebasing: $0[0..<take])) }) else { return }
                    remaining -= take
                }
                // Bytes past the declared body (a second request) are dropped.
            }
        }
    }

    private func connectBackend() -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        // The abstract socket's address exactly as FlyingFox bound it (no file).
        let address = sockaddr_un.unix(abstractNamespace: backend)
        let connected = address.withSockAddr { connect(fd, $0, $1) }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    // MARK: Helpers

    /// Ends the writing half of `fd` and reads it to its end (or for at most 5 s).
    static func drain(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_WR))
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 || (n < 0 && errno == EINTR) { continue }
            return
        }
    }

    static func answer(_ fd: Int32, _ code: Int, _ phrase: String, _ message: String) {
        let body = EditorJSON.string(["error": message])
        let text = "HTTP/1.1 \(code) \(phrase)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = sendAll(fd, Array(text.utf8))
    }

    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { sendAll(fd, $0) }
    }

    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return false }
        }
        return true
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        return bytes.withUnsafeBufferPointer { b in
            (start...(b.count - needle.count)).first { i in (0..<needle.count).allSatisfy { b[i + $0] == needle[$0] } }
        }
    }

    /// The head's lines, without their CR LF.
    static func split(_ head: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        while i < head.count {
            if head[i] == 13 && i + 1 < head.count && head[i + 1] == 10 {
                lines.append(current)
                current = []
                i += 2
            } else {
                current.append(head[i])
                i += 1
            }
        }
        lines.append(current)
        return lines
    }
}

/// Checks a WebSocket client's frames as their bytes pass, so that the server behind
/// never reads a frame it would trust too far: FlyingFox reads a frame's payload
/// whole, at whatever length its header declares. A frame must be masked (RFC 6455
/// §5.1), use no reserved bit or opcode, a control frame must be whole and at most
/// 125 bytes, continuations must follow a started message, and a message (all its
/// frames) may hold at most `maximumMessage` bytes. Written here because the guard
/// must decide before a byte reaches the server; it reads headers only.
struct WebSocketFrameCheck {
    let maximumMessage: Int
    /// The current frame's header so far (2 to 14 bytes).
    private var header: [UInt8] = []
    /// Payload bytes of the current frame still to pass.
    private var payloadLeft = 0
    private var inMessage = false
    private var messageBytes = 0

    init(maximumMessage: Int) { self.maximumMessage = maximumMessage }

    /// Whether `bytes`, the next the client sent, keep to the rules.
    mutating func passes(_ bytes: some Collection<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if payloadLeft > 0 {
                let step = min(payloadLeft, bytes.distance(from: index, to: bytes.endIndex))
                payloadLeft -= step
                index = bytes.index(index, offsetBy: step)
                continue
            }
            header.append(bytes[index])
            index = bytes.index(after: index)
            guard header.count >= 2 else { continue }
            // No extension is agreed, so no reserved bit; a client's frame is masked.
            guard header[0] & 0x70 == 0, header[1] & 0x80 != 0 else { return false }
            let short = Int(header[1] & 0x7F)
            let needed = 2 + (short == 126 ? 2 : short == 127 ? 8 : 0) + 4
            guard header.count == needed else { continue }
            guard let length = frameAccepted(short: short) else { return false }
            header.removeAll(keepingCapacity: true)
            payloadLeft = length
        }
        return true
    }

    /// The payload length of the complete header in `header`, or nil when the frame breaks a rule.
    private mutating func frameAccepted(short: Int) -> Int? {
        let fin = header[0] & 0x80 != 0, opcode = header[0] & 0x0F
        var length = short
        if short == 126 {
            length = Int(header[2]) << 8 | Int(header[3])
        } else if short == 127 {
            guard header[2] == 0, header[3] == 0, header[4] == 0 else { return nil }   // over 2^40: refused anyway
            length = header[5...9].reduce(0) { $0 << 8 | Int($1) }
        }
        switch opcode {
        case 0x8, 0x9, 0xA:   // close, ping, pong
            guard fin, length <= 125 else { return nil }
        case 0x1, 0x2, 0x0:   // text, binary, continuation
            guard (opcode == 0) == inMessage else { return nil }
            messageBytes = (opcode == 0 ? messageBytes : 0) + length
            guard messageBytes <= maximumMessage else { return nil }
            inMessage = !fin
        default:
            return nil
        }
        return length
    }
}
