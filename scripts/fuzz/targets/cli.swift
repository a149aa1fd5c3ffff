// libFuzzer target `cli`: a command line, through the real front end.
//
// The input is an argument vector: its bytes split at each NUL into at most
// 32 arguments (a trailing NUL ends the last one; more are left out). They
// go to swift-argument-parser through `Mercurial.parse`, as `mercurial`'s
// main does, with the program's own commands, options and flags
// (Sources/mercurial/*.swift, compiled into this binary), then the command
// that comes back does what its `run` does before drawing anything:
//
// - render: OutputFile.validate of -o, the settings (material, --params scene,
//   text, the parameter flags, --set), the output checked against the inputs,
//   TitleRenderer.validate, and the font resolved (unless there is a --mask);
// - watch: the same for its scene argument;
// - animate: the scene file checked, AnimationFormat.forPath of -o (--codec),
//   the settings and the scene's animation (the Timeline reader), the
//   output checks, then the timeline evaluated at its first, middle and last
//   frames, each frame's settings validated;
// - shading, params: their checks and settings; params builds its JSON;
// - materials, fonts, help: nothing (they only print).
//
// A usage error, --help, --version or a completion script ends as main ends
// it: the full message (help text, script) is built. Nothing is rendered and
// no file is written (`-o` is only validated), so the working folder is the
// repository (examples/, materials/, fonts/ resolve). Errors are expected;
// crashes, leaks and hangs are findings. MERCURIAL_FUZZ_VERBOSE=1 prints each
// argument vector and its outcome.

import ArgumentParser
@testable import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

/// The most arguments taken from one input (a real command line rarely has more).
let maximumFuzzArguments = 32

/// The input's bytes as arguments, split at NUL. Invalid UTF-8 is repaired, as
/// `CommandLine.arguments` repairs it.
func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> [String] {
    guard size > 0 else { return [] }
    var pieces = UnsafeBufferPointer(start: data, count: size).split(separator: 0, omittingEmptySubsequences: false)
    if pieces.count > 1 && pieces.last!.isEmpty { pieces.removeLast() }   // a trailing NUL
    return pieces.prefix(maximumFuzzArguments).map { String(decoding: $0, as: UTF8.self) }
}

/// What `Render.run` does before rendering.
func checkRender(_ command: Render) throws {
    try OutputFile.validate(command.options.output)
    let settings = try command.options.resolvedSettings(text: command.text, sceneFile: command.sceneOption.sceneFile)
    try InputFiles.checkOutput(command.options.output,
                               against: InputFiles.of(settings, sceneFile: command.sceneOption.sceneFile))
    try checkSettings(settings)
}

/// What `Watch.run` does before it starts watching, then a first render's checks.
func checkWatch(_ command: Watch) throws {
    try InputFile.refuseIfNotRegular(command.scene, role: "scene file")
    try OutputFile.validate(command.options.output)
    try InputFiles.checkOutput(command.options.output, against: [("scene file", command.scene)])
    let settings = try command.options.resolvedSettings(sceneFile: command.scene)
    try InputFiles.checkOutput(command.options.output, against: InputFiles.of(settings, sceneFile: command.scene))
    try checkSettings(settings)
}

/// What `Animate.run` does before the first frame (FrameRenderer's checks
/// without its first render), then the timeline at three frames.
func checkAnimate(_ command: Animate) throws {
    let options = command.options
    try InputFile.refuseIfNotRegular(command.scene, role: "scene file")
    let format = try AnimationFormat.forPath(options.output, movCodec: command.codec)
    var (settings, timeline) = try options.materialOptions.settingsAndTimeline(sceneFile: command.scene, flags: [options])
    guard let timeline else { throw MercurialError("no animation") }
    if format == .mp4 && settings.background == nil && settings.backgroundGradient == nil {
        settings.background = .black
    }
    if case .pngSequence = format {} else if format != .null {
        try OutputFile.validate(options.output)
        try InputFiles.checkOutput(options.output, against: InputFiles.of(settings, sceneFile: command.scene))
    }
    try TitleRenderer.validate(settings)
    try checkTimeline(timeline, base: settings)
}

/// The checks a render makes on its settings before drawing.
func checkSettings(_ settings: RenderSettings) throws {
    try TitleRenderer.validate(settings)
    if settings.mask == nil { _ = try FontLibrary.resolve(settings.font) }
    _ = TextLayout(text: settings.text ?? "", fontPath: settings.font).lines
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: OpaquePointer?, _ argv: OpaquePointer?) -> CInt {
    // Relative paths in arguments resolve in the repository (fuzz.sh sets MERCURIAL_DATA to it).
    if let data = getenv("MERCURIAL_DATA") { chdir(data) }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzSample()
    let arguments = fuzzArguments(data, size)
    if fuzzVerbose { print("fuzz: arguments", arguments.map { "'\($0)'" }.joined(separator: " ")) }
    var outcome: String
    do {
        let command = try Mercurial.parse(arguments)
        outcome = "\(type(of: command))"
        switch command {
        case let render as Render: try checkRender(render)
        case let watch as Watch: try checkWatch(watch)
        case let animate as Animate: try checkAnimate(animate)
        case let shading as Shading:
            guard Shading.sizeRange.contains(shading.size) else { break }
            try OutputFile.validate(shading.output)
            let settings = try shading.materialOptions.settings(sceneFile: shading.sceneOption.sceneFile)
            try InputFiles.checkOutput(shading.output, against: InputFiles.of(settings, sceneFile: shading.sceneOption.sceneFile))
        case let params as Params:
            let settings = try params.materialOptions.settings(sceneFile: params.sceneOption.sceneFile)
            if params.json { _ = ParameterGroup.json(values: settings) }
        default:
            break
        }
        outcome += " ok"
    } catch let error as MercurialError {
        outcome = "MercurialError"
        if fuzzVerbose { print("fuzz: error:", error.message) }
    } catch {
        // As main does: the full message (usage error, help, version, completion script).
        let parser = Mercurial.parser(for: arguments)
        let message = parser.fullMessage(for: error)
        let code = parser.exitCode(for: error)
        outcome = "exit \(code.rawValue)"
        if fuzzVerbose { print("fuzz: \(outcome):", message.prefix(300)) }
    }
    fuzzFeedback(feedbackValue(outcome))
    return 0
}
