import Foundation
import Testing
@testable import MercurialKit
#if canImport(Glibc)
import Glibc
import MercurialTestSupport
#endif

/// Hostile input that must succeed (issue 10): odd paths, devices, links, streams,
/// closed or full standard streams, signals. The failures are rows of `CLIErrorCase`.
/// Nested in the serialized `CLIErrorTests`, so that its runs never overlap theirs
/// (which are timed) on a small machine.
extension CLIErrorTests { @Suite struct HostileOutputTests {
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    func isPNG(_ url: URL) -> Bool {
        (try? CLI.readPNG(url)) != nil
    }

    func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    func expectSuccess(_ r: CLI.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.termination == .exit && r.status == 0, "\(r)", sourceLocation: sourceLocation)
    }

    // MARK: - Class 1: paths of any length

    @Test(arguments: [["render", "Hi", "-o", "a"], ["render", "Hi", "-o", "é"], ["shading", "--size", "8", "-o", "a"],
                      ["render", "Hi", "-o", "./b"], ["render", "Hi", "-o", "sub//c"], ["render", "Hi", "-o", "sub/./d"]])
    func oneCharacterAndOddlySpelledOutputs(_ arguments: [String]) async throws {
        try await CLI.withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: false)
            let r = try await CLI.run(arguments, in: dir)
            expectSuccess(r)
            #expect(isPNG(dir.appendingPathComponent(arguments.last!)))
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }

    @Test func sceneFilesWithOneCharacterNamesResolveTheirPaths() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let sub = dir.appendingPathComponent("s")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: false)
            try Data(contentsOf: URL(fileURLWithPath: CLI.fixturePath("gray8.png"))).write(to: sub.appendingPathComponent("m"))
            try Data(#"{"mask": "m"}"#.utf8).write(to: sub.appendingPathComponent("t"))
            try Data(#"{"mask": "s/m"}"#.utf8).write(to: dir.appendingPathComponent("t"))
            // A scene in the current folder, and one in a one-letter folder, each naming a one-letter mask.
            expectSuccess(try await CLI.run(["render", "--params", "t", "-o", "x"], in: dir))
            expectSuccess(try await CLI.run(["render", "--params", "s/t", "-o", "y"], in: dir))
            #expect(try same(CLI.readPNG(dir.appendingPathComponent("x")).pixels, CLI.readPNG(dir.appendingPathComponent("y")).pixels))
        }
    }

    @Test func legalLongNamesWork() async throws {
        try await CLI.withTemporaryDirectory { dir in
            for length in [240, 251, 255] {
                let name = String(repeating: "é", count: (length - 4) / 2) + String(repeating: "x", count: (length - 4) % 2) + ".png"
                #expect(name.utf8.count == length)
                let r = try await CLI.run(["render", "Hi", "-o", name, "--quiet"], in: dir)
                expectSuccess(r)
                #expect(isPNG(dir.appendingPathComponent(name)), "\(length)-byte name: \(r)")
            }
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }

    // MARK: - Class 3: devices, FIFOs, standard output, symbolic links

    @Test func devicesAreWrittenNotReplaced() async throws {
        try await CLI.withTemporaryDirectory { dir in
            expectSuccess(try await CLI.run(["render", "Hi", "-o", "/dev/null"], in: dir))
            #expect(kind("/dev/null") == S_IFCHR, "/dev/null is still a device")
            let full = try await CLI.run(["render", "Hi", "-o", "/dev/full"], in: dir)
            #expect(full.termination == .exit && full.status == MercurialError.Kind.resource.exitStatus, "\(full)")
            #expect(kind("/dev/full") == S_IFCHR)
        }
    }

    @Test(arguments: ["-", "/dev/stdout"])
    func standardOutputGetsThePNGAndNothingElse(_ output: String) async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.run(["render", "Hi", "-o", output], in: dir)
            expectSuccess(r)
            let bytes = Array(r.stdout.utf8)
            // (stdout is decoded as UTF-8 by the harness; the signature's first byte is not UTF-8.)
            #expect(bytes.count > 100 && Array(bytes.dropFirst(3).prefix(3)) == [0x50, 0x4E, 0x47], "stdout is a PNG")
            #expect(r.stderrLines == ["\(output) 160×144"], "the summary goes to stderr: \(r)")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).isEmpty, "no file written")
        }
    }

    @Test func standardOutputStreamIsAValidPNG() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.shell(#""$M" render Hi -o - > piped.png && "$M" render Hi -o file.png --quiet"#, in: dir)
            expectSuccess(r)
            #expect(try Data(contentsOf: dir.appendingPathComponent("piped.png")) == Data(contentsOf: dir.appendingPathComponent("file.png")))
        }
    }

    @Test func devStdoutRedirectedToAFileKeepsItsAppendMode() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.shell(#"echo head > log && "$M" render Hi -o /dev/stdout >> log && "$M" render Hi -o want.png --quiet"#, in: dir)
            expectSuccess(r)
            let log = try Data(contentsOf: dir.appendingPathComponent("log"))
            #expect(log == Data("head\n".utf8) + (try Data(contentsOf: dir.appendingPathComponent("want.png"))))
        }
    }

    @Test func aFIFOWithAReaderIsWrittenInPlace() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let r = try await CLI.shell(#"mkfifo p && { cat p > got.png & } && "$M" render Hi -o p --quiet && wait && "$M" render Hi -o want.png --quiet"#, in: dir)
            expectSuccess(r)
            #expect(kind(dir.appendingPathComponent("p").path) == S_IFIFO, "the FIFO is still a FIFO")
            #expect(try Data(contentsOf: dir.appendingPathComponent("got.png")) == Data(contentsOf: dir.appendingPathComponent("want.png")))
        }
    }

    @Test func symbolicLinksAreFollowedAndKept() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let fm = FileManager.default
            try fm.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: false)
            try Data("old".utf8).write(to: dir.appendingPathComponent("real.png"))
            #expect(symlink("real.png", dir.appendingPathComponent("live.png").path) == 0)
            #expect(symlink("made.png", dir.appendingPathComponent("dangling.png").path) == 0)
            #expect(symlink("../real2.png", dir.appendingPathComponent("sub/up.png").path) == 0)
            #expect(symlink("live.png", dir.appendingPathComponent("chain.png").path) == 0)
            for link in ["live.png", "dangling.png", "sub/up.png", "chain.png"] {
                expectSuccess(try await CLI.run(["render", "Hi", "-o", link, "--quiet"], in: dir))
                #expect(kind(dir.appendingPathComponent(link).path) == S_IFLNK, "\(link) is still a link")
            }
            for target in ["real.png", "made.png", "real2.png"] {
                #expect(kind(dir.appendingPathComponent(target).path) == S_IFREG)
                #expect(isPNG(dir.appendingPathComponent(target)), "\(target) was written")
            }
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }

    // MARK: - Class 10: standard streams that fail

    @Test func closedFullOrBrokenStandardStreamsNeverCrash() async throws {
        try await CLI.withTemporaryDirectory { dir in
            // No stderr at all: the error is lost, the status is not.
            let closed = try await CLI.shell(#""$M" render "" 2>&-"#, in: dir)
            #expect(closed.termination == .exit && closed.status == 1, "\(closed)")

            // A warning into a full stderr: the render still writes its PNG.
            let full = try await CLI.shell(#""$M" render 'Hi ✈' --no-fallback -o a.png 2>/dev/full"#, in: dir)
            expectSuccess(full)
            #expect(isPNG(dir.appendingPathComponent("a.png")))

            // The summary into a full or closed stdout; with stdout closed, no file opened
            // later may take its place and receive the summary.
            expectSuccess(try await CLI.shell(#""$M" render Hi -o b.png >/dev/full"#, in: dir))
            #expect(isPNG(dir.appendingPathComponent("b.png")))
            expectSuccess(try await CLI.shell(#""$M" render 'Hi ✈' --no-fallback -o c.png >&- 2>&-"#, in: dir))
            #expect(isPNG(dir.appendingPathComponent("c.png")))

            // A reader that has gone: an error, not SIGPIPE.
            let broken = try await CLI.shell(#"("$M" render Hi -o -; echo "status $?" >&2) | true"#, in: dir)
            #expect(broken.stderrLines.last == "status \(MercurialError.Kind.resource.exitStatus)" || broken.stderrLines.last == "status 0", "\(broken)")
            #expect(!broken.stderr.contains("status 141"), "killed by SIGPIPE: \(broken)")
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }

    // MARK: - Issue 19, class 14: a file-size limit

    /// Over `ulimit -f`, the write fails with EFBIG: one error line naming the limit and no
    /// file, where SIGXFSZ used to kill the process without a word (ffmpeg too, or it
    /// exited 0 having written part of the file).
    /// With a recipe, the video's metadata file (in TMPDIR) meets the limit first.
    @Test(arguments: ["render Hi -o out.png", "animate s.json -o out.png", "animate s.json -o out.webm",
                      "animate s.json -o out.webm --no-metadata", "animate s.json -o out.mp4 --no-metadata",
                      "animate s.json -o out.mov --no-metadata"])
    func aFileSizeLimitIsOneErrorAndNoFile(_ command: String) async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(AnimateCommandTests.sweep.utf8).write(to: dir.appendingPathComponent("s.json"))
            // One block (dash's are 512 bytes, bash's 1024): less than any of these outputs.
            let r = try await CLI.shell("ulimit -f 1; \"$M\" \(command)", in: dir, timeout: .seconds(120))
            #expect(r.termination == .exit && r.status == MercurialError.Kind.resource.exitStatus, "\(r)")
            let culprit = command.contains("metadata") || !command.contains("webm") ? "'out." : "the video's metadata"
            #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("error: cannot write \(culprit)")
                    && r.stderr.contains("file too large for the limit of ") && r.stderr.contains(" bytes set by ulimit -f;"), "\(r)")
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            #expect(left == ["s.json"], "left behind: \(left)")
        }
    }

    /// A large title is written band by band by its sink: over the limit partway
    /// through, the same one error line, and neither the file nor a temporary is left.
    @Test func aFileSizeLimitWhileStreamingIsOneErrorAndNoFile() async throws {
        try await CLI.withTemporaryDirectory { dir in
            // Over the 4 M pixels rendered in bands.
            try Data(try PNGSink().encode(CLI.stripedMask(side: 2100))).write(to: dir.appendingPathComponent("big.png"))
            // 4 blocks (2 or 4 KB): the header fits, the image data does not.
            let r = try await CLI.shell("ulimit -f 4; \"$M\" render --mask big.png -o out.png", in: dir,
                                        timeout: .seconds(120))
            #expect(r.termination == .exit && r.status == MercurialError.Kind.resource.exitStatus, "\(r)")
            #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("error: cannot write 'out.png'")
                    && r.stderr.contains("set by ulimit -f;"), "\(r)")
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            #expect(left == ["big.png"], "left behind: \(left)")
        }
    }

    // MARK: - Class 4: PNG chunks libpng would spend memory on

    @Test func ancillaryChunksAreIgnoredNotRefused() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let plain = try Data(contentsOf: URL(fileURLWithPath: CLI.fixturePath("gray8.png")))
            var bytes = Array(plain)
            // Insert a 2 MB tEXt chunk and an unknown ancillary chunk after IHDR.
            func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
                let body = Array(type.utf8) + data
                var crc: UInt32 = 0xffff_ffff
                for b in body {
                    crc ^= UInt32(b)
                    for _ in 0..<8 { crc = crc & 1 != 0 ? 0xedb8_8320 ^ (crc >> 1) : crc >> 1 }
                }
                return be(UInt32(data.count)) + body + be(crc ^ 0xffff_ffff)
            }
            bytes.insert(contentsOf: chunk("tEXt", Array("Comment\0".utf8) + [UInt8](repeating: 65, count: 2 << 20))
                         + chunk("zzZz", [1, 2, 3]), at: 33)
            try Data(bytes).write(to: dir.appendingPathComponent("texty.png"))
            try plain.write(to: dir.appendingPathComponent("plain.png"))
            expectSuccess(try await CLI.run(["render", "--mask", "texty.png", "-o", "a.png"], in: dir))
            expectSuccess(try await CLI.run(["render", "--mask", "plain.png", "-o", "b.png"], in: dir))
            #expect(try same(CLI.readPNG(dir.appendingPathComponent("a.png")).pixels, CLI.readPNG(dir.appendingPathComponent("b.png")).pixels))
        }
    }

    func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

    // MARK: - Class 6: temporary files

    static let strace = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `mercurial render` under strace, which holds its first `write` (the PNG's)
    /// for 3 s once done, and sends `signal` to it during that pause: with a named
    /// temporary file, once the file is there; with O_TMPFILE, once the unnamed file
    /// is open. Returns how strace (which ends as its tracee does) ended.
    func signalDuringWrite(_ signal: Int32, namedTemporary: Bool, in dir: URL) async throws -> Process {
        func writing(_ pid: pid_t) -> Bool {
            if namedTemporary { return !CLI.temporaryFiles(in: dir).isEmpty }
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return fds.contains { fd in
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? ""
                return target.hasPrefix(dir.path + "/#") || target.hasPrefix(dir.path + "/.out.png.tmp")
            }
        }
        return try Self.signalUnderStrace(signal, ["render", "Hi", "-o", "out.png", "--quiet"],
                                          inject: "inject=write:delay_exit=2000000:when=1",
                                          namedTemporary: namedTemporary, in: dir, when: writing)
    }

    /// Runs `mercurial ARGUMENTS` under strace with the write injection `inject`, and
    /// sends `signal` to it once `ready` says so of its process id (checked every
    /// millisecond for 20 s). Returns strace's process, ended (it ends as its tracee does).
    static func signalUnderStrace(_ signal: Int32, _ arguments: [String], inject: String, namedTemporary: Bool,
                                  in dir: URL, when ready: (pid_t) -> Bool,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.strace!)
        process.arguments = ["-f", "-o", "/dev/null", "-e", "trace=write", "-e", inject, try CLI.binary().path] + arguments
        process.currentDirectoryURL = dir
        var environment = ProcessInfo.processInfo.environment
        environment["MERCURIAL_NO_TMPFILE"] = namedTemporary ? "1" : nil
        // The held write must be the output's: a first render by this build would otherwise
        // write its sphere or its font's hash into the cache first.
        environment["MERCURIAL_CACHE"] = "off"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        func tracee() -> pid_t? {
            let children = "/proc/\(process.processIdentifier)/task/\(process.processIdentifier)/children"
            return (try? String(contentsOfFile: children, encoding: .utf8))?.split(separator: " ").first.flatMap { pid_t($0) }
        }
        let deadline = ContinuousClock.now + .seconds(20)
        var sent = false
        while process.isRunning && ContinuousClock.now < deadline {
            if let pid = tracee(), ready(pid) {
                kill(pid, signal)
                sent = true
                break
            }
            usleep(1000)
        }
        #expect(sent, "the process was never seen ready for the signal", sourceLocation: sourceLocation)
        while process.isRunning && ContinuousClock.now < deadline + .seconds(10) { usleep(1000) }
        #expect(!process.isRunning, "it did not stop on signal \(signal)", sourceLocation: sourceLocation)
        return process
    }

    @Test(.enabled(if: strace != nil, "needs strace to hold the render mid-write"),
          arguments: [(SIGINT, true), (SIGTERM, true), (SIGHUP, true), (SIGINT, false), (SIGKILL, false)])
    func aSignalWhileWritingLeavesNoFile(_ signal: Int32, namedTemporary: Bool) async throws {
        try await CLI.withTemporaryDirectory { dir in
            let process = try await signalDuringWrite(signal, namedTemporary: namedTemporary, in: dir)
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal,
                    "died of the signal: \(process.terminationReason) \(process.terminationStatus)")
            #expect(CLI.temporaryFiles(in: dir).isEmpty, "left \(CLI.temporaryFiles(in: dir))")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.png").path))
        }
    }

    @Test(.enabled(if: strace != nil, "needs strace to hold the render mid-write"))
    func aTemporaryLeftBySIGKILLIsRemovedByTheNextRun() async throws {
        try await CLI.withTemporaryDirectory { dir in
            _ = try await signalDuringWrite(SIGKILL, namedTemporary: true, in: dir)
            #expect(CLI.temporaryFiles(in: dir).count == 1, "SIGKILL cannot be caught: the named temporary stays")
            expectSuccess(try await CLI.run(["render", "Hi", "-o", "out.png", "--quiet"], in: dir))
            #expect(CLI.temporaryFiles(in: dir).isEmpty, "left \(CLI.temporaryFiles(in: dir))")
        }
    }

    @Test func staleTemporariesOfDeadProcessesAreRemoved() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let dead = Process()
            dead.executableURL = URL(fileURLWithPath: "/bin/true")
            try dead.run()
            dead.waitUntilExit()
            let stale = ".out.png.tmp-\(dead.processIdentifier)-abcdef"
            let live = ".out.png.tmp-\(getpid())-abcdef"
            let other = ".other.png.tmp-\(dead.processIdentifier)-abcdef"
            for name in [stale, live, other] { try Data("x".utf8).write(to: dir.appendingPathComponent(name)) }
            expectSuccess(try await CLI.run(["render", "Hi", "-o", "out.png"], in: dir))
            let left = Set(CLI.temporaryFiles(in: dir))
            #expect(!left.contains(stale), "the dead process's temporary is removed")
            #expect(left == [live, other], "a live process's, and another output's, are kept: \(left)")
        }
    }
} }
