// Stage benchmark: times each stage of a title render and the whole, as medians
// of N runs after a warm-up, and prints the process's peak memory.
//
//   swift run -c release mercurial-bench [runs] [--8k] [--styles] [--stroke-material]
//   swift run -c release mercurial-bench [runs] --formats   (a 1200×630 card's encoders only)
import Foundation
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func time<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try body()
    return (value, milliseconds(start.duration(to: .now)))
}

func peakMemoryMB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

let arguments = CommandLine.arguments.dropFirst()
let runs = arguments.compactMap { Int($0) }.first ?? 15
let encoder = PNGSink(compression: .fast)

/// Each still format's encode time (median of `runs`) and size for a 1200×630 card: "Card"
/// in the default material on a dark ground, rendered once; the encoders take its rows.
func formatFigures(runs: Int) throws {
    var settings = RenderSettings()
    (settings.text, settings.size, settings.width, settings.height) = ("Card", 160, 1200, 630)
    settings.background = RGBColor(r: 0.06, g: 0.06, b: 0.09)
    let title = try TitleRenderer.render(settings)
    let image = ImageSink(width: title.width, height: title.height)
    try image.write(title.canvas)
    let pixels = image.frames[0]
    print("mercurial-bench --formats: 1200×630 card, \(runs) runs after 1 warm-up; medians")
    let encoders: [(String, (Image<RGBA8>) throws -> [UInt8])] = [
        ("PNG (fast)", { try PNGSink(compression: .fast).encode($0) }),
        ("PNG (small)", { try PNGSink(compression: .small).encode($0) }),
        ("JPEG q90", { try encoded($0, StillEncoding(format: .jpeg)) }),
        ("WebP q90", { try encoded($0, StillEncoding(format: .webp)) }),
        ("WebP lossless", { try encoded($0, StillEncoding(format: .webp, lossless: true)) }),
    ]
    for (name, encode) in encoders {
        var size = try encode(pixels).count
        var times: [Double] = []
        for _ in 0..<runs {
            let (bytes, ms) = try time { try encode(pixels) }
            (size, times) = (bytes.count, times + [ms])
        }
        let label = name.padding(toLength: 14, withPad: " ", startingAt: 0)
        print(label + String(format: " %8d bytes  %7.1f ms  (min %.1f, max %.1f)", size, median(times), times.min() ?? 0, times.max() ?? 0))
    }
}

/// `image` through `EncodedStillSink`, as `render -o card.jpg` encodes it.
func encoded(_ image: Image<RGBA8>, _ encoding: StillEncoding) throws -> [UInt8] {
    let sink = try EncodedStillSink(width: image.width, height: image.height, encoding: encoding, output: nil)
    try sink.write(image)
    return sink.bytes
}

if arguments.contains("--formats") {
    do {
        try formatFigures(runs: runs)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
let cases: [(String, Int, Int, Double)] = [("1920×1080", 1920, 1080, 260), ("3840×2160", 3840, 2160, 520)]
    + (arguments.contains("--8k") ? [("7680×4320", 7680, 4320, 1040)] : [])

print("mercurial-bench: \"Mercurial\", default font, \(runs) runs after 1 warm-up, \(ProcessInfo.processInfo.activeProcessorCount) cores; medians in ms")
print("canvas      text mask  height field  sphere (cached)  sphere (traced)  shaded material  render  PNG encode  render+encode  render (call)")
do {
    for (name, width, height, size) in cases {
        var settings = RenderSettings()
        settings.text = "Mercurial"
        settings.size = size
        settings.width = width
        settings.height = height
        var mask: [Double] = [], field: [Double] = [], cached: [Double] = [], traced: [Double] = []
        var material: [Double] = [], total: [Double] = [], encode: [Double] = [], call: [Double] = []
        for run in 0...runs {
            // The stages as the renderer times them, and the whole call timed from outside.
            let (title, callTime) = try time { try TitleRenderer.render(settings) }
            let (_, encodeTime) = try time { try encoder.encode(title.canvas) }
            let (_, traceTime) = time { ShadingLookup(ShadingSphere.render(settings.scene, size: ShadingSphere.lookupSize, antialiasedRim: false)) }
            guard run > 0 else { continue }
            mask.append(title.timings.mask)
            field.append(title.timings.heightField)
            cached.append(title.timings.shading)
            traced.append(traceTime)
            material.append(title.timings.material)
            total.append(title.timings.total)
            encode.append(encodeTime)
            call.append(callTime)
        }
        let cells = [mask, field, cached, traced, material, total, encode].map { String(format: "%.2f", median($0)) }
        let sum = String(format: "%.2f", median(zip(total, encode).map { $0 + $1 }))
        print(name.padding(toLength: 12, withPad: " ", startingAt: 0)
              + (cells + [sum, String(format: "%.2f", median(call))]).joined(separator: "  "))
    }
    print(String(format: "peak memory: %.0f MB", peakMemoryMB()))
} catch let error as MercurialError {
    FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
    exit(1)
}

// MARK: - Watch-mode latency

/// Starts `mercurial watch` on a 1920×1080 scene and times save → "rendered" line,
/// over `edits` saves (each waits for the previous render's line).
func watchLatency(edits: Int) throws -> [Double] {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("mercurial")
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mercurial-bench-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let scene = dir.appendingPathComponent("scene.json")
    func save(_ i: Int) throws {
        let json = #"{"text": "Mercurial", "size": 260, "width": 1920, "height": 1080, "shininess": \#(0.02 + Double(i % 10) * 0.001)}"#
        try Data(json.utf8).write(to: scene)
    }
    try save(0)
    let process = Process()
    process.executableURL = binary
    process.arguments = ["watch", scene.path, "-o", dir.appendingPathComponent("title.png").path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    defer { process.terminate(); process.waitUntilExit() }
    let reader = pipe.fileHandleForReading
    func nextLine() -> String {
        var line = Data()
        while true {
            let byte = reader.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }
    _ = nextLine()   // the first render
    var latencies: [Double] = []
    for i in 1...edits {
        let start = ContinuousClock.now
        try save(i)
        _ = nextLine()
        latencies.append(milliseconds(start.duration(to: .now)))
    }
    return latencies
}

if arguments.contains("--watch") {
    do {
        let latencies = try watchLatency(edits: max(runs, 20))
        print(String(format: "watch: save → PNG written at 1920×1080, median of %d edits: %.1f ms (min %.1f, max %.1f)",
                     latencies.count, median(latencies), latencies.min() ?? 0, latencies.max() ?? 0))
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}

// MARK: - Animation frame rate

/// Frames per second of `FrameRenderer` at 1920×1080 to a null sink (no encoder),
/// for an animation of the four sphere lights and two orbiting point lights over a
/// gradient (the shape is built once), for one whose radius changes (every
/// frame a full render), and for a letter-by-letter reveal and a slide in (each
/// frame measured is mid-way through them, at 60 frames a second).
func animationRates(frames: Int) throws -> [(String, Double, Int)] {
    var base = RenderSettings()
    base.text = "Mercurial"
    base.width = 1920
    base.height = 1080
    base.backgroundGradient = BackgroundGradient(gradient: Gradient(colors: [.black, RGBColor(r: 0.15, g: 0.1, b: 0.3)]))
    base.pointLights = [
        PointLight(x: 0, y: 0, color: RGBColor(r: 1, g: 0.3, b: 0.1), intensity: 0.9, range: 500),
        PointLight(x: 0, y: 0, color: RGBColor(r: 0.2, g: 0.5, b: 1), intensity: 0.9, range: 400),
    ]
    base.pointLights[0].orbit = Orbit(cx: 960, cy: 540, r: 600, period: 4)
    base.pointLights[1].orbit = Orbit(cx: 960, cy: 540, r: 400, period: -3)
    func track(_ key: String, _ from: Double, _ to: Double) throws -> Track {
        let p = try ParameterGroup.parameter(forKey: key)
        return Track(key: key, target: .parameter(p), keyframes: Keyframes([Keyframe(time: 0, value: .number(from)),
                                                                             Keyframe(time: 10, value: .number(to))]))
    }
    let lights = Timeline(duration: 10, fps: 30, tracks: [try track("light1.hue", 0, 1), try track("light2.x", -20, 20)])
    let shape = Timeline(duration: 10, fps: 30, tracks: [try track("radius", 6, 16)])
    var reveal = Timeline(duration: 10, fps: 60, tracks: lights.tracks)
    var rise = Entrance(.reveal)
    (rise.style, rise.stagger) = (.rise, 0.1)
    reveal.inOut = try InOut(entrance: rise, exit: nil, duration: 10)
    var slide = reveal
    var from = Entrance(.slide)
    (from.duration, from.slideDistance) = (1.5, 600)
    slide.inOut = try InOut(entrance: from, exit: nil, duration: 10)
    var results: [(String, Double, Int)] = []
    for (name, timeline) in [("lights, point lights, gradient", lights), ("radius (full render)", shape),
                             ("in: reveal (rise) over the lights", reveal), ("in: slide over the lights", slide)] {
        let renderer = try FrameRenderer(base: base, timeline: timeline)
        let count = min(frames, timeline.frameCount)
        let start = ContinuousClock.now
        for i in 0..<count { _ = try renderer.frame(i) }
        let seconds = milliseconds(start.duration(to: .now)) / 1000
        results.append((name, Double(count) / seconds, renderer.geometryBuilds))
    }
    return results
}

if arguments.contains("--animation") {
    do {
        for (name, fps, builds) in try animationRates(frames: max(runs, 60)) {
            print(String(format: "animation 1920×1080, %@: %.1f frames/s rendered (null sink), shape built %d times", name, fps, builds))
        }
    } catch let error as MercurialError {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        exit(1)
    }
}

// MARK: - Layer styles

/// What each layer style costs at 1920×1080 ("Mercurial" at 260 px over a colour): a
/// still's render call (median ms), and an animation to a null sink whose light hue and
/// shadow distance move (the styles' masks kept), frames/s. `only`: these styles instead
/// of the list below; `hueTo`: where light 1's hue goes in the 2 s (hues go round the short
/// way, so 1 is where it starts and the lights hold still); `fade`: the title's opacity moves too.
func styleCosts(runs: Int, only: [(String, LayerStyles)]? = nil, hueTo: Double = 0.5,
                fade: Bool = false) throws -> [(String, Double, Double)] {
    var base = RenderSettings()
    base.text = "Mercurial"
    base.size = 260
    base.width = 1920
    base.height = 1080
    base.background = RGBColor(r: 0.2, g: 0.25, b: 0.3)
    var styles: [(String, LayerStyles)] = [("none", LayerStyles())]
    var one = LayerStyles()
    one.dropShadow = DropShadow()
    styles.append(("dropShadow", one))
    one = LayerStyles(); one.dropShadow = DropShadow(); one.dropShadow?.size = 40; one.dropShadow?.distance = 20
    styles.append(("dropShadow size 40", one))
    one = LayerStyles(); one.outerGlow = OuterGlow()
    styles.append(("outerGlow", one))
    one = LayerStyles(); one.stroke = Stroke()
    styles.append(("stroke", one))
    one = LayerStyles(); one.innerShadow = InnerShadow()
    styles.append(("innerShadow", one))
    one = LayerStyles(); one.dropShadow = DropShadow(); one.outerGlow = OuterGlow(); one.stroke = Stroke(); one.innerShadow = InnerShadow()
    styles.append(("all four", one))
    let hue = try ParameterGroup.parameter(forKey: "light1.hue")
    let opacity = try ParameterGroup.parameter(forKey: "opacity")
    var results: [(String, Double, Double)] = []
    for (name, s) in only ?? styles {
        var settings = base
        settings.look.styles = s
        var still: [Double] = []
        for run in 0...runs {
            let ms = try time { try TitleRenderer.render(settings) }.1
            if run > 0 { still.append(ms) }
        }
        var tracks = [Track(key: "light1.hue", target: .parameter(hue),
                            keyframes: Keyframes([Keyframe(time: 0, value: .number(0)), Keyframe(time: 2, value: .number(hueTo))]))]
        if fade {
            tracks.append(Track(key: "opacity", target: .parameter(opacity),
                                keyframes: Keyframes([Keyframe(time: 0, value: .number(1)), Keyframe(time: 2, value: .number(0.5))])))
        }
        if s.dropShadow != nil, let leaf = SceneSchema.leaf(at: "dropShadow.distance") {
            tracks.append(Track(key: "dropShadow.distance", target: .leaf(path: "dropShadow.distance", leaf),
                                keyframes: Keyframes([Keyframe(time: 0, value: .number(0)), Keyframe(time: 2, value: .number(30))])))
        }
        let timeline = Timeline(duration: 2, fps: 60, tracks: tracks)
        let renderer = try FrameRenderer(base: settings, timeline: timeline)
        let start = ContinuousClock.now
        for i in 0..<timeline.frameCount { _ = try renderer.frame(i) }
        let seconds = milliseconds(start.duration(to: .now)) / 1000
        results.append((name, median(still), Double(timeline.frameCount) / seconds))
    }
    return results
}

if arguments.contains("--styles") {
    do {
        print("layer styles at 1920×1080 (\(runs) runs): still render call (median ms); animation, light hue and shadow distance moving, to a null sink (frames/s)")
        for (name, ms, fps) in try styleCosts(runs: runs) {
            print(name.padding(toLength: 20, withPad: " ", startingAt: 0) + String(format: "%8.2f ms  %7.1f frames/s", ms, fps))
        }
    } catch let error as MercurialError {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        exit(1)
    }
}

// A stroke in the title's metal against a colour stroke of the same width, in one run:
// stills, frames whose lights move (the metal shaded again each frame) and frames that
// fade under still lights (the shaded metal kept).
if arguments.contains("--stroke-material") {
    do {
        var colour = LayerStyles(), metal = LayerStyles()
        colour.stroke = Stroke()
        colour.stroke?.width = 8
        metal.stroke = colour.stroke
        metal.stroke?.paint = .material
        let pair = [("stroke 8 px black", colour), ("stroke 8 px material", metal)]
        let lights = try styleCosts(runs: runs, only: pair)
        let fading = try styleCosts(runs: runs, only: pair, hueTo: 0, fade: true)
        print("strokes at 1920×1080 (\(runs) runs): still render call (median ms); frames/s with light 1's hue moving; with the opacity moving")
        for ((name, ms, fps), (_, _, still)) in zip(lights, fading) {
            print(name.padding(toLength: 22, withPad: " ", startingAt: 0) + String(format: "%8.2f ms  %7.1f frames/s  %7.1f frames/s", ms, fps, still))
        }
    } catch let error as MercurialError {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        exit(1)
    }
}

// MARK: - Editor frame

/// The editor's work for one slider step at 1920×1080 (the browser test's scene, two
/// lines): a light's hue changed, rendered by a kept `FrameRenderer` as the editor
/// renders, and its parts (the shading sphere's lookup for the new colour, summed from
/// the kept light layers; the rest, drawn into the canvas of a frame let go of, as the
/// editor draws it). Medians in ms.
func editorFrameTimes(runs: Int) throws -> [(String, Double)] {
    var settings = RenderSettings()
    try settings.set(assignment: "text=Flex Monkey\nMercurial Text")
    settings.width = 1920
    settings.height = 1080
    let renderer = try FrameRenderer(base: settings, timeline: Timeline(duration: 1))
    // As the editor does: the last four frames kept (for deltas), and each frame drawn
    // into the canvas of the one let go of.
    var kept: [(image: Image<RGBA8>, settings: RenderSettings)] = []
    var render: [Double] = [], trace: [Double] = []
    for i in 0...runs {
        try settings.set(assignment: "light1.hue=\(0.2 + 0.6 * Double(i % 50) / 50)")
        let (_, traceMs) = time { ShadingSphere.lookup(settings.scene) }   // built here, then cached for the render
        var (canvas, shown): (Image<RGBA8>, RenderSettings?) = (Image(width: 0, height: 0, repeating: .clear), nil)
        if kept.count == 4 { (canvas, shown) = kept.removeFirst() }
        let ms = try time { try renderer.render(settings, into: &canvas, showing: shown) }.1
        kept.append((canvas, settings))
        if i > 0 { render.append(ms); trace.append(traceMs) }
    }
    return [("shading sphere for the new hue", median(trace)), ("the rest of the render", median(render))]
}

if arguments.contains("--editor") {
    do {
        for (name, ms) in try editorFrameTimes(runs: max(runs, 30)) {
            print(String(format: "editor frame 1920×1080, %@: %.2f ms", name, ms))
        }
    } catch let error as MercurialError {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        exit(1)
    }
}

// MARK: - Shading sphere lookups

/// The 256² shading lookup as a slider step builds it: a light's colour changed
/// (the kept layers summed, nothing traced), a light moved (its layer traced, then
/// all summed), and the whole sphere traced as `ShadingSphere.render` does it, for
/// comparison. Medians in ms.
func sphereLookupTimes(runs: Int) -> [(String, Double)] {
    var scene = ShadingScene()
    let size = ShadingSphere.lookupSize
    var colour: [Double] = [], moved: [Double] = [], traced: [Double] = []
    _ = ShadingSphere.lookup(scene, size: size)
    for i in 0..<runs {
        scene.lights[0].hue = 0.2 + 0.6 * Double(i % 50) / 50
        colour.append(time { ShadingSphere.lookup(scene, size: size) }.1)
        scene.lights[1].position.x = 25 + Double(i % 50) / 10
        moved.append(time { ShadingSphere.lookup(scene, size: size) }.1)
        traced.append(time { ShadingLookup(ShadingSphere.render(scene, size: size, antialiasedRim: false)) }.1)
    }
    return [("a light's colour changed", median(colour)), ("a light moved", median(moved)),
            ("the whole sphere traced", median(traced))]
}

if arguments.contains("--sphere") {
    for (name, ms) in sphereLookupTimes(runs: max(runs, 30)) {
        print(String(format: "shading lookup %d², %@: %.2f ms", ShadingSphere.lookupSize, name, ms))
    }
}
