import Foundation
import MercurialTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `mercurial serve --port 0` process: its port from the URL line it prints first.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    let folder: URL
    private(set) var port: UInt16 = 0
    private let stdout = Pipe()
    private let stderr = Pipe()

    init(_ arguments: [String] = [], folder given: URL? = nil) throws {
        folder = given ?? FileManager.default.temporaryDirectory.appendingPathComponent("serve-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        process.executableURL = try CLI.binary()
        process.arguments = ["serve", "--port", "0"] + arguments
        process.currentDirectoryURL = folder
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard let text = CLI.firstLine(of: stdout, from: process, within: .seconds(30)) else {
            stop()
            throw CLI.SetupError(description: "mercurial serve printed no URL line within 30 s")
        }
        guard text.hasPrefix("mercurial serve: http://127.0.0.1:"),
              let url = text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines),
              let port = URLComponents(string: url)?.port else {
            stop()
            throw CLI.SetupError(description: "cannot read the URL line \(text.debugDescription)")
        }
        self.port = UInt16(port)
    }

    /// A GET of `target` (the path and query as sent).
    func request(_ target: String, headers: [String] = [], timeout: Int = 20) throws -> RawHTTP.Response {
        try request("GET", target, headers: headers, timeout: timeout)
    }

    /// One request: `target` is the path and query as sent.
    func request(_ method: String, _ target: String, body: [UInt8]? = nil, headers: [String] = [],
                 timeout: Int = 20) throws -> RawHTTP.Response {
        var lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"] + headers
        if let body { lines.append("Content-Length: \(body.count)") }
        let bytes = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + (body ?? [])
        return try RawHTTP.exchange(port: port, bytes, timeout: timeout)
    }

    /// SIGTERM, then SIGKILL after `grace` seconds; returns the exit status (nil if killed).
    @discardableResult
    func stop(signal: Int32 = SIGTERM, grace: Double = 10) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        let deadline = Date(timeIntervalSinceNow: grace)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    /// What the server wrote to standard error (after it stopped).
    var errorOutput: String { String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self) }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

extension RawHTTP.Response {
    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        for line in headers.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The `error` of a JSON error body, or nil when the body is not one.
    var errorMessage: String? {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["error"] as? String
    }
}
