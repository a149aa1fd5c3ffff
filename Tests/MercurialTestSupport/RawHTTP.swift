import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 over a raw loopback socket, for the servers' tests: bytes exactly as
/// written (hostile ones included), one answer read to its Content-Length or the close.
package enum RawHTTP {
    package struct Response: Sendable {
        /// nil when the server closed the connection without answering.
        package var status: Int?
        package var headers: String
        package var body: [UInt8]
        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A connected socket with send and receive time-outs of `timeout` seconds.
    package static func connect(port: UInt16, timeout: Int = 5) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CLI.SetupError(description: "socket: \(errno)") }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw CLI.SetupError(description: "connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return fd
    }

    package static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// Sends `bytes` and reads one response (to its Content-Length, or to the close).
    package static func exchange(port: UInt16, _ bytes: [UInt8], timeout: Int = 5) throws -> Response {
        let fd = try connect(port: port, timeout: timeout)
        defer { close(fd) }
        sendAll(fd, bytes)
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            // A signal (the test process's children ending) cuts a timed receive short: not an answer.
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            data += buffer[0..<n]
            if let parsed = parse(data), let length = contentLength(parsed.headers), parsed.body.count >= length { break }
        }
        return parse(data) ?? Response(status: nil, headers: "", body: [])
    }

    package static func parse(_ data: [UInt8]) -> Response? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard data.count >= 12, let end = (0...(data.count - 4)).first(where: { Array(data[$0..<$0 + 4]) == separator }) else { return nil }
        let head = String(decoding: data[..<end], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        let status = parts.count > 1 ? Int(parts[1]) : nil
        return Response(status: status, headers: head, body: Array(data[(end + 4)...]))
    }

    package static func contentLength(_ headers: String) -> Int? {
        for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// A request with the right Host, token and Origin unless told otherwise.
    package static func request(_ method: String, _ path: String, port: UInt16, token: String?, body: String? = nil,
                        host: String? = nil, origin: String?? = .none, extra: [String] = []) -> [UInt8] {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
        if let token { lines.append("X-Mercurial-Token: \(token)") }
        switch origin {
        case .none: if method == "POST" { lines.append("Origin: http://127.0.0.1:\(port)") }
        case .some(.some(let o)): lines.append("Origin: \(o)")
        case .some(.none): break
        }
        if let body {
            lines.append("Content-Type: application/json")
            lines.append("Content-Length: \(body.utf8.count)")
        }
        lines += extra
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? "")).utf8)
    }
}


extension CLI {
    /// The first line `process` writes to `pipe` (a server's URL line), read byte by byte
    /// so nothing after it is taken; nil if the process ends or `limit` passes first.
    package static func firstLine(of pipe: Pipe, from process: Process, within limit: Duration) -> String? {
        let fd = pipe.fileHandleForReading.fileDescriptor
        var line: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while !line.contains(10) {
            guard ContinuousClock.now < deadline, process.isRunning else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { continue }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }
}
