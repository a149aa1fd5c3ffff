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
        var shape: TitleShape
    }
    private var geometry: Geometry
    /// Where the shape's inked pixels sample the shading lookup (made again with the
    /// shape, or for a lookup of another size); nil for a shape too large for one.
    private var plan: ShadingPlan?
    private var planTooLarge = false
    /// The whole canvas, made at the first frame (a still draws only its region).
    private var canvas = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
    /// The shaded title, reused from frame to frame while the shape stays.
    private var title = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
    private let shadingImage: ShadingLookup?
    /// The glyphs as rigid bodies, when the timeline has `dynamics`.
    private let dynamicTitle: DynamicTitle?
    /// The settings of the frame in `canvas`.
    private var lastSettings: RenderSettings?
    /// Made for one still (`still(_:premade:)`): its shape keeps heights, not normals.
    private let isStill: Bool
    /// The layer styles' masks, kept while the shape and their sizes stay.
    let styleCache = LayerStyleCache()

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
        let shape = try Self.frameShape(first)
        geometry = Geometry(key: first.shape, shape: shape)
        geometryBuilds = 1
        warnings = shape.warnings
        width = shape.canvas.width
        height = shape.canvas.height
        isStill = false
        dynamicTitle = try timeline.dynamics.map { d throws(MercurialError) in
            try DynamicTitle(settings: first, dynamics: d, width: shape.canvas.width, height: shape.canvas.height,
                             seconds: timeline.duration)
        }
    }

    /// The renderer of a still: its shape keeps the heights (the normals are taken
    /// from them as the one frame is shaded, with no plan), and no canvas is made.
    private init(still settings: RenderSettings, premade: TitleRenderer.TitleMask?,
                 finished: (TitleShape.Stage) -> Void) throws(MercurialError) {
        base = settings
        timeline = Timeline(duration: 1)
        shadingImage = nil
        dynamicTitle = nil
        isStill = true
        let shape = try TitleShape.build(settings, premade: premade, keepingNormals: false, finished: finished)
        geometry = Geometry(key: settings.shape, shape: shape)
        geometryBuilds = 1
        warnings = shape.warnings
        width = shape.canvas.width
        height = shape.canvas.height
    }

    /// Frame 0's shape as a still has it (heights kept): what the height and normal maps are made of.
    static func stillShape(_ settings: RenderSettings) throws(MercurialError) -> TitleShape {
        try FrameRenderer(still: settings, premade: nil) { _ in }.geometry.shape
    }

    /// A shape for frames: its normals, kept; its heights, dropped (frames shade from the normals).
    private static func frameShape(_ settings: RenderSettings) throws(MercurialError) -> TitleShape {
        var shape = try TitleShape.build(settings, keepingNormals: true)
        shape.heights = HeightField(width: 0, height: 0, repeating: 0)
        return shape
    }

    /// `settings` as a still: frame 0, with the region around the ink drawn (not the
    /// whole canvas); from a title mask already made (`premade`) or made here.
    static func still(_ settings: RenderSettings, premade: TitleRenderer.TitleMask?) throws(MercurialError) -> RenderedTitle {
        var timings = StageTimings()
        var clock = ContinuousClock.now
        func lap() -> Double {
            let now = ContinuousClock.now
            defer { clock = now }
            let d = now - clock
            return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
        }
        try TitleRenderer.validate(settings)
        let renderer = try FrameRenderer(still: settings, premade: premade) { stage in
            switch stage {
            case .mask: timings.mask = lap()
            case .heights: timings.heightField = lap()
            }
        }
        let shading = try ShadingLookup.of(settings)
        timings.shading = lap()
        let compositing = Compositing(settings)
        renderer.shade(shading: shading, compositing: compositing)
        let shape = renderer.geometry.shape
        let (content, place) = compositing.composed(&renderer.title, at: shape.origin, canvas: shape.canvas)
        timings.material = lap()
        return RenderedTitle(width: shape.canvas.width, height: shape.canvas.height, content: content,
                             originX: place.x, originY: place.y, fill: compositing.fill, warnings: shape.warnings,
                             timings: timings)
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
        if canvas.width != width || canvas.height != height {
            canvas = Image(width: width, height: height, repeating: .clear)
            lastSettings = nil
        }
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
            let shape = try Self.frameShape(settings)
            guard shape.canvas == (width, height) else {
                throw MercurialError("the canvas changes from \(width)×\(height) to \(shape.canvas.width)×\(shape.canvas.height)\(at); give \"width\" and \"height\" in the scene so that every frame has one size")
            }
            geometry = Geometry(key: key, shape: shape)
            geometryBuilds += 1
            title = Image(width: 0, height: 0, repeating: .clear)
            plan = nil
            planTooLarge = false
        }
        let compositing = Compositing(settings)
        shade(shading: shadingImage ?? ShadingSphere.lookup(settings.scene), compositing: compositing)
        // The canvas shows this shape over this backdrop (a canvas handed in may show
        // another: see `render(_:into:showing:)`): only the inked pixels change.
        let canvasShows = lastSettings.map { Backdrop($0) == compositing.backdrop && $0.shape == key } ?? false
        compositing.draw(&title, at: geometry.shape.origin, into: &canvas, changed: plan?.pixels, canvasShows: canvasShows,
                         styleCache: styleCache, shape: key)
        lastSettings = settings
        return canvas
    }

    /// The title of this shape shaded into `title`. A still's, once, with the normals
    /// taken from the heights as it goes (a plan would cost more than it saves); a
    /// frame's through the plan (only the inked pixels; the others stay clear from
    /// when the title was made), or from the kept normals.
    private func shade(shading: ShadingLookup, compositing: Compositing) {
        let shape = geometry.shape, mask = shape.mask
        if isStill {
            title = shape.material.outputImage(heights: shape.heights, coverage: mask, shading: shading,
                                               background: compositing.shadingBackground)
            return
        }
        if title.width != mask.width || title.height != mask.height {
            title = Image(width: mask.width, height: mask.height, repeating: .clear)
        }
        let normals = shape.keptNormals
        if !planTooLarge, plan.map({ !$0.fits(shading) }) ?? true {
            plan = ShadingPlan(normals: normals, coverage: mask, for: shading)
            planTooLarge = plan == nil
        }
        if let plan {
            ShadedMaterial.shade(plan, shading: shading, background: compositing.shadingBackground, into: &title)
        } else {
            ShadedMaterial.shade(normals: normals, coverage: mask, shading: shading,
                                 background: compositing.shadingBackground, into: &title)
        }
    }
}
