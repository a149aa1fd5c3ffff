import Foundation
import Testing
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

/// Support for end-to-end tests that run the built `mercurial` binary as a subprocess.
///
/// Everything lives in the `CLI` namespace so it cannot clash with the helpers of
/// the other test files in this module.
package enum CLI {
    /// What a finished `mercurial` run left behind.
    package struct Result: Sendable, CustomStringConvertible {
        package enum Termination: Sendable, Equatable { case exit, uncaughtSignal }

        package var status: Int32
        package var termination: Termination
        package var stdout: String
        package var stderr: String
        /// Wall-clock time from launch to exit.
        package var elapsed: Duration
        package var timedOut: Bool

        /// The non-empty lines of stderr.
        package var stderrLines: [String] {
            stderr.split(separator: "\n", omittingEmptySubsequences: true)
                .map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }

        package var description: String {
            let how = termination == .exit ? "exit \(status)" : "signal \(status)"
            return "[\(how)\(timedOut ? ", TIMED OUT" : "") in \(elapsed)] stdout: \(stdout.debugDescription) stderr: \(stderr.debugDescription)"
        }
    }

    package struct SetupError: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    // MARK: - Finding the binary and the fixtures

    /// The folder the test bundle was built into (`<scratch>/<triple>/debug`), which
    /// also holds the `mercurial` executable the test target depends on.
    package static func productsDirectory() -> URL {
        // On Linux the test bundle is an executable, `…/debug/<Package>PackageTests.xctest`;
        // `Bundle.main` is the folder that holds it.
        let main = Bundle.main.bundleURL
        if main.pathExtension == "xctest" { return main.deletingLastPathComponent() }
        if FileManager.default.fileExists(atPath: main.appendingPathComponent("mercurial").path) { return main }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: exe).deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// The `mercurial` binary: `$MERCURIAL_BINARY` if set, else the one beside the tests.
    package static func binary() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["MERCURIAL_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var candidates = [productsDirectory()]
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for folder in candidates {
            let url = folder.appendingPathComponent("mercurial")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw SetupError(description: """
            the mercurial binary was not found in \(candidates.map(\.path)) \
            (Bundle.main: \(Bundle.main.bundlePath), argv[0]: \(CommandLine.arguments[0])); \
            build it with `swift build --scratch-path .build-e2e` (or run the tests with `swift test`, \
            which builds it), or set MERCURIAL_BINARY to its path
            """)
    }

    /// The test fixtures folder: the bundled resources, or the source tree as a fallback.
    package static let fixturesDirectory: URL = {
        if let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil),
           FileManager.default.fileExists(atPath: url.appendingPathComponent("rgb8.png").path) {
            return url
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }()

    package static func fixturePath(_ name: String) -> String {
        fixturesDirectory.appendingPathComponent(name).path
    }

    /// The package's root folder (holds `fonts/` and `materials/`).
    package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    // MARK: - Running

    /// At most this many `mercurial` processes run at once, so that tests running in
    /// parallel do not starve each other (each run is timed from its own launch).
    private static let slots = ProcessSlots(ProcessInfo.processInfo.activeProcessorCount * 2)

    /// Runs `mercurial` with `arguments` in `directory`, stdin at end of file (or fed `input`
    /// and closed), and kills it after `timeout`, recording a test failure if it had to.
    package static func run(_ arguments: [String], in directory: URL, input: String? = nil,
                    environment: [String: String?] = [:], timeout: Duration = .seconds(20),
                    executable: URL? = nil,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> Result {
        await slots.acquire()
        do {
            let result = try await runNow(arguments, in: directory, input: input, environment: environment,
                                          timeout: timeout, executable: executable, sourceLocation: sourceLocation)
            await slots.release()
            return result
        } catch {
            await slots.release()
            throw error
        }
    }

    private static func runNow(_ arguments: [String], in directory: URL, input: String?,
                               environment: [String: String?], timeout: Duration, executable: URL?,
                               sourceLocation: SourceLocation) async throws -> Result {
        let process = Process()
        process.executableURL = try executable ?? binary()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        // No progress lines among the diagnostics a test reads, unless it asks for them.
        env["MERCURIAL_PROGRESS"] = "none"
        for (key, value) in environment { env[key] = value }
        process.environment = env

        let stdoutPipe = Pipe(), stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        let stdinPipe: Pipe?
        if input != nil {
            stdinPipe = Pipe()
            process.standardInput = stdinPipe
        } else {
            stdinPipe = nil
            process.standardInput = FileHandle.nullDevice
        }

        let done = DispatchGroup()
        done.enter()
        process.terminationHandler = { _ in done.leave() }
        let output = OutputCollector()
        let readers = DispatchGroup()
        for (pipe, isStdout) in [(stdoutPipe, true), (stderrPipe, false)] {
            let handle = pipe.fileHandleForReading
            DispatchQueue.global().async(group: readers) {
                output.store(handle.readDataToEndOfFile(), stdout: isStdout)
            }
        }

        let start = ContinuousClock.now
        try process.run()
        // Our copies of the child's ends, so that EOF arrives when it exits.
        try? stdoutPipe.fileHandleForWriting.close()
        try? stderrPipe.fileHandleForWriting.close()
        if let stdinPipe, let input {
            try? stdinPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? stdinPipe.fileHandleForWriting.close()
        }

        let pid = process.processIdentifier
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        // The end is taken on the Dispatch thread that sees the exit: when other tests
        // hold the cooperative pool's threads, this task resumes late (the whole suite
        // once stood still for 37 s), and that wait is not the command's.
        let (finishedInTime, end): (Bool, ContinuousClock.Instant) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let finished = done.wait(timeout: .now() + seconds) == .success
                continuation.resume(returning: (finished, ContinuousClock.now))
            }
        }
        if !finishedInTime {
            kill(pid, SIGKILL)
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { done.wait(); continuation.resume() }
            }
        }
        let elapsed = end - start
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { readers.wait(); continuation.resume() }
        }

        let result = Result(
            status: process.terminationStatus,
            termination: process.terminationReason == .exit ? .exit : .uncaughtSignal,
            stdout: output.text(stdout: true), stderr: output.text(stdout: false),
            elapsed: elapsed, timedOut: !finishedInTime)
        if !finishedInTime {
            Issue.record("mercurial \(arguments) did not finish within \(timeout) and was killed: \(result)",
                         sourceLocation: sourceLocation)
        }
        return result
    }

    /// Runs a `/bin/sh` script in `directory` with `$M` set to the `mercurial` binary,
    /// for redirections the test process cannot set up itself (`2>&-`, `>/dev/full`).
    package static func shell(_ script: String, in directory: URL, timeout: Duration = .seconds(20),
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> Result {
        try await run(["-c", script], in: directory, environment: ["M": try binary().path], timeout: timeout,
                      executable: URL(fileURLWithPath: "/bin/sh"), sourceLocation: sourceLocation)
    }

    /// A counting semaphore for async code.
    actor ProcessSlots {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(_ count: Int) { free = max(count, 1) }

        func acquire() async {
            if free > 0 { free -= 1; return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func release() {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
    }

    private final class OutputCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data(), err = Data()

        func store(_ data: Data, stdout: Bool) {
            lock.withLock { if stdout { out = data } else { err = data } }
        }

        func text(stdout: Bool) -> String {
            lock.withLock { String(decoding: stdout ? out : err, as: UTF8.self) }
        }
    }

    // MARK: - Temporary folders and PNGs

    /// Runs `body` with a fresh, empty temporary folder, removed afterwards (even if
    /// `body` made parts of it read-only).
    package static func withTemporaryDirectory<R>(_ body: (URL) async throws -> R) async throws -> R {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("mercurial-cli-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        // Resolve symlinks (e.g. /tmp → /private/tmp) so paths compare as the binary prints them.
        let resolved = url.resolvingSymlinksInPath()
        defer { removeTree(resolved) }
        return try await body(resolved)
    }

    /// `mercurial params --json` (run in a fresh folder), checked to succeed in silence, parsed.
    package static func paramsJSON() async throws -> [String: Any] {
        try await withTemporaryDirectory { dir in
            let r = try await run(["params", "--json"], in: dir)
            #expect(r.termination == .exit && r.status == 0 && r.stderr.isEmpty, "\(r)")
            return try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
    }

    /// Makes everything under `url` writable again, then deletes it.
    package static func removeTree(_ url: URL) {
        if let walker = FileManager.default.enumerator(atPath: url.path) {
            chmod(url.path, 0o755)
            while let relative = walker.nextObject() as? String {
                chmod(url.appendingPathComponent(relative).path, 0o755)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    /// Reads a PNG the binary wrote, through the package's own decoder.
    package static func readPNG(_ url: URL) throws -> Image<RGBA8> {
        try PNGFile.read(url.path, role: "test output")
    }

    /// A `side`² mask of white blocks on black (bands of 256 rows, two columns of 300
    /// in every three inked): ink enough to be rendered in bands, with many edges.
    package static func stripedMask(side: Int) -> Image<RGBA8> {
        var image = Image<RGBA8>(width: side, height: side, repeating: RGBA8(r: 0, g: 0, b: 0, a: 255))
        image.withUnsafeMutableBufferPointer { p in
            for y in 0..<side where (y / 256) % 2 == 0 {
                for x in 0..<side where (x / 300) % 3 != 0 { p[y * side + x] = RGBA8(r: 255, g: 255, b: 255, a: 255) }
            }
        }
        return image
    }

    /// Files in `directory` whose names say they are temporary outputs.
    package static func temporaryFiles(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.contains(".tmp") }
    }

    package static var isRoot: Bool { getuid() == 0 }
}

extension CLI.Result {
    /// The "peak memory N MB" of `animate`'s summary line; records an issue and gives 0 when it has none.
    package func peakMemoryMB(sourceLocation: SourceLocation = #_sourceLocation) -> Double {
        let words = stdout.split(separator: " ")
        guard let i = words.firstIndex(of: "memory"), i + 1 < words.count, let mb = Double(words[i + 1]) else {
            Issue.record("no peak memory in \(stdout)", sourceLocation: sourceLocation)
            return 0
        }
        return mb
    }
}

extension Process {
    /// Sends `signalNumber` and waits, until `deadline` at most, for the process to end;
    /// gives how long it took (nil: it was still running at the deadline).
    package func stop(with signalNumber: Int32, deadline wait: Duration = .seconds(10)) async throws -> Duration? {
        let sent = ContinuousClock.now
        kill(processIdentifier, signalNumber)
        let deadline = sent + wait
        while isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return isRunning ? nil : ContinuousClock.now - sent
    }
}

/// `ffprobe`'s view of a video's first stream: key=value lines.
package func probe(_ path: String) throws -> [String: String] {
    let data = try standardOutput(of: "/usr/bin/ffprobe", [
        "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
        "stream=codec_name,pix_fmt,nb_read_frames,width,height,profile,r_frame_rate,color_range,color_space,color_transfer,color_primaries:stream_tags=alpha_mode:format=duration",
        "-of", "default=noprint_wrappers=1", path])
    var fields: [String: String] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2 { fields[parts[0]] = parts[1] }
    }
    return fields
}

/// The timecode tags of a video's streams (a .mov's tmcd track, and its video stream's), as ffprobe reads them.
package func timecodes(_ path: String) throws -> [String] {
    let data = try standardOutput(of: "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream_tags=timecode",
                                                           "-of", "default=noprint_wrappers=1:nokey=1", path])
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

/// A video's first frame decoded by `ffmpeg` to 8-bit RGBA through `filter` (e.g. a scale
/// filter naming the matrix to decode with); `decoder` goes before `-i` (e.g. `-c:v libvpx-vp9`
/// for VP9's alpha).
package func decodedFirstFrame(_ path: String, decoder: [String] = [], filter: String) throws -> [UInt8] {
    [UInt8](try standardOutput(of: "/usr/bin/ffmpeg", ["-v", "error", "-nostdin"] + decoder
        + ["-i", path, "-frames:v", "1", "-vf", filter + ",format=rgba", "-f", "rawvideo", "-"]))
}

/// What `executable` (ffprobe, ffmpeg on a small file) writes to standard output; its errors are dropped.
func standardOutput(of executable: String, _ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}
