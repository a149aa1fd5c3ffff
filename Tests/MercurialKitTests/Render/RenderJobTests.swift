import Foundation
import Synchronization
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// `RenderJob.run`: outputs, cancellation and the resource store's rules.
@Suite struct RenderJobTests {
    static func settings(_ json: String) throws -> RenderSettings {
        try ResourceStore.files.scene(json: Array(json.utf8), name: "scene").settings
    }

    /// What is left in `dir` (a stopped job leaves neither its file nor a temporary one).
    static func contents(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    /// A job run into memory gives the bytes of the same job written to a file.
    @Test(arguments: [("t.png", #"{"text": "Job", "size": 60}"#),
                      ("t.jpg", ##"{"text": "Job", "size": 60, "background": "#101018"}"##)])
    func memoryHoldsTheFilesBytes(_ name: String, _ scene: String) throws {
        let dir = try StreamingRenderTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(name).path
        let job = StillJob(settings: try Self.settings(scene), encoding: try StillEncoding.forPath(path, command: "render"))
        let memory = MemoryOutput()
        let inMemory = try RenderJob.run(job, to: .memory(memory))
        let written = try RenderJob.run(job, to: .path(path))
        let bytes = try #require(memory.bytes)
        #expect(bytes.count > 100)
        #expect(bytes == [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect((inMemory.width, inMemory.height) == (written.width, written.height))
        // A PNG carries the recipe, a JPEG its stamp.
        let recipe = try #require(inMemory.recipe)
        if name.hasSuffix(".jpg") {
            #expect(JPEGFile.comments(size: bytes.count) { Array(bytes[$0..<min($0 + $1, bytes.count)]) }
                    == [SceneRecipe.stamp(recipe, encoding: job.encoding)])
        } else {
            #expect(try SceneRecipe.read(fromPNG: bytes, name: name) == recipe)
        }
    }

    /// A job whose token has already stopped renders nothing: a resource error saying why, and no file.
    @Test func anAlreadyCancelledJobWritesNothing() throws {
        let dir = try StreamingRenderTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.png").path
        let job = StillJob(settings: try Self.settings(#"{"text": "Job", "size": 60}"#))
        let error = #expect(throws: MercurialError.self) {
            try RenderJob.run(job, to: .path(path), cancellation: Cancellation { "the page was closed" })
        }
        #expect(error?.kind == .resource)
        #expect(error?.message == "stopped: the page was closed")
        #expect(try Self.contents(dir).isEmpty)
        // An animation's job too.
        let animation = AnimationJob(scene: .title(job.settings, Timeline(duration: 1)), format: .apng)
        let stopped = #expect(throws: MercurialError.self) {
            try RenderJob.run(animation, to: dir.appendingPathComponent("a.png").path, cancellation: Cancellation { "closed" })
        }
        #expect(stopped?.kind == .resource && stopped?.message.hasPrefix("stopped:") == true)
        #expect(try Self.contents(dir).isEmpty)
    }

    /// A deadline stops a title rendered in bands part way (the sink asks before each
    /// band), leaving no file.
    @Test func aDeadlineStopsABandedRender() throws {
        let dir = try StreamingRenderTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 2560² mask: over `streamingThreshold`, so rendered in bands.
        let mask = dir.appendingPathComponent("mask.png")
        try StreamingRenderTests.write(CLI.stripedMask(side: 2560), to: mask)
        #expect(2560 * 2560 > TitleRenderer.streamingThreshold)
        var settings = RenderSettings()
        settings.mask = mask.path
        // Well under the render's time (about 0.5 s here on two quiet cores, optimised).
        let limit = Duration.milliseconds(60)
        let deadline = Cancellation.deadline(.now + limit, limit: limit)
        let asked = Mutex(0)
        let counted = Cancellation { asked.withLock { $0 += 1 }; return deadline.stopReason }
        let start = ContinuousClock.now
        let error = #expect(throws: MercurialError.self) {
            try RenderJob.run(StillJob(settings: settings), to: .path(dir.appendingPathComponent("big.png").path),
                              cancellation: counted)
        }
        #expect(error?.kind == .resource)
        #expect(error?.message == "stopped: the render took longer than its deadline of 60 ms", "\(String(describing: error))")
        // Asked again after the job's start: it was stopped while rendering, not before.
        #expect(asked.withLock { $0 } > 1)
        #expect(ContinuousClock.now - start >= limit)
        #expect(try Self.contents(dir) == ["mask.png"])
    }

    /// An animation's job stops between frames when its token says so, and removes its partial file.
    @Test func anAnimationStopsBetweenFrames() throws {
        let dir = try StreamingRenderTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let settings = try Self.settings(#"{"text": "Go", "size": 40, "width": 160, "height": 80}"#)
        let job = AnimationJob(scene: .title(settings, Timeline(duration: 1)), format: .apng)
        let done = Mutex(0)
        let error = #expect(throws: MercurialError.self) {
            try RenderJob.run(job, to: dir.appendingPathComponent("a.png").path,
                              cancellation: Cancellation { done.withLock { $0 } >= 3 ? "enough frames" : nil },
                              progress: { frames in done.withLock { $0 = frames } })
        }
        #expect(error?.message == "stopped: enough frames")
        #expect(done.withLock { $0 } == 3)
        #expect(try Self.contents(dir).isEmpty)
        // Uncancelled, the same job writes all its frames.
        let report = try RenderJob.run(job, to: dir.appendingPathComponent("a.png").path)
        #expect(report.frames == 30 && report.recipe != nil)
        #expect(try Self.contents(dir) == ["a.png"])
    }

    /// A served scene names fonts and materials, never files: each key that would read a
    /// file is refused under `.namesOnly`; `.files` reads the same font path.
    @Test func namesOnlyRefusesWhatNamesAFile() throws {
        let font = CLI.packageRoot.appendingPathComponent("fonts/serif-bold.ttf").path
        let refused: [(scene: String, message: String)] = [
            (#"{"text": "A", "font": "\#(font)"}"#, #"scene: "font" names a file"#),
            (#"{"text": "A", "mask": "mask.png"}"#, #"scene: "mask" names a file"#),
            (#"{"text": "A", "shadingImage": "sphere.png"}"#, #"scene: "shadingImage" names a file"#),
            (#"{"text": "A", "material": "materials/gold.json"}"#, #""material": 'materials/gold.json' is no bundled material"#),
        ]
        for (scene, message) in refused {
            let error = #expect(throws: MercurialError.self, "\(scene)") {
                try ResourceStore.namesOnly.scene(json: Array(scene.utf8), name: "scene")
            }
            #expect(error?.message.contains(message) == true, "\(scene): \(String(describing: error))")
        }
        let (settings, _) = try ResourceStore.files.scene(json: Array(#"{"text": "A", "font": "\#(font)"}"#.utf8), name: "scene")
        #expect(settings.font == font)
        // Bundled names go through.
        let named = try ResourceStore.namesOnly.scene(json: Array(#"{"text": "A", "font": "serif-bold", "material": "gold"}"#.utf8),
                                                      name: "scene").settings
        #expect(named.font == "serif-bold")
    }
}
