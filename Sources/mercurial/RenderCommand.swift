import ArgumentParser
import Foundation
import MercurialKit

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a title to a PNG.",
        discussion: """
        Examples:
          mercurial render "Flex Monkey Mercurial Text"
          mercurial render "Gold\\nStandard" --material gold --size 200 -o gold.png
          mercurial render --params scene.json --set light2.hue=0.6 -o title.png
          mercurial render "Chisel" --profile chisel --set size=200 --set align=left
          mercurial render --mask logo.png --material chrome -o logo-metal.png
        """
    )

    @Argument(help: "The text; \\n or a real newline starts a new line. (Or \"text\" in the scene file.)")
    var text: String?

    @OptionGroup var options: RenderOptions

    func run() throws {
        try OutputFile.validate(options.output)
        let settings = try options.resolvedSettings(text: text)
        try InputFiles.checkOutput(options.output, against: InputFiles.of(settings, sceneFile: options.materialOptions.sceneFile))
        let size: (width: Int, height: Int)
        // A large mask is rendered in bands straight into the output (opened at its first
        // bytes); anything else in memory.
        let output = LazyOutput(options.output)
        do {
            switch try TitleRenderer.renderOrStream(settings, compression: options.compression, output: output.write) {
            case .streamed(let streamed):
                try output.commit()
                streamed.warnings.forEach(warn)
                size = (streamed.width, streamed.height)
            case .rendered(let title):
                title.warnings.forEach(warn)
                try OutputFile.write(try options.encoder.encode(title.canvas), to: options.output)
                size = (title.width, title.height)
            }
        } catch {
            output.discard()
            throw error
        }
        if !options.quiet {
            // With the PNG on standard output, the summary goes with the diagnostics.
            let line = "\(options.output) \(size.width)×\(size.height)"
            if OutputFile.isStandardOutput(options.output) { Console.error(line) } else { Console.output(line) }
        }
    }
}

/// An output opened when its first bytes are written.
final class LazyOutput {
    private let path: String
    private var stream: OutputFile.Stream?

    init(_ path: String) { self.path = path }

    func write(_ bytes: UnsafeRawBufferPointer) throws(MercurialError) {
        if let stream {
            try stream.write(bytes)
        } else {
            let stream = try OutputFile.Stream(path)
            self.stream = stream
            try stream.write(bytes)
        }
    }

    func commit() throws(MercurialError) { try stream?.commit() }
    func discard() { stream?.discard() }
}
