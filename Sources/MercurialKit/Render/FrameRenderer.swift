/// Renders an animation's frames one at a time into one reused canvas.
///
/// Between frames it keeps what did not change: when only lights, colours, point
/// lights or the backdrop move, the mask, height field and normals are made once
/// and each frame is a lookup per inked pixel (the four sphere lights changing
/// re-trace only the small shading sphere); a track that changes the shape
/// (radius, scale) makes that frame a full render, from the kept mask when only the
/// loft changed (`TitleShapeSettings.maskKey`).
public final class FrameRenderer {
    public let base: RenderSettings
    public let timeline: Timeline
    public let width: Int, height: Int
    /// Warnings from laying out the title (once).
    public private(set) var warnings: [MercurialWarning] = []
    /// How many times the shape was built.
    public private(set) var geometryBuilds = 0
    /// How many times the title's mask was made (laid out and drawn, or read).
    public private(set) var maskBuilds = 0

    struct Geometry {
        /// The settings the shape was built for; nil while another is built.
        var key: TitleShapeSettings?
        var shape: TitleShape
    }
    private(set) var geometry: Geometry
    /// The title's mask and what it was made from (`TitleShapeSettings.maskKey`): a
    /// shape built again for another radius, profile, scale or bevel reuses it.
    private var titleMask: (key: TitleShapeSettings.MaskKey, mask: TitleRenderer.TitleMask)?
    /// A scene with `layers`: its layers' renderers, which make its frames.
    private let layered: LayeredFrames?
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
    /// Which letter each pixel of the region is, when the timeline reveals the letters one by one.
    private var letters: LetterMap?
    /// The region as a reveal shows it, reused from frame to frame.
    private var revealed = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
    /// `revealed` with every letter at full alpha (a knock-out's ink).
    private var revealedInk = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
    /// A motion-blurred frame, the average of its samples.
    private var blurred = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
    /// The layer styles' masks, kept while the shape and their sizes stay.
    let styleCache = LayerStyleCache()

    /// The most pixels of an animation's frame (7680×4320, 8K UHD) and of the region
    /// its title is lofted in: frames are made whole, in memory.
    public static let maximumFramePixels = 33_177_600
    public static let maximumRegionPixels = TitleSurface.maximumRegionPixels

    /// How many times each layer's shape was built (one title: its one count).
    public var layerGeometryBuilds: [Int] { layered?.geometryBuilds ?? [geometryBuilds] }

    /// Where the title's region (its shape's mask, shaded) sits on the canvas.
    var titleRegion: (origin: (x: Int, y: Int), size: (width: Int, height: Int)) {
        (geometry.shape.origin, (title.width, title.height))
    }

    public init(base: RenderSettings, timeline: Timeline) throws(MercurialError) {
        let first = timeline.settings(at: 0, base: base)
        guard base.layers.isEmpty else {
            guard timeline.dynamics == nil else {
                throw MercurialError("\"dynamics\" moves one title's letters, not a scene's \"layers\"; leave out \"dynamics\", or animate one title")
            }
            let layered = try LayeredFrames(first, inOut: timeline.inOut)
            // The first layer's shape stands for the title's (`geometry` is not used for a layered title).
            geometry = layered.firstGeometry
            (self.base, self.timeline, self.layered, shadingImage, dynamicTitle) = (base, timeline, layered, nil, nil)
            (width, height, warnings) = (layered.width, layered.height, layered.warnings)
            return
        }
        layered = nil
        if timeline.motionBlur != nil && timeline.dynamics != nil {
            throw MercurialError("\"animation.motionBlur\" samples each frame's moves between frames, and \"dynamics\" runs forward only; leave out one of them")
        }
        if let image = base.image, timeline.dynamics != nil {
            throw MercurialError("\"dynamics\" moves a text's glyphs, and image '\(image.file)' has none; leave out \"dynamics\"")
        }
        let planned = try TitleRenderer.plannedSize(first)
        guard planned.canvas.width * planned.canvas.height <= Self.maximumFramePixels else {
            throw MercurialError.limit("an animation's frames are made whole, in memory, so they may have at most \(Self.maximumFramePixels / 1_000_000) M pixels (7680×4320); this one is \(planned.canvas.width)×\(planned.canvas.height); use a smaller canvas")
        }
        guard planned.region.width * planned.region.height <= Self.maximumRegionPixels else {
            throw MercurialError.limit("an animated title is lofted in memory, from at most \(Self.maximumRegionPixels / 1_048_576) M pixels (4096×4096); \(planned.what) is \(planned.region.width)×\(planned.region.height); use a smaller --size or mask")
        }
        self.base = base
        self.timeline = timeline
        shadingImage = try base.shadingImage.map { path throws(MercurialError) in try ShadingLookup.read(path) }
        let maskKey = first.shape.maskKey, mask = try TitleRenderer.titleMask(first)
        titleMask = (maskKey, mask)
        maskBuilds = 1
        let shape = try Self.frameShape(first, premade: mask)
        geometry = Geometry(key: first.shape, shape: shape)
        geometryBuilds = 1
        warnings = shape.warnings
        width = shape.canvas.width
        height = shape.canvas.height
        dynamicTitle = try timeline.dynamics.map { d throws(MercurialError) in
            try DynamicTitle(settings: first, dynamics: d, width: shape.canvas.width, height: shape.canvas.height,
                             seconds: timeline.duration)
        }
        if let inOut = timeline.inOut, inOut.reveals {
            guard dynamicTitle == nil else {
                throw MercurialError("a \"reveal\" and \"dynamics\" both move the letters; use one of them (a fade, slide or scale goes with dynamics)")
            }
            let letters = try LetterMap(settings: first, shape: shape)
            try InOut.checkFits(entrances: inOut.entrances, exits: inOut.exits, duration: inOut.duration, letters: letters.count)
            self.letters = letters
        }
    }

    /// Frame 0's shape as a still has it (heights kept, normals taken as it is shaded):
    /// what the height and normal maps are made of.
    static func stillShape(_ settings: RenderSettings) throws(MercurialError) -> TitleShape {
        try TitleShape.build(settings, keepingNormals: false)
    }

    /// A shape for frames, from its mask: its normals, kept; its heights, dropped (frames shade from the normals).
    private static func frameShape(_ settings: RenderSettings, premade: TitleRenderer.TitleMask) throws(MercurialError)
        -> TitleShape {
        var shape = try TitleShape.build(settings, premade: premade, keepingNormals: true)
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
        let shape = try TitleShape.build(settings, premade: premade, keepingNormals: false) { stage in
            switch stage {
            case .mask: timings.mask = lap()
            case .heights: timings.heightField = lap()
            }
        }
        let compositing = Compositing(settings)
        try compositing.checkStyles(region: (shape.mask.width, shape.mask.height), at: shape.origin, canvas: shape.canvas)
        let shading = try ShadingLookup.of(settings)
        timings.shading = lap()
        var made = (content: Image<RGBA8>(width: 0, height: 0, repeating: .clear), origin: shape.origin)
        try render(shape, shading: shading, compositing: compositing) { shape, title throws(MercurialError) in
            made = compositing.composed(&title, at: shape.origin, canvas: shape.canvas, shading: shading)
        }
        timings.material = lap()
        return RenderedTitle(width: shape.canvas.width, height: shape.canvas.height, content: made.content,
                             originX: made.origin.x, originY: made.origin.y, fill: compositing.fill,
                             warnings: shape.warnings, timings: timings)
    }

    /// The one way a still and a large title are made from their shape: each band of
    /// rows `source` gives (a still's whole region; a large title's bands, `BandLoft`)
    /// shaded by the one shading loop for `compositing`, then handed to `emit` to be
    /// lit and composed (`Compositing`) where the band sits. Frames shade their kept
    /// shape through a plan instead (`render(_:time:)`), with the same per-pixel shading.
    static func render(_ source: some TitleShapeSource, shading: ShadingLookup, compositing: Compositing,
                       emit: (TitleShape, inout Image<RGBA8>) throws(MercurialError) -> Void) throws(MercurialError) {
        var title = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
        try source.shapes { shape throws(MercurialError) in
            shade(shape, shading: shading, compositing: compositing, into: &title)
            try emit(shape, &title)
        }
    }

    /// One band of a shape (a still's whole region, a band of a large title's or of a
    /// scene's layer's, `RegionStream`) shaded by the one shading loop for `compositing`.
    static func shade(_ shape: TitleShape, shading: ShadingLookup, compositing: Compositing, into title: inout Image<RGBA8>) {
        shape.shaded(shading, background: compositing.shadingBackground, into: &title)
    }

    /// Frame `index` (at t = index / fps). The image is the renderer's own canvas:
    /// use it before asking for the next frame, and keep no copy, so that it is not
    /// copied.
    public func frame(_ index: Int) throws(MercurialError) -> Image<RGBA8> {
        try frame(at: timeline.time(ofFrame: index))
    }

    /// The frame at `time` seconds (past the end, the tracks hold their last values). With
    /// motion blur, a frame whose move changes while the shutter is open is the average of
    /// its samples (`MotionBlur`).
    public func frame(at time: Double) throws(MercurialError) -> Image<RGBA8> {
        let settings = timeline.settings(at: time, base: base)
        guard let blur = timeline.motionBlur else { return try render(settings, time: time) }
        let samples = blur.times(around: time, fps: timeline.fps).map { t in
            settings.taking(moveOf: timeline.settings(at: t, base: base))
        }
        guard samples.contains(where: { $0 != settings }) else { return try render(settings, time: time) }
        var sum = SampleSum(width: width, height: height)
        for sample in samples { sum.add(try render(sample, time: time)) }
        sum.average(into: &blurred)
        return blurred
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
        guard dynamicTitle == nil, layered == nil, target.width == width, target.height == height else {
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
        var settings = settings
        // Every letter in its place: the title as it is without the reveal.
        if let reveal = settings.look.reveal, reveal.isSettled(letters: letters?.count ?? 0) { settings.look.reveal = nil }
        let at = time.map { " at frame \(Int(($0 * timeline.fps).rounded()))" } ?? ""
        if let layered {
            let frame = try layered.render(settings, at: at)
            geometryBuilds = layered.geometryBuilds.reduce(0, +)
            return frame
        }
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
                                shading: shadingImage ?? ShadingSphere.lookup(for: settings), into: &canvas)
            return canvas
        }
        // Nothing moved since the last frame (a still title, or after the last keyframe): the same frame.
        if settings == lastSettings { return canvas }
        if key != geometry.key {
            // The old shape, its shading and its plan are let go before the new one is
            // built (at 8K each holds hundreds of MB); the mask is kept when it stays.
            geometry = Geometry(key: nil, shape: .none)
            title = Image(width: 0, height: 0, repeating: .clear)
            plan = nil
            let maskKey = key.maskKey
            if titleMask?.key != maskKey { titleMask = nil }
            let mask: TitleRenderer.TitleMask
            if let kept = titleMask {
                mask = kept.mask
            } else {
                mask = try TitleRenderer.titleMask(settings)
                maskBuilds += 1
            }
            titleMask = (maskKey, mask)
            let shape = try Self.frameShape(settings, premade: mask)
            guard shape.canvas == (width, height) else {
                throw MercurialError("the canvas changes from \(width)×\(height) to \(shape.canvas.width)×\(shape.canvas.height)\(at); give \"width\" and \"height\" in the scene so that every frame has one size")
            }
            geometry = Geometry(key: key, shape: shape)
            geometryBuilds += 1
            if letters != nil { letters = try LetterMap(settings: settings, shape: shape) }
            planTooLarge = false
        }
        let compositing = Compositing(settings)
        try compositing.checkStyles(region: (geometry.shape.mask.width, geometry.shape.mask.height),
                                    at: geometry.shape.origin, canvas: (width, height))
        let shading = shadingImage ?? ShadingSphere.lookup(for: settings)
        shade(shading: shading, compositing: compositing)
        if let reveal = settings.look.reveal, let letters {
            let origin = letters.reveal(title, at: reveal, origin: geometry.shape.origin, canvasHeight: height, into: &revealed)
            // The letters as they lie, at full alpha: what their shadow and glow are knocked out under.
            let knocks = compositing.styles.knocksOut
            if knocks {
                _ = letters.reveal(title, at: reveal, origin: geometry.shape.origin, canvasHeight: height, into: &revealedInk,
                                   opaque: true)
            }
            compositing.draw(&revealed, at: origin, into: &canvas, shading: shading, knockout: knocks ? revealedInk : nil,
                             laidOut: (geometry.shape.origin, (title.width, title.height)))
            lastSettings = settings
            return canvas
        }
        // The canvas shows this shape over this backdrop, where it was laid out (a canvas
        // handed in may show another: see `render(_:into:showing:)`): only the inked pixels change.
        let canvasShows = lastSettings.map {
            Backdrop($0) == compositing.backdrop && $0.shape == key && $0.look.reveal == nil
                && RegionPlacement($0) == nil
        } ?? false
        compositing.draw(&title, at: geometry.shape.origin, into: &canvas, changed: plan?.pixels, canvasShows: canvasShows,
                         styleCache: styleCache, shape: key, shading: shading)
        lastSettings = settings
        return canvas
    }

    /// The title of this shape shaded into `title` for a frame: through the plan (only
    /// the inked pixels; the others stay clear from when the title was made), or from
    /// the kept normals. (A still is shaded once, from its heights, with no plan: a
    /// plan would cost more than it saves.)
    private func shade(shading: ShadingLookup, compositing: Compositing) {
        let shape = geometry.shape, mask = shape.mask
        if title.width != mask.width || title.height != mask.height {
            title = Image(width: mask.width, height: mask.height, repeating: .clear)
        }
        let normals = shape.keptNormals
        if !planTooLarge, plan.map({ !$0.fits(shading) }) ?? true {
            plan = ShadingPlan(normals: normals, coverage: mask, looks: shape.looks, for: shading)
            planTooLarge = plan == nil
        }
        if let plan {
            ShadedMaterial.shade(plan, shading: shading, background: compositing.shadingBackground, into: &title)
        } else {
            ShadedMaterial.shade(normals: normals, coverage: mask, looks: shape.looks, shading: shading,
                                 background: compositing.shadingBackground, into: &title)
        }
        if let paint = shape.paint { ShadedMaterial.paint(paint, onto: &title, flat: shape.paintIsFlat) }
    }
}
