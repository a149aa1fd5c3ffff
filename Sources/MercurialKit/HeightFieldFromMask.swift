/// The shape of the loft across a stroke.
public enum LoftProfile: String, Sendable, CaseIterable, Equatable {
    /// Soft rounded tubes with smooth joins, like the original app's Core Image loft (the default).
    case liquid
    /// A quarter-sine bevel from the edge, flat beyond the radius: crisp mitred corners.
    case chisel
    /// A quarter-circle fillet from the edge, flat beyond the radius.
    case round
}

/// Turns a coverage mask into a smooth loft, like Core Image's CIHeightFieldFromMask.
///
/// The height is 0 on the mask's edge (the 0.5 contour of the anti-aliased
/// coverage, found to sub-pixel accuracy), rises as a quarter sine to 1 at
/// `inputRadius` pixels inside, and is flat beyond. With `inputScale` equal to
/// `inputRadius` in the shaded material the bevel's slope runs from 57.5° at the
/// edge to flat, close to a round fillet but without the fillet's vertical wall.
///
/// Just outside the edge the loft goes on falling with the edge's slope for
/// `skirtWidth` pixels (heights below 0, then 0 again) so that the anti-aliased edge pixels
/// get normals as clean as those inside; those pixels are drawn with their
/// coverage as alpha, so the skirt never shows as a shape of its own.
public struct HeightFieldFromMask: Sendable {
    /// Bevel width in pixels. Default 10, range 0.5…200.
    public var inputRadius: Float = 10
    /// The shape of the loft across a stroke.
    public var inputProfile: LoftProfile = .liquid
    public static let radiusRange: ClosedRange<Float> = 0.5...200
    public static let skirtWidth: Float = 3

    public init(inputRadius: Float = 10, inputProfile: LoftProfile = .liquid) {
        self.inputRadius = inputRadius
        self.inputProfile = inputProfile
    }

    /// The height for a signed distance `d` in pixels (positive inside).
    @inline(__always)
    static func height(signedDistance d: Float, radius: Float) -> Float {
        let t = d / radius
        if t >= 1 { return 1 }
        if t >= 0 { return sin(t * (Float.pi / 2)) }
        return d >= -skirtWidth ? d / radius * (Float.pi / 2) : 0
    }

    public func outputImage(_ mask: Mask) -> HeightField {
        precondition(inputRadius > 0, "inputRadius must be positive, got \(inputRadius)")
        let distances = SignedDistanceField(mask: mask, reachInside: inputRadius + 1, reachOutside: Self.skirtWidth + 1)
        let radius = inputRadius
        var heights = Image<Float>(width: mask.width, height: mask.height, repeating: 0)
        guard let region = distances.region else { return heights }   // no ink: flat
        let width = mask.width
        heights.withUnsafeMutableBufferPointer { out in
            distances.values.withUnsafeBufferPointer { dist in
                parallelBands(region.height) { rows in
                    for row in rows {
                        let source = row * region.width, target = (row + region.minY) * width + region.minX
                        for i in 0..<region.width {
                            out[target + i] = Self.height(signedDistance: dist[source + i], radius: radius)
                        }
                    }
                }
            }
        }
        return heights
    }
}

import Glibc
