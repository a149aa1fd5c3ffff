/// Motion blur for moves (`animation.motionBlur`), as a film camera's shutter gives it: each
/// frame is the average of `samples` frames spread over the time the shutter is open,
/// `shutter` degrees of the frame's 360 (180: half the frame's time), centred on the frame's
/// time (After Effects' shutter phase of −shutter/2). Only what moves the drawn title is
/// sampled — its move, zoom, slide off the canvas and opacity, from `in`, `out` and tracks,
/// a layer's too — the rest holds the frame's own values, so a frame where nothing moves is
/// made once and is the still's.
public struct MotionBlur: Sendable, Equatable {
    public var shutter = 180.0
    public var samples = 8

    public init() {}

    public static let shutterRange: ClosedRange<Double> = 1...720
    public static let sampleRange: ClosedRange<Int> = 2...64

    /// The times the shutter samples for the frame at `time`, at `fps`.
    func times(around time: Double, fps: Double) -> [Double] {
        let open = shutter / 360 / fps
        return (0..<samples).map { time + open * ((Double($0) + 0.5) / Double(samples) - 0.5) }
    }
}

extension RenderSettings {
    /// These settings with the move of `moved` (shift, zoom, the slide off the canvas,
    /// opacity; each layer's too): a sample of a blurred frame.
    func taking(moveOf moved: RenderSettings) -> RenderSettings {
        var s = self
        s.look.takeMove(of: moved.look)
        for i in s.layers.indices where i < moved.layers.count {
            s.layers[i].settings.look.takeMove(of: moved.layers[i].settings.look)
        }
        return s
    }
}

extension TitleLookSettings {
    mutating func takeMove(of other: TitleLookSettings) {
        (shiftX, shiftY, zoom, clearX, clearY, opacity) = (other.shiftX, other.shiftY, other.zoom, other.clearX, other.clearY, other.opacity)
    }
}

/// A blurred frame's samples added up (premultiplied, 16 bits a channel) and averaged.
struct SampleSum {
    private var sums: [SIMD4<UInt32>]
    private var count: UInt32 = 0
    let width: Int, height: Int

    init(width: Int, height: Int) {
        (self.width, self.height) = (width, height)
        sums = [SIMD4<UInt32>](repeating: .zero, count: width * height)
    }

    /// Adds `frame` (straight alpha, this size).
    mutating func add(_ frame: Image<RGBA8>) {
        precondition(frame.width == width && frame.height == height, "a sample of another size")
        count += 1
        frame.withUnsafeBufferPointer { f in
            sums.withUnsafeMutableBufferPointer { s in
                parallelBands(height, minimumBand: 16) { rows in
                    for i in (rows.lowerBound * width)..<(rows.upperBound * width) {
                        let p = f[i], a = UInt32(p.a)
                        guard a > 0 else { continue }
                        s[i] &+= SIMD4(UInt32(p.r) * a, UInt32(p.g) * a, UInt32(p.b) * a, a * 255)
                    }
                }
            }
        }
    }

    /// The average, straight alpha, into `out` (made this size).
    func average(into out: inout Image<RGBA8>) {
        if out.width != width || out.height != height { out = Image(width: width, height: height, repeating: .clear) }
        let n = max(count, 1)
        sums.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                parallelBands(height, minimumBand: 16) { rows in
                    for i in (rows.lowerBound * width)..<(rows.upperBound * width) {
                        let v = s[i]
                        // Alpha: the mean of the samples' (a × 255 summed); colours: premultiplied sums over the alpha's.
                        let alpha = (v.w + n * 255 / 2) / (n * 255)
                        guard v.w > 0, alpha > 0 else { o[i] = .clear; continue }
                        let half = v.w / 255 / 2
                        o[i] = RGBA8(r: UInt8(min((v.x + half) / (v.w / 255), 255)), g: UInt8(min((v.y + half) / (v.w / 255), 255)),
                                     b: UInt8(min((v.z + half) / (v.w / 255), 255)), a: UInt8(min(alpha, 255)))
                    }
                }
            }
        }
    }
}
