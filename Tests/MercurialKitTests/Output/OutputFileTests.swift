import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// A file streamed into an `OutputFolder` (batch's titles, band by band) keeps the
/// folder's rules, as a file written whole there does.
@Suite struct OutputFolderTests {
    /// A title streamed to a name that is a symbolic link is refused, the link's target
    /// untouched; a link planted while a file is written is replaced, not written through;
    /// a streamed title appears whole, with the pixels of the in-memory render.
    @Test func aFileStreamedIntoTheFolderNeverFollowsALink() throws {
        let dir = try StreamingRenderTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out"), outside = dir.appendingPathComponent("outside.png")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: outside)
        let folder = try OutputFolder(out.path, create: false)
        var settings = RenderSettings()
        settings.text = "Hg"
        settings.size = 40

        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("a.png").path,
                                                   withDestinationPath: "../outside.png")
        do {
            _ = try TitleRenderer.renderPNG(settings, compression: .fast, force: true, output: .folder(folder, name: "a.png"))
            Issue.record("a title was streamed through a link")
        } catch {
            #expect(error.message.contains("is a symbolic link, which a derived output never follows"), "\(error.message)")
        }
        #expect(try Data(contentsOf: outside) == Data("keep".utf8))

        let stream = try OutputTarget.folder(folder, name: "b.png").open()
        try stream.write(Array("new".utf8))
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("b.png").path,
                                                   withDestinationPath: "../outside.png")
        try stream.commit()
        #expect(try Data(contentsOf: outside) == Data("keep".utf8))
        let kind = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("b.png").path)[.type]
        #expect(kind as? FileAttributeType == .typeRegular)
        #expect(try Data(contentsOf: out.appendingPathComponent("b.png")) == Data("new".utf8))

        guard case .streamed = try TitleRenderer.renderPNG(settings, compression: .fast, force: true,
                                                           output: .folder(folder, name: "c.png")) else {
            Issue.record("not streamed")
            return
        }
        let written = try PNGFile.decode([UInt8](Data(contentsOf: out.appendingPathComponent("c.png"))), name: "c", role: "output")
        #expect(try same(written.pixels, (try TitleRenderer.render(settings).image.pixels)))
        #expect(CLI.temporaryFiles(in: out).isEmpty)
    }
}
