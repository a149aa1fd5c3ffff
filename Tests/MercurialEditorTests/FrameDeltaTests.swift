import Testing
@testable import MercurialEditor
@testable import MercurialKit
import MercurialTestSupport

/// The editor's frame deltas (runs of changed pixels, see FrameDelta.swift).
@Suite struct FrameDeltaTests {
    static func noise(width: Int, height: Int, seed: UInt64) -> Image<RGBA8> {
        var state = seed
        let pixels = (0..<(width * height)).map { _ -> RGBA8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let v = UInt32(truncatingIfNeeded: state >> 32)
            return RGBA8(r: UInt8(v & 0xff), g: UInt8((v >> 8) & 0xff), b: UInt8((v >> 16) & 0xff), a: UInt8(v >> 24))
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// How many pixels differ (a count reads better than two arrays in a failure).
    static func differing(_ a: [RGBA8], _ b: [RGBA8]) -> Int {
        a.count != b.count ? max(a.count, b.count) : zip(a, b).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
    }

    /// The words of a delta's header: magic, width, height, frame, base, x0, y0, x1, y1.
    static func header(_ delta: [UInt8]) -> [Int] {
        (0..<9).map { k -> Int in
            let bytes = delta[(4 * k)..<(4 * k + 4)].map(Int.init)
            return bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
        }
    }

    /// Changes at the first and last pixels, runs across a row's end, gaps of every
    /// length around the joining gap, and a lone pixel: applied to the base, the
    /// delta gives the new frame exactly, and its rectangle bounds every change.
    @Test(arguments: [(17, 9), (1, 1), (64, 3), (3, 40)])
    func aDeltaTurnsTheBaseIntoTheFrame(_ width: Int, _ height: Int) throws {
        let base = Self.noise(width: width, height: height, seed: 7)
        var changed = base
        var touched: [(Int, Int)] = []
        let count = width * height
        let middle = count / 2
        let spots: [Int] = [0, count - 1, middle, middle + 2, middle + 5, middle + 9, middle + 14]
        let acrossARowEnd: [Int] = Array(stride(from: width - 2, to: min(count, width + 3), by: 1))
        for i in spots + acrossARowEnd where i >= 0 && i < count && !touched.contains(where: { $0 == (i % width, i / width) }) {
            let (x, y) = (i % width, i / width)
            changed[x, y] = RGBA8(r: ~base[x, y].r, g: base[x, y].g, b: base[x, y].b, a: base[x, y].a)
            touched.append((x, y))
        }
        let delta = FrameDelta.encode(changed, frame: 12, from: base, baseNumber: 11)
        var pixels = base.pixels
        #expect(try FrameDelta.apply(delta, to: &pixels, width: width, height: height) == 12)
        #expect(Self.differing(pixels, changed.pixels) == 0)
        let h = Self.header(delta)
        #expect(h[0] == Int(FrameDelta.magic) && h[1] == width && h[2] == height && h[3] == 12 && h[4] == 11)
        for (x, y) in touched { #expect(x >= h[5] && x < h[7] && y >= h[6] && y < h[8], "(\(x), \(y)) outside \(h[5...8])") }
        // Far fewer bytes than the frame when little changed.
        if count >= 64 { #expect(delta.count < count * 4) }
    }

    /// A canvas large enough to be scanned in pieces on several cores: runs that
    /// cross a piece's end, and the rectangle, must come out as from one scan.
    @Test func aLargeCanvasScannedInPiecesGivesTheFrame() throws {
        let (width, height) = (640, 360)
        let base = Self.noise(width: width, height: height, seed: 11)
        var changed = base
        let count = width * height
        for i in Array((count / 2 - 5)..<(count / 2 + 5)) + Array((count / 3 - 2)..<(count / 3 + 2)) + [0, count - 1] {
            changed[i % width, i / width] = RGBA8(r: 1, g: 2, b: 3, a: 4)
        }
        let delta = FrameDelta.encode(changed, frame: 3, from: base, baseNumber: 2)
        var pixels = base.pixels
        #expect(try FrameDelta.apply(delta, to: &pixels, width: width, height: height) == 3)
        #expect(Self.differing(pixels, changed.pixels) == 0)
        #expect(Array(Self.header(delta)[5...8]) == [0, 0, width, height])
        #expect(delta.count < 200 * 4, "\(delta.count) bytes for 16 changed pixels")
        // From nothing, the same frame.
        var fresh = [RGBA8](repeating: RGBA8(r: 9, g: 9, b: 9, a: 9), count: count)
        _ = try FrameDelta.apply(FrameDelta.encode(changed, frame: 4, from: nil, baseNumber: 0), to: &fresh, width: width, height: height)
        #expect(Self.differing(fresh, changed.pixels) == 0)
    }

    @Test func fromNothingItIsTheWholeFrameAndTransparentPixelsAreNotSent() throws {
        var image = Image<RGBA8>(width: 50, height: 20, repeating: RGBA8(r: 0, g: 0, b: 0, a: 0))
        for x in 10..<20 { image[x, 5] = RGBA8(r: 200, g: 100, b: 50, a: 255) }
        let delta = FrameDelta.encode(image, frame: 1, from: nil, baseNumber: 0)
        // Header, and one run of 10 pixels with its two words.
        #expect(delta.count == (9 + 2 + 10) * 4)
        var pixels = [RGBA8](repeating: RGBA8(r: 9, g: 9, b: 9, a: 9), count: 1000)
        _ = try FrameDelta.apply(delta, to: &pixels, width: 50, height: 20)
        #expect(Self.differing(pixels, image.pixels) == 0)
        #expect(Array(Self.header(delta)[4...8]) == [0, 0, 0, 50, 20])   // from a clear canvas, all of it is uploaded
    }

    @Test func anUnchangedFrameIsJustTheHeader() throws {
        let image = Self.noise(width: 30, height: 30, seed: 3)
        let delta = FrameDelta.encode(image, frame: 5, from: image, baseNumber: 5)
        #expect(delta.count == 9 * 4)
        #expect(Array(Self.header(delta)[5...8]) == [0, 0, 0, 0])
    }

    @Test func aDamagedDeltaIsRefused() {
        let image = Self.noise(width: 8, height: 8, seed: 1)
        var delta = FrameDelta.encode(image, frame: 2, from: nil, baseNumber: 0)
        var pixels = image.pixels
        #expect(throws: MercurialError.self) { try FrameDelta.apply(Array(delta.prefix(20)), to: &pixels, width: 8, height: 8) }
        #expect(throws: MercurialError.self) { try FrameDelta.apply(delta, to: &pixels, width: 9, height: 8) }
        delta[9 * 4 + 4] = 0xff   // the first run's count overruns the canvas
        #expect(throws: MercurialError.self) { try FrameDelta.apply(delta, to: &pixels, width: 8, height: 8) }
    }
}
