// libFuzzer target `scene`: a scene file as the command line reads one.
//
// The input is written to a scratch file and read with SceneFile.load (JSON
// parse with positions, then the material it names, then every key applied to
// RenderSettings through the parameter model), then checked with
// TitleRenderer.validate, the checks a render makes before drawing, and the
// font named is looked up as a render does it (FontLibrary.resolve: a bundled
// name, a path, or an installed font through fontconfig). A scene with an
// "animation" has its timeline evaluated at the first, middle and last frames
// (keyframes, timing functions, point lights, the background gradient), each
// frame's settings validated as `animate` does. Errors are expected; crashes,
// leaks and hangs are findings. Nothing is rendered.

@testable import MercurialKit

let scenePath = fuzzScratchFolder + "/scene.json"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzSample()
    writeFuzzInput(data, size, to: scenePath)
    var settings = RenderSettings()
    do {
        let timeline = try SceneFile.load(scenePath, into: &settings)
        try TitleRenderer.validate(settings)
        if let timeline { try checkTimeline(timeline, base: settings) }
        if settings.mask == nil { _ = try FontLibrary.resolve(settings.font) }
        _ = TextLayout(text: settings.text ?? "", fontPath: settings.font).lines
        _ = settings.margin
        for parameter in ParameterGroup.allParameters {
            _ = parameter.value(in: settings).description
        }
    } catch {
        let message = error.message
        if fuzzVerbose { print("fuzz: error:", message) }
    }
    return 0
}
