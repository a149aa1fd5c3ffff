/// Renders an animation's frames one at a time into one reused canvas.
///
/// Between frames it keeps what did not change: when only lights, colours, point
/// lights or the backdrop move, the mask, height field and normals are made once
/// and each frame is a lookup per inked pixel (the four sphere lights changing
/// re-trace only the small shading sphere); a track that changes the shape
/// (radius, scale) makes that frame a full render.
public final class FrameRenderer {
    public let base: RenderSettings
    public let timeline: Timeline
    public let width: Int, height: Int
    /// Warnings from laying out the title (once).
    public private(set) var warnings: [MercurialWarning] = []
    /// How many times the shape was built.
    public private(set) var geometryBuilds = 0

    private struct Geometry {
        var key: TitleShapeSettings
        var mask: Mask
        var origin: (x: Int, y: Int)
        var normals: SurfaceNormals
    }
    private var geometry: Geometry
    /// Where the shape's inked pixels sample the shading lookup (made again with the
    /// shape, or for a lookup of another size); nil for a shape too large for one.
    private var plan: ShadingPlan?
    private var planTooLarge = false
    private var canvas: Image<RGBA8>
    /// The shaded title, reused from frame to frame while the shape stays.
    private var title: Image<RGBA8>
    private let shadingImage: ShadingLookup?
    /// The glyphs as rigid bodies, when the timeline has `dynamics`.
    private let dynamicTitle: DynamicTitle?
    /// The settings of the frame in `canvas`.
    private var lastSettings: RenderSettings?

    /// The most pixels of an animation's frame (7680×4320, 8K UHD) and of the region
    /// its title is lofted in: frames are made whole, in memory.
    public static let maximumFramePixels = 33_177_600
    public static let maximumRegionPixels = TitleSurface.maximumRegionPixels

    public init(base: RenderSettings, timeline: Timeline) throws(MercurialError) {
        let first = timeline.settings(at: 0, base: base)
        let planned = try TitleRenderer.plannedSize(first)
        guard planned.canvas.width * planned.canvas.height <= Self.maximumFramePixels else {
            throw MercurialError("an animation's frames are made whole, in memory, so they may have at most \(Self.maximumFramePixels / 1_000_000) M pixels (7680×4320); this one is \(planned.canvas.width)×\(planned.canvas.height); use a smaller canvas")
        }
        guard planned.region.width * planned.region.height <= Self.maximumRegionPixels else {
            throw MercurialError("an animated title is lofted in memory, from at most \(Self.maximumRegionPixels / 1_048_576) M pixels (4096×4096); \(planned.what) is \(planned.region.width)×\(planned.region.height); use a smaller --size or mask")
        }
        self.base = base
        self.timeline = timeline
        shadingImage = try base.shadingImage.map { path throws(MercurialError) in try ShadingLookup.read(path) }
        let (built, canvasSize, warnings) = try Self.buildGeometry(first)
        geometry = built
        geometryBuilds = 1
        self.warnings = warnings
        width = canvasSize.width
        height = canvasSize.height
        canvas = Image(width: width, height: height, repeating: .clear)
        title = Image(width: built.mask.width, height: built.mask.height, repeating: .clear)
        dynamicTitle = try timeline.dynamics.map { d throws(MercurialError) in
            try DynamicTitle(settings: first, dynamics: d, width: canvasSize.width, height: canvasSize.height,
                             seconds: timeline.duration)
        }
    }

    private static func buildGeometry(_ settings: RenderSettings) throws(MercurialError)
        -> (Geometry, (width: Int, height: Int), [MercurialWarning]) {
        let shape = try TitleShape.build(settings, keepingNormals: true)
        return (Geometry(key: settings.shape, mask: shape.mask, origin: shape.origin, normals: shape.keptNormals),
                shape.canvas, shape.warnings)
    }

    /// Frame `index` (at t = index / fps). The image is the renderer's own canvas:
    /// use it before asking for the next frame, and keep no copy, so that it is not
    /// copied.
    public func frame(_ index: Int) throws(MercurialError) -> Image<RGBA8> {
        try frame(at: timeline.time(ofFrame: index))
    }

    /// The frame at `time` seconds (past the end, the tracks hold their last values).
    public func frame(at time: Double) throws(MercurialError) -> Image<RGBA8> {
        try render(timeline.settings(at: time, base: base), time: time)
    }

    /// The canvas for `settings`, reusing the mask and normals while only the
    /// shading (lights, material, background) changes; the live editor renders
    /// slider drags this way (a dynamic title as at its start).
    public func render(_ settings: RenderSettings) throws(MercurialError) -> Image<RGBA8> {
        try render(settings, time: nil)
    }

    /// The same, drawn into `target`, a canvas of this renderer's size that holds the
    /// frame for `shown` (nil: anything): when only the shading changed since, only
    /// the inked pixels are drawn. The live editor keeps its last frames and hands
    /// back the ones it no longer needs, so a frame costs no 8 MB copy of the canvas.
    public func render(_ settings: RenderSettings, into target: inout Image<RGBA8>, showing shown: RenderSettings?)
        throws(MercurialError) {
        guard dynamicTitle == nil, target.width == width, target.height == height else {
            target = try render(settings)
            return
        }
        // Swapped in for the renderer's own canvas, and back out.
        swap(&canvas, &target)
        let own = lastSettings
        lastSettings = shown
        defer {
            swap(&canvas, &target)
            lastSettings = own
        }
        _ = try render(settings, time: nil)
    }

    private func render(_ settings: RenderSettings, time: Double?) throws(MercurialError) -> Image<RGBA8> {
        let at = time.map { " at frame \(Int(($0 * timeline.fps).rounded()))" } ?? ""
        let key = settings.shape
        if let dynamicTitle {
            guard key == geometry.key else {
                throw MercurialError("a track changes the letters' shape\(at), but with \"dynamics\" each letter is built once; keyframe only lights, colours, point lights and the backdrop")
            }
            // The physics animator's poses (a still frame: as at the start).
            let poses = try Animator.poses(at: time ?? 0, in: dynamicTitle.world)
            dynamicTitle.render(poses: poses, settings: settings,
                                shading: shadingImage ?? ShadingSphere.lookup(settings.scene), into: &canvas)
            return canvas
        }
        // Nothing moved since the last frame (a still title, or after the last keyframe): the same frame.
        if settings == lastSettings { return canvas }
        if key != geometry.key {
            let (built, size, _) = try Self.buildGeometry(settings)
            guard size == (width, height) else {
                throw MercurialError("the canvas changes from \(width)×\(height) to \(size.width)×\(size.height)\(at); give \"width\" and \"height\" in the scene so that every frame has one size")
            }
            geometry = built
            geometryBuilds += 1
            plan = nil
            planTooLarge = false
            title = Image(width: built.mask.width, height: built.mask.height, repeating: .clear)
        }
        let shading = shadingImage ?? ShadingSphere.lookup(settings.scene)
        if !planTooLarge, plan.map({ !$0.fits(shading) }) ?? true {
            plan = ShadingPlan(normals: geometry.normals, coverage: geometry.mask, for: shading)
            planTooLarge = plan == nil
        }
        let compositing = Compositing(settings)
        if let plan {
            // Only the inked pixels: the others stay clear from when the title was made.
            ShadedMaterial.shade(plan, shading: shading, background: compositing.shadingBackground, into: &title)
        } else {
            ShadedMaterial.shade(normals: geometry.normals, coverage: geometry.mask, shading: shading,
                                 background: compositing.shadingBackground, into: &title)
        }
        // The canvas shows this shape over this backdrop (a canvas handed in may show
        // another: see `render(_:into:showing:)`): only the inked pixels change.
        let canvasShows = lastSettings.map { Backdrop($0) == compositing.backdrop && $0.shape == key } ?? false
        compositing.draw(&title, at: geometry.origin, into: &canvas, changed: plan?.pixels, canvasShows: canvasShows)
        lastSettings = settings
        return canvas
    }
}
