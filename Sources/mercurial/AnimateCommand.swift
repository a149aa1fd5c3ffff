import ArgumentParser
import FoundationEssentials
import MercurialKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension AnimationFormat.MovCodec: ChoiceArgument {}
extension AlphaMode: ChoiceArgument {}

/// `--prores`: the ProRes flavour of a .mov.
enum ProResProfile: String, ChoiceArgument {
    case p4444 = "4444", p4444xq = "4444xq", p422hq = "422hq"

    var codec: AnimationFormat.MovCodec {
        switch self {
        case .p4444: return .prores
        case .p4444xq: return .prores4444xq
        case .p422hq: return .prores422hq
        }
    }
}
extension Entrance.Kind: ChoiceArgument {}

struct Animate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animate",
        abstract: "Render a scene's animation to video, an animated PNG or a PNG sequence.",
        discussion: """
        The scene's "animation" object gives the duration, the frame rate and the
        keyframed tracks; frame i is the scene at t = i / fps. A scene with a
        "sequence" shows its titles one after another, joined by transitions
        (dissolve, flash, swipe, ripple). The output's name chooses its form:
          .webm  VP9 with alpha (ffmpeg, libvpx-vp9, yuva420p)
          .mov   ProRes 4444 with alpha (ffmpeg, prores_ks); --prores 4444xq or 422hq
                 (opaque), or --codec qtrle; a timecode track (--timecode)
          .mp4   H.264, opaque, on the background (black when there is none)
        WebM, ProRes and H.264 are BT.709 (limited range) and tagged so; --quality
        sets the WebM and MP4 quality (0 smallest, 100 best, 50 the default).
          .png   an animated PNG (APNG), looping when the animation loops
          a pattern such as frames/title-%04d.png: one PNG per frame
        Video needs Debian's ffmpeg package; for ffmpeg's memory (1 to 1.5 GB), WebM
        frames may have at most 4096×2160 pixels, ProRes and H.264 frames 20 M.
        Ctrl-C stops at once and leaves no output.

        Examples:
          mercurial animate examples/light-sweep.json -o sweep.webm
          mercurial animate examples/gold-rise.json -o rise.mov --background black
          mercurial animate examples/light-sweep.json -o sweep.png
          mercurial animate examples/sequence.json -o titles.webm
          mercurial animate examples/gold-rise.json --in reveal --out fade -o rise.webm
          mercurial animate examples/gold-rise.json --fps 29.97 --duration 00:00:05:00 -o rise.mov
        """
    )

    @Argument(help: "The scene file (JSON) with an \"animation\" or a \"sequence\".")
    var scene: String

    @OptionGroup var options: RenderOptions
    @OptionGroup var progressOption: ProgressOption

    @Option(help: ArgumentHelp("The QuickTime codec for .mov: prores (ProRes 4444), prores-4444xq, prores-422hq or qtrle (Animation).", valueName: "codec"))
    var codec: AnimationFormat.MovCodec = .prores

    @Option(help: ArgumentHelp("The ProRes flavour of a .mov: 4444 (with alpha, the default), 4444xq (with alpha, the highest rate) or 422hq (opaque, on the background; black when there is none).", valueName: "profile"))
    var prores: ProResProfile?

    @Option(help: ArgumentHelp("How a video's alpha is written: straight (the colour as rendered, as the PNGs hold it) or premultiplied (the colour times the alpha), for a tool that assumes it.", valueName: "mode"))
    var alpha: AlphaMode = .straight

    @Option(name: .customLong("in"), help: ArgumentHelp("Bring the title in: fade, slide, scale or reveal (letter by letter), with the preset's defaults (0.5 s); replaces the scene's \"in\".", valueName: "preset"))
    var entrance: Entrance.Kind?

    @Option(name: .customLong("out"), help: ArgumentHelp("Take the title out at the end: the same presets, played backwards; replaces the scene's \"out\".", valueName: "preset"))
    var exit: Entrance.Kind?

    @Option(help: .nested("animation.quality"), transform: decimalFlag)
    var quality: Double?

    @Option(help: ArgumentHelp("The frame rate, over the scene's: e.g. 25, 29.97 (30000/1001), 59.94.", valueName: "fps"), transform: decimalFlag)
    var fps: Double?

    @Option(help: ArgumentHelp("The length, over the scene's (a scene with none gets an animation): seconds (5, 5s), frames (150f) or SMPTE timecode (00:00:05:00; 00:00:05;00 drop-frame), counted at the frame rate.", valueName: "time"))
    var duration: String?

    @Option(help: ArgumentHelp("The first frame's timecode in a .mov, over the scene's (default 00:00:00:00, drop-frame 00:00:00;00 at 29.97 and 59.94).", valueName: "HH:MM:SS:FF"))
    var timecode: String?

    /// `--fps`, `--duration` and `--timecode`, each checked as the flag it is.
    func timingFlags() throws(MercurialError) -> SceneFile.AnimationOverride {
        if let fps {
            guard Timeline.fpsRange.contains(fps) else {
                let shown = fps == fps.rounded() && abs(fps) < 1e15 ? String(Int(fps)) : String(fps)
                throw MercurialError("--fps \(shown) is out of range \(Int(Timeline.fpsRange.lowerBound))…\(Int(Timeline.fpsRange.upperBound)); give a frame rate such as 25 or 29.97")
            }
            guard FrameRate(fps).isExact else {
                throw MercurialError("--fps \(fps) has more digits than a frame rate can carry; round it, e.g. to 3 decimals (29.97 is 30000/1001)")
            }
        }
        if let duration {
            do throws(MercurialError) { _ = try TimeValue.parse(duration) } catch { throw MercurialError("--duration: \(error.message)") }
        }
        if let timecode, Timecode(timecode) == nil {
            throw MercurialError("--timecode '\(timecode.escapedForTerminal)' is no timecode; give HH:MM:SS:FF such as 01:00:00:00 (01:00:00;00 drop-frame)")
        }
        return SceneFile.AnimationOverride(fps: fps, duration: duration, timecode: timecode)
    }

    func run() throws {
        try InputFile.refuseIfNotRegular(scene, role: "scene file")
        if let prores, codec != .prores, codec != prores.codec {
            throw MercurialError("--codec \(codec.rawValue) and --prores \(prores.rawValue) name two codecs; give one of them")
        }
        let format = try AnimationFormat.forPath(options.output, movCodec: prores?.codec ?? codec)
        if let prores, !format.isMov {
            throw MercurialError("--prores \(prores.rawValue) sets a .mov's codec, and '\(options.output.escapedForTerminal)' is \(format); name a .mov, or leave out --prores")
        }
        let quality = try quality.map { value throws(MercurialError) in
            try nestedFlagNumber(value, flag: "--quality", path: "animation.quality")
        }
        if quality != nil && format != .webm && format != .mp4 {
            warn(MercurialWarning("--quality sets the quality of .webm and .mp4; \(format) ignores it"))
        }
        // H.264 and ProRes 422 HQ have no alpha: on black when there is no background.
        let opaque = { (settings: inout RenderSettings) in
            if !format.hasAlpha && settings.background == nil && settings.backgroundGradient == nil { settings.background = .black }
        }
        let timing = try timingFlags()
        let inputs: [(role: String, path: String)]
        let animation: AnimationJob.Scene
        if var sequence = try options.materialOptions.sequence(sceneFile: scene, flags: [options], finish: opaque) {
            guard entrance == nil && exit == nil else {
                throw MercurialError("--in and --out bring one title in and out; in a \"sequence\", give each title's scene its own \"in\" and \"out\"")
            }
            guard timing.isEmpty else {
                throw MercurialError("--fps, --duration and --timecode set one title's animation; a \"sequence\" is as long as its holds and transitions: give its \"animation\" its \"fps\" in the scene")
            }
            if let quality { sequence.quality = quality }
            inputs = sequence.inputFiles(sceneFile: scene)
            animation = .sequence(sequence)
        } else {
            var (settings, timeline) = try options.materialOptions.settingsAndTimeline(sceneFile: scene, flags: [options],
                                                                                       animation: timing)
            guard var timeline else {
                throw MercurialError("scene '\(scene)' has no \"animation\"; add one, e.g. \"animation\": {\"duration\": 2, \"tracks\": {\"light1.hue\": [{\"t\": 0, \"value\": 0}, {\"t\": 2, \"value\": 1}]}}, or a \"sequence\" of titles; or give its length with --duration 5s")
            }
            if entrance != nil || exit != nil {
                // A flag replaces the scene's in (or out), its list of moves whole; the other is kept as it is.
                timeline.inOut = try InOut(entrances: entrance.map { [Entrance($0)] } ?? timeline.inOut?.entrances ?? [],
                                           exits: exit.map { [Entrance($0)] } ?? timeline.inOut?.exits ?? [],
                                           duration: timeline.duration, lastFrame: timeline.lastFrameTime)
            }
            opaque(&settings)
            if let quality { timeline.quality = quality }
            inputs = InputFiles.of(settings, sceneFile: scene)
            animation = .title(settings, timeline)
        }
        if case .pngSequence = format {} else if format != .null {
            try OutputFile.validate(options.output)
            try InputFiles.checkOutput(options.output, against: inputs)
        }
        // A signal now stops the job (`Cancellation.signal`) between frames or within one,
        // which leaves nothing; the process then dies of it.
        SignalCleanup.installDeferred()
        let job = AnimationJob(scene: animation, format: format, recipe: !options.noMetadata, alpha: alpha)
        var progress: Progress?
        var start = ContinuousClock.now
        let report: JobReport
        do {
            report = try RenderJob.run(job, to: options.output, cancellation: .signal, prepared: { renderer throws(MercurialError) in
                renderer.warnings.forEach(warn)
                if let compression = options.compression {
                    warn(MercurialWarning("--compression \(compression.rawValue) is for render's and watch's PNG titles; animate ignores it (its \(format.description) output sets its own)"))
                }
                progress = Progress(renderer.frameCount, of: "frame", style: try progressOption.style(quiet: options.quiet))
                start = .now
            }, progress: { done in
                progress?.update(done: done, since: start)
            })
        } catch {
            progress?.clear()
            // Ctrl-C on a terminal reaches ffmpeg too, whose end then fails the write: a stop, not an error.
            if SignalCleanup.stopRequested != nil { SignalCleanup.die() }
            throw error
        }
        progress?.clear()
        let seconds = Double((ContinuousClock.now - start).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - start).components.seconds)
        if !options.quiet {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let line = "\(options.output): \(report.frames) frames \(report.width)×\(report.height), \(format.description), in "
                + String(cFormat: "%.2f s (%.1f frames/s), peak memory %.0f MB",
                         seconds, Double(report.frames) / max(seconds, 1e-9), Double(usage.ru_maxrss) / 1024)
            if OutputFile.isStandardOutput(options.output) { Console.error(line) } else { Console.output(line) }
        }
    }
}
