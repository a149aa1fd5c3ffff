import Foundation
import Testing
import MercurialTestSupport
@testable import MercurialKit

/// The output protocol: a frame given in bands makes the output a frame given whole makes.
@Suite struct RowSinkTests {
    static func picture(width: Int, height: Int, seed: Int) -> Image<RGBA8> {
        var image = Image<RGBA8>(width: width, height: height, repeating: .clear)
        for y in 0..<height {
            for x in 0..<width {
                image[x, y] = RGBA8(r: UInt8((x * 7 + seed) & 255), g: UInt8((y * 13 + seed) & 255),
                                    b: UInt8((x * y + seed) & 255), a: UInt8((x + y * 3) & 255))
            }
        }
        return image
    }

    /// Appends `image` in bands of `band` rows, then ends the frame.
    static func append(_ image: Image<RGBA8>, to sink: any RowSink, band: Int) throws {
        try image.withUnsafeBufferPointer { pixels in
            var y = 0
            while y < image.height {
                let rows = (y..<min(y + band, image.height)).map { row in
                    UnsafeRawPointer(pixels.baseAddress! + row * image.width).assumingMemoryBound(to: UInt8.self)
                }
                try sink.append(rows: rows)
                y += band
            }
        }
        try sink.endFrame()
    }

    @Test(arguments: [1, 5, 16])
    func bandsMakeTheSamePNGAsAWholeFrame(band: Int) throws {
        let image = Self.picture(width: 23, height: 17, seed: band)
        for compression in PNGFile.Compression.allCases {
            let whole = try PNGSink(compression: compression).encode(image)
            let banded = PNGSink(width: 23, height: 17, compression: compression)
            try Self.append(image, to: banded, band: band)
            #expect(banded.bytes == whole, "\(compression), bands of \(band)")
        }
    }

    @Test func anImageSinkKeepsEachFrame() throws {
        let frames = [Self.picture(width: 9, height: 7, seed: 1), Self.picture(width: 9, height: 7, seed: 2)]
        let sink = ImageSink(width: 9, height: 7)
        try Self.append(frames[0], to: sink, band: 3)
        try sink.write(frames[1])
        try sink.finish()
        #expect(same(sink.frames.map(\.pixels), frames.map(\.pixels)))
    }

    @Test func bandsMakeTheSameAPNGAndSequenceAsWholeFrames() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rowsink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = (0..<3).map { Self.picture(width: 31, height: 19, seed: $0 * 40) }
        for format in [AnimationFormat.apng, .pngSequence(pattern: dir.path + "/whole-%02d.png")] {
            let wholePath = dir.appendingPathComponent("whole.png").path
            let bandedPath = dir.appendingPathComponent("banded.png").path
            let whole = try format.sink(path: wholePath, width: 31, height: 19, fps: 10, frameCount: 3, loop: true)
            for frame in frames { try whole.write(frame) }
            try whole.finish()
            let bandedFormat = format == .apng ? format : .pngSequence(pattern: dir.path + "/banded-%02d.png")
            let banded = try bandedFormat.sink(path: bandedPath, width: 31, height: 19, fps: 10, frameCount: 3, loop: true)
            for frame in frames { try Self.append(frame, to: banded, band: 4) }
            try banded.finish()
            let pairs = format == .apng ? [(wholePath, bandedPath)]
                : (0..<3).map { (dir.path + "/whole-0\($0).png", dir.path + "/banded-0\($0).png") }
            for (a, b) in pairs {
                #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)), "\(format): \(b)")
            }
            if format != .apng {
                #expect(try same(PNGFile.read(dir.path + "/banded-02.png", role: "test").pixels, frames[2].pixels))
            }
        }
    }
}

@Suite struct RowSinkVideoTests {
    /// Rows that are not one after another in memory (a shared row of fill) reach ffmpeg as rows.
    @Test func aCanvasWithSharedFillRowsMakesTheSameVideoAsItsImage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rowsink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = RowSinkTests.picture(width: 20, height: 6, seed: 9)
        let canvas = CanvasRegion(width: 32, height: 24, content: content, originX: 5, originY: 9,
                                  fill: RGBA8(r: 10, g: 200, b: 30, a: 255))
        var outputs: [Data] = []
        for (name, writeFrame) in [("image", { (sink: any RowSink) throws in try sink.write(canvas.image) }),
                                   ("canvas", { (sink: any RowSink) throws in try sink.write(canvas) })] {
            let path = dir.appendingPathComponent("\(name).mov").path
            let sink = try AnimationFormat.mov(.qtrle).sink(path: path, width: 32, height: 24, fps: 10, frameCount: 2,
                                                            loop: false)
            for _ in 0..<2 { try writeFrame(sink) }
            try sink.finish()
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        #expect(outputs[0] == outputs[1])
    }
}
