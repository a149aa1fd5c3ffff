import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// A scene with an animation whose `tracks` (and other keys) are `extra`, one key a line
/// so that errors have predictable line numbers.
func animatedScene(_ animation: String, extra: String = "") -> String {
    "{\n  \"text\": \"Hi\",\n  \"size\": 40,\n\(extra)  \"animation\": \(animation)\n}\n"
}

extension CLIErrorCase {
    /// Bad timelines: `file:line:column` errors before any frame is rendered.
    static let animation: [CLIErrorCase] = {
        func bad(_ name: String, _ animation: String, extra: String = "", _ fragments: [String],
                 output: String = "out.webm") -> CLIErrorCase {
            CLIErrorCase(name: "animate: " + name, arguments: ["animate", "scene.json", "-o", output],
                         setup: [.text("scene.json", animatedScene(animation, extra: extra))], fragments: fragments,
                         output: .mustNotExist(output))
        }
        let track = { (body: String) in "{\"duration\": 2, \"tracks\": {\(body)}}" }
        return [
            bad("keyframes out of order", track(#""light1.hue": [{"t": 1, "value": 0.5}, {"t": 0.5, "value": 0}]"#),
                ["scene.json:4:", "out of order", "t = 0.5 comes after t = 1"]),
            bad("value out of range", track(#""radius": [{"t": 0, "value": 900}]"#),
                ["scene.json:4:", "900, out of range 0.5…200"]),
            // A hue's keyframes are turns (issue 33): 1.5 is a turn and a half, 101 too many.
            bad("hue turns out of range", track(#""light1.hue": [{"t": 0, "value": 101}]"#),
                ["scene.json:4:", "101, out of range"]),
            bad("unknown track", track(#""light1.hew": [{"t": 0, "value": 0}]"#),
                ["scene.json:4:", "unknown track \"light1.hew\"", "did you mean \"light1.hue\"?"]),
            bad("negative duration", "{\"duration\": -1}", ["scene.json:4:", "duration", "out of range"]),
            bad("fps 0", "{\"duration\": 1, \"fps\": 0}", ["scene.json:4:", "fps", "is 0, out of range 1…240"]),
            bad("no duration", "{\"fps\": 30}", ["scene.json:4:", "needs \"duration\""]),
            bad("fps ffmpeg cannot take", "{\"duration\": 1, \"fps\": 29.123456789}",
                ["scene.json:4:", "\"animation.fps\" is 29.123456789", "fraction of two 32-bit whole numbers", "round it"]),
            bad("quality out of range", "{\"duration\": 1, \"quality\": 101}", ["scene.json:4:", "quality", "out of range 0…100"]),
            CLIErrorCase(name: "animate: --quality 150", arguments: ["animate", "scene.json", "-o", "out.webm", "--quality", "150"],
                         setup: [.text("scene.json", animatedScene("{\"duration\": 0.1}"))],
                         fragments: ["--quality 150 is out of range 0…100"], output: .mustNotExist("out.webm")),
            CLIErrorCase(name: "animate: --quality 0x10", arguments: ["animate", "scene.json", "-o", "out.webm", "--quality", "0x10"],
                         setup: [.text("scene.json", animatedScene("{\"duration\": 0.1}"))], status: .usage,
                         fragments: ["'0x10'", "--quality", "a decimal number"], output: .mustNotExist("out.webm")),
            bad("keyframe after the end", track(#""radius": [{"t": 3, "value": 4}]"#), ["scene.json:4:", "3, out of range 0…2"]),
            bad("unknown timing", track(#""radius": [{"t": 0, "value": 4, "timing": "bounce"}]"#),
                ["scene.json:4:", "timing 'bounce' is not known"]),
            bad("text cannot be keyframed", track(#""align": [{"t": 0, "value": "left"}]"#),
                ["scene.json:4:", "only numbers and colours can be keyframed"]),
            bad("colour track given a number", track(#""diffuse": [{"t": 0, "value": 3}]"#),
                ["scene.json:4:", "not a colour"]),
            bad("point light that is not there", track(#""pointLight2.x": [{"t": 0, "value": 3}]"#),
                extra: "  \"pointLights\": [{\"x\": 1, \"y\": 2}],\n",
                ["scene.json:5:", "point light 2", "the scene has 1"]),
            bad("gradient track without a gradient", track(#""backgroundGradient.color1": [{"t": 0, "value": "red"}]"#),
                ["scene.json:4:", "needs a \"backgroundGradient\""]),
            bad("too many frames", "{\"duration\": 3600, \"fps\": 240}", ["scene.json:4:", "over the limit of 216000"]),
            bad("unknown output form", track(#""radius": [{"t": 0, "value": 4}]"#), ["out.gif", "no known form"],
                output: "out.gif"),
            bad("pattern without a number", track(#""radius": [{"t": 0, "value": 4}]"#), ["one %d or %0Nd"],
                output: "frames-%s.png"),
            // Frames are made whole: a 16384² frame took 1.85 GB.
            CLIErrorCase(name: "animate: a 16384² canvas", arguments: ["animate", "scene.json", "-o", "a.webm"],
                         setup: [.text("scene.json", "{\"text\": \"WW\", \"size\": 300, \"width\": 16384, \"height\": 16384, \"animation\": {\"duration\": 1}}")],
                         status: .limit, fragments: ["at most 33 M pixels (7680×4320)", "this one is 16384×16384"], output: .mustNotExist("a.webm")),
            CLIErrorCase(name: "animate: a title region over 16 M pixels", arguments: ["animate", "scene.json", "-o", "a.png"],
                         setup: [.text("scene.json", "{\"text\": \"WW\", \"size\": 4000, \"width\": 7680, \"height\": 4320, \"animation\": {\"duration\": 1}}")],
                         status: .limit, fragments: ["lofted in memory", "at most 16 M pixels"], output: .mustNotExist("a.png")),
            // ffmpeg's own memory (issue 19, 16b): VP9 took 1.3 GB at 3840×2160 (7.5 GB at 7680×4320), H.264 3.2 GB at 7680×4320.
            CLIErrorCase(name: "animate: a 5K WebM", arguments: ["animate", "scene.json", "-o", "a.webm"],
                         setup: [.text("scene.json", "{\"text\": \"Hi\", \"size\": 40, \"width\": 5120, \"height\": 2880, \"animation\": {\"duration\": 0.1}}")],
                         status: .limit, fragments: ["WebM (VP9 with alpha) at 5120×2880 would take ffmpeg about 2.5 GB", "at most 8 M pixels (e.g. 4096×2160) to stay near 1.5 GB", ".mov (ProRes"],
                         output: .mustNotExist("a.webm")),
            CLIErrorCase(name: "animate: an 8K MP4", arguments: ["animate", "scene.json", "-o", "a.mp4"],
                         setup: [.text("scene.json", "{\"text\": \"Hi\", \"size\": 40, \"width\": 7680, \"height\": 4320, \"animation\": {\"duration\": 0.1}}")],
                         status: .limit, fragments: ["MP4 (H.264) at 7680×4320 would take ffmpeg about 1.7 GB", "at most 20 M pixels", "--codec qtrle"],
                         output: .mustNotExist("a.mp4")),
            CLIErrorCase(name: "animate: scene without animation", arguments: ["animate", "scene.json", "-o", "a.png"],
                         setup: [.text("scene.json", "{\"text\": \"Hi\"}")], fragments: ["has no \"animation\""],
                         output: .mustNotExist("a.png")),
            CLIErrorCase(name: "animate: canvas that changes size", arguments: ["animate", "scene.json", "-o", "a.png"],
                         setup: [.text("scene.json", "{\"text\": \"Hi\", \"size\": 30, \"animation\": {\"duration\": 1, \"fps\": 2, \"tracks\": {\"radius\": [{\"t\": 0, \"value\": 2}, {\"t\": 1, \"value\": 30}]}}}")],
                         fragments: ["the canvas changes from", "give \"width\" and \"height\""], output: .mustNotExist("a.png")),
            CLIErrorCase(name: "inspect: not a PNG", arguments: ["inspect", "s.json"],
                         setup: [.text("s.json", "{}")], fragments: ["'s.json' is not a PNG file"], output: .none),
            CLIErrorCase(name: "inspect: a PNG without a recipe", arguments: ["inspect", "plain.png"],
                         setup: [.copy("plain.png", from: CLI.packageRoot.appendingPathComponent("Tests/MercurialTestSupport/Fixtures/rgba8.png").path)],
                         fragments: ["carries no recipe"], output: .none),
            CLIErrorCase(name: "render: --from and --params", arguments: ["render", "--from", "t.png", "--params", "s.json"],
                         setup: [.text("s.json", "{}"), .copy("t.png", from: CLI.packageRoot.appendingPathComponent("Tests/MercurialTestSupport/Fixtures/rgba8.png").path)],
                         fragments: ["--from and --params"]),
            CLIErrorCase(name: "render: --from a truncated PNG", arguments: ["render", "--from", "t.png"],
                         setup: [.copy("t.png", from: CLI.packageRoot.appendingPathComponent("Tests/MercurialTestSupport/Fixtures/rgba8.png").path, count: 40)],
                         fragments: ["t.png"]),
            CLIErrorCase(name: "render: unknown map", arguments: ["render", "Hi", "--emit", "color,colour"],
                         status: .usage, fragments: ["--emit"]),
            CLIErrorCase(name: "render: map output equal to an input", arguments: ["render", "Hi", "--emit", "color,normal",
                                                                                 "--font", "f-normal.png", "-o", "f.png"],
                         setup: [.copy("f-normal.png", from: CLIErrorCase.roundedFont)], fragments: ["f-normal.png"],
                         output: .unchanged("f-normal.png")),
            CLIErrorCase(name: "animate: video to standard output", arguments: ["animate", "scene.json", "-o", "/dev/stdout"],
                         setup: [.text("scene.json", animatedScene("{\"duration\": 0.1}"))], fragments: ["no known form"],
                         output: .none),
        ]
    }()
}

@Suite(.serialized) struct AnimateCommandTests {
    /// A hang detector: the debug binary shares two cores with the whole suite.
    static let deadline: Duration = .seconds(120)

    func expectSuccess(_ r: CLI.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.termination == .exit && r.status == 0 && r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
    }

    static let sweep = """
    {"text": "Hi", "size": 40, "width": 160, "height": 64,
     "pointLights": [{"x": 0, "y": 32, "color": "orange", "range": 80}],
     "animation": {"duration": 1, "fps": 10, "loop": true, "tracks": {
        "pointLight1.x": [{"t": 0, "value": 0, "timing": "easeInEaseOut"}, {"t": 1, "value": 160}],
        "light1.hue": [{"t": 0, "value": 0.9}, {"t": 1, "value": 0.1}]}}}
    """

    @Test func anAPNGIsDeterministicAndLoops() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(Self.sweep.utf8).write(to: dir.appendingPathComponent("s.json"))
            let a = try await CLI.run(["animate", "s.json", "-o", "a.png"], in: dir, timeout: Self.deadline)
            let b = try await CLI.run(["animate", "s.json", "-o", "b.png", "--quiet"], in: dir, timeout: Self.deadline)
            expectSuccess(a)
            expectSuccess(b)
            #expect(a.stdout.contains("a.png: 10 frames 160×64, APNG"), "\(a.stdout)")
            #expect(b.stdout.isEmpty)
            let first = try Data(contentsOf: dir.appendingPathComponent("a.png"))
            #expect(first == (try Data(contentsOf: dir.appendingPathComponent("b.png"))), "two runs, identical bytes")
            // acTL right after IHDR: 10 frames, 0 = loop forever.
            let actl = [UInt8](first[(8 + 25 + 8)..<(8 + 25 + 16)])
            #expect(actl == [0, 0, 0, 10, 0, 0, 0, 0])
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }

    @Test func aPNGSequenceWritesOneFilePerFrame() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(Self.sweep.utf8).write(to: dir.appendingPathComponent("s.json"))
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("frames"), withIntermediateDirectories: true)
            let r = try await CLI.run(["animate", "s.json", "-o", "frames/f-%03d.png"], in: dir, timeout: Self.deadline)
            expectSuccess(r)
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("frames").path).sorted()
            #expect(names == (0..<10).map { String(format: "f-%03d.png", $0) })
            // Frame 5 is the still title of the scene at t = 0.5.
            let frame = try CLI.readPNG(dir.appendingPathComponent("frames/f-005.png"))
            #expect(frame.width == 160 && frame.height == 64)
            // --compression is render's; animate says it ignores it, and writes the same frames.
            let again = try await CLI.run(["animate", "s.json", "-o", "frames/g-%03d.png", "--compression", "small"],
                                          in: dir, timeout: Self.deadline)
            #expect(again.status == 0)
            #expect(again.stderrLines.contains { $0.hasPrefix("warning: --compression small is for render's and watch's PNG titles; animate ignores it") },
                    "\(again.stderrLines)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("frames/g-005.png"))
                    == Data(contentsOf: dir.appendingPathComponent("frames/f-005.png")))
        }
    }

    /// `--in PRESET` replaces the scene's in and keeps its out whole: a list of moves (a slide
    /// and a fade) still both run, so a frame as it leaves is moved and part-transparent.
    @Test func anInFlagKeepsTheScenesListOfMovesOut() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let scene = #"{"text": "Hg", "size": 40, "width": 200, "height": 100, "out": [{"type": "slide", "side": "left", "distance": 60, "duration": 1, "timing": "linear"}, {"type": "fade", "duration": 1, "timing": "linear"}], "animation": {"duration": 2, "fps": 10}}"#
            try Data(scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("f"), withIntermediateDirectories: true)
            let r = try await CLI.run(["animate", "s.json", "--in", "fade", "-o", "f/%02d.png"], in: dir, timeout: Self.deadline)
            expectSuccess(r)
            func inkLeft(_ image: Image<RGBA8>) -> Int? { (0..<image.width).first { x in (0..<image.height).contains { image[x, $0].a > 0 } } }
            let settled = try CLI.readPNG(dir.appendingPathComponent("f/08.png")), leaving = try CLI.readPNG(dir.appendingPathComponent("f/15.png"))
            let alpha = leaving.pixels.map(\.a).max() ?? 0
            #expect(alpha > 0 && alpha < 200, "the fade of the out's list runs: alpha up to \(alpha)")
            #expect((inkLeft(leaving) ?? 0) < (inkLeft(settled) ?? 0) - 10, "and its slide: \(String(describing: inkLeft(leaving))) against \(String(describing: inkLeft(settled)))")
        }
    }

    /// A layered scene animates through the binary: frame 0 (no tracks) is `render`'s still,
    /// and a track into a layer makes an APNG.
    @Test func aLayeredSceneAnimates() async throws {
        let layers = #""width": 320, "height": 120, "anchor": "bottom-left", "margin": 8, "layers": [{"name": "a", "text": "Name", "size": 40, "material": "gold"}, {"below": "a", "text": "Role", "size": 20}]"#
        try await CLI.withTemporaryDirectory { dir in
            try Data("{\(layers), \"animation\": {\"duration\": 0.5, \"fps\": 4}}".utf8).write(to: dir.appendingPathComponent("s.json"))
            try Data(("{\(layers), \"animation\": {\"duration\": 0.5, \"fps\": 4, \"tracks\": "
                      + #"{"layers[1].light1.hue": [{"t": 0, "value": 0}, {"t": 0.5, "value": 0.5}]}}}"#).utf8)
                .write(to: dir.appendingPathComponent("t.json"))
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("frames"), withIntermediateDirectories: true)
            expectSuccess(try await CLI.run(["animate", "s.json", "-o", "frames/f-%d.png", "--quiet"], in: dir, timeout: Self.deadline))
            expectSuccess(try await CLI.run(["render", "--params", "s.json", "-o", "still.png"], in: dir, timeout: Self.deadline))
            let frame = try CLI.readPNG(dir.appendingPathComponent("frames/f-0.png"))
            let still = try CLI.readPNG(dir.appendingPathComponent("still.png"))
            #expect(frame.width == 320 && frame.height == 120 && frame.pixels == still.pixels)
            let r = try await CLI.run(["animate", "t.json", "-o", "t.png"], in: dir, timeout: Self.deadline)
            expectSuccess(r)
            #expect(r.stdout.contains("t.png: 2 frames 320×120, APNG"), "\(r.stdout)")
        }
    }

    @Test(arguments: [("t.webm", "vp9"), ("t.mov", "prores"), ("t.mp4", "h264")])
    func videoFormsThroughTheCommand(_ name: String, _ codec: String) async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(Self.sweep.utf8).write(to: dir.appendingPathComponent("s.json"))
            let r = try await CLI.run(["animate", "s.json", "-o", name], in: dir, timeout: Self.deadline)
            expectSuccess(r)
            let info = try probe(dir.appendingPathComponent(name).path)
            #expect(info["codec_name"] == codec && info["nb_read_frames"] == "10", "\(info)")
            #expect(CLI.temporaryFiles(in: dir).isEmpty)
        }
    }

    /// Frames stream to the sink: ten times the frames, the same memory.
    @Test func memoryDoesNotGrowWithTheFrameCount() async throws {
        try await CLI.withTemporaryDirectory { dir in
            func scene(_ seconds: Int) -> String {
                """
                {"text": "Mercurial", "width": 640, "height": 360,
                 "animation": {"duration": \(seconds), "fps": 30, "tracks": {
                    "light1.hue": [{"t": 0, "value": 0}, {"t": \(seconds), "value": 1}]}}}
                """
            }
            func peak(_ seconds: Int) async throws -> Double {
                try Data(scene(seconds).utf8).write(to: dir.appendingPathComponent("m.json"))
                let r = try await CLI.run(["animate", "m.json", "-o", "m.png"], in: dir, timeout: .seconds(240))
                expectSuccess(r)
                return r.peakMemoryMB()
            }
            let short = try await peak(1), long = try await peak(10)
            #expect(short > 0 && long <= short * 1.10, "30 frames: \(short) MB, 300 frames: \(long) MB")
        }
    }

    /// Ctrl-C (or SIGTERM) stops at once and leaves no output, no temporary file and no ffmpeg.
    @Test(arguments: [("long.webm", SIGINT), ("long.png", SIGTERM), ("frames-%04d.png", SIGINT)])
    func stoppingLeavesNothing(_ output: String, _ signalNumber: Int32) async throws {
        try await CLI.withTemporaryDirectory { dir in
            // An hour of frames: the light sweep renders at hundreds of frames a second, so a minute could end within the wait below.
            let long = Self.sweep.replacingOccurrences(of: "\"duration\": 1,", with: "\"duration\": 3600,")
            try Data(long.utf8).write(to: dir.appendingPathComponent("s.json"))
            let process = Process()
            process.executableURL = try CLI.binary()
            process.arguments = ["animate", "s.json", "-o", output]
            process.currentDirectoryURL = dir
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            // Let it get going: some frames written.
            try await Task.sleep(for: .seconds(2))
            #expect(process.isRunning, "still rendering an hour of frames")
            let took = try await process.stop(with: signalNumber)
            // (Foundation traps on a running process's termination reason: a test must fail, not crash.)
            try #require(took != nil, "stopped")
            #expect(took.map { $0 < .seconds(3) } == true, "at once: \(String(describing: took))")
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signalNumber)
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "s.json" }
            #expect(left.isEmpty, "left behind: \(left)")
            // No ffmpeg still writing into this folder.
            let ps = Process()
            ps.executableURL = URL(fileURLWithPath: "/bin/ps")
            ps.arguments = ["-eo", "args"]
            let pipe = Pipe()
            ps.standardOutput = pipe
            try ps.run()
            let listing = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            ps.waitUntilExit()
            #expect(!listing.contains(dir.path), "a process still names the folder")
        }
    }
    // MARK: - A fake ffmpeg (issue 19)

    /// An `ffmpeg` in `dir/bin` that runs the shell `body`, and the environment that finds it first.
    func fakeFFmpeg(_ body: String, in dir: URL) throws -> [String: String] {
        let bin = dir.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: false)
        let script = bin.appendingPathComponent("ffmpeg")
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: script)
        chmod(script.path, 0o755)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }

    /// Runs `animate s.json -o out.webm` in `dir` with `environment`, whose fake ffmpeg writes
    /// its process id to `bin/ffmpeg.pid` and stalls; `body` gets both once it has; both are
    /// killed afterwards if still there.
    func withStalledAnimate(in dir: URL, environment: [String: String],
                            _ body: (Process, pid_t) async throws -> Void) async throws {
        let process = Process()
        process.executableURL = try CLI.binary()
        process.arguments = ["animate", "s.json", "-o", "out.webm"]
        process.currentDirectoryURL = dir
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var ffmpeg: pid_t = 0
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            if ffmpeg > 0 { kill(ffmpeg, SIGKILL) }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while ffmpeg == 0 && ContinuousClock.now < deadline {
            let text = try? String(contentsOf: dir.appendingPathComponent("bin/ffmpeg.pid"), encoding: .utf8)
            if let pid = text.flatMap({ pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) { ffmpeg = pid }
            else { try await Task.sleep(for: .milliseconds(20)) }
        }
        try #require(ffmpeg > 0, "the fake ffmpeg started")
        try await body(process, ffmpeg)
    }

    /// Sends `signalNumber` to `process` and waits up to 10 s for it to end; how long it took.
    func stop(_ process: Process, with signalNumber: Int32) async throws -> Duration {
        let sent = ContinuousClock.now
        kill(process.processIdentifier, signalNumber)
        while process.isRunning && ContinuousClock.now - sent < .seconds(10) { try await Task.sleep(for: .milliseconds(10)) }
        let took = ContinuousClock.now - sent
        try #require(!process.isRunning, "stopped within 10 s")
        return took
    }

    /// A signal stops `animate` while ffmpeg reads nothing (the frame write blocks on a full
    /// pipe) or has read every frame but does not exit: at once, with ffmpeg killed and reaped,
    /// and nothing left. The write used to retry EINTR and wait for ffmpeg for as long as it slept.
    @Test(arguments: [("exec sleep 60", SIGINT), ("exec sleep 60", SIGTERM), ("cat > /dev/null; exec sleep 60", SIGINT)])
    func aStalledFFmpegStopsAtOnce(_ stall: String, _ signalNumber: Int32) async throws {
        try await CLI.withTemporaryDirectory { dir in
            // $$ is the sleep's process id too (exec keeps it); written once the stall begins.
            let environment = try fakeFFmpeg(stall.replacingOccurrences(of: "exec", with: "echo $$ > \"$0.pid\"; exec"), in: dir)
            // 160 KB frames: the first one fills the pipe (64 KB).
            try Data(#"{"text": "Hi", "size": 40, "width": 320, "height": 128, "animation": {"duration": 1, "fps": 10}}"#.utf8)
                .write(to: dir.appendingPathComponent("s.json"))
            try await withStalledAnimate(in: dir, environment: environment) { process, ffmpeg in
                // Let the frame write (or the wait for ffmpeg's exit) begin.
                try await Task.sleep(for: .seconds(1))
                #expect(process.isRunning, "waiting on the stalled ffmpeg")
                let took = try await stop(process, with: signalNumber)
                #expect(took < .seconds(2), "stopped in \(took)")
                #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signalNumber)
                #expect(kill(ffmpeg, 0) != 0 && errno == ESRCH, "ffmpeg killed and reaped")
                let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
                #expect(left == ["bin", "s.json"], "left behind: \(left)")
            }
        }
    }

    /// Killed outright (SIGKILL, no handler runs), `animate` leaves nothing in TMPDIR: ffmpeg's
    /// log and the recipe's FFMETADATA file have no names (a named log was left behind).
    @Test func aKilledAnimateLeavesNothingInTheTemporaryFolder() async throws {
        try await CLI.withTemporaryDirectory { dir in
            var environment = try fakeFFmpeg(#"echo $$ > "$0.pid"; exec sleep 60"#, in: dir)
            let scratch = dir.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: false)
            environment["TMPDIR"] = scratch.path
            try Data(Self.sweep.utf8).write(to: dir.appendingPathComponent("s.json"))
            try await withStalledAnimate(in: dir, environment: environment) { process, _ in
                _ = try await stop(process, with: SIGKILL)
                let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
                #expect(left.isEmpty, "left in TMPDIR: \(left)")
            }
        }
    }

    /// ffmpeg's own peak memory for a 1080p WebM, measured by `/usr/bin/time` around the real
    /// ffmpeg: it was 647 MB (782 MB once the recipe became a second input), as libvpx kept
    /// 25 frames of lag buffers for each of its two encoders (colour and alpha), which realtime
    /// mode without alt-ref frames never uses; now about 500 MB. Its buffers are allocated at
    /// the start, so three frames show it.
    @Test func ffmpegMemoryForA1080pWebMIsBounded() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let environment = try fakeFFmpeg(#"exec /usr/bin/time -f %M -o "$0.peak" /usr/bin/ffmpeg "$@""#, in: dir)
            try Data(#"{"text": "Hi", "size": 40, "width": 1920, "height": 1080, "animation": {"duration": 0.1, "fps": 30}}"#.utf8)
                .write(to: dir.appendingPathComponent("s.json"))
            let r = try await CLI.run(["animate", "s.json", "-o", "out.webm"], in: dir, environment: environment,
                                      timeout: Self.deadline)
            expectSuccess(r)
            let text = try String(contentsOf: dir.appendingPathComponent("bin/ffmpeg.peak"), encoding: .utf8)
            let kilobytes = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "\(text)")
            #expect(kilobytes < 560_000, "ffmpeg peaked at \(kilobytes / 1024) MB")
        }
    }

    /// An ffmpeg that exits 0 without writing the container is an error, not a 0-byte video.
    @Test(arguments: [("cat > /dev/null", "its output is empty"),
                      (#"cat > /dev/null; for last; do :; done; echo 'not a video' > "$last""#, "its output is not WebM")])
    func anFFmpegThatWritesNoVideoIsAnError(_ body: String, _ problem: String) async throws {
        try await CLI.withTemporaryDirectory { dir in
            let environment = try fakeFFmpeg(body, in: dir)
            try Data(Self.sweep.utf8).write(to: dir.appendingPathComponent("s.json"))
            let r = try await CLI.run(["animate", "s.json", "-o", "out.webm"], in: dir, environment: environment,
                                      timeout: Self.deadline)
            #expect(r.termination == .exit && r.status == MercurialError.Kind.resource.exitStatus, "\(r)")
            #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("error: ffmpeg at '")
                    && r.stderr.contains("reported success but \(problem)"), "\(r)")
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            #expect(left == ["bin", "s.json"], "left behind: \(left)")
        }
    }
}
