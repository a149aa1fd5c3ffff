import MercurialKit
import Synchronization

/// What renders keep between frames: the `FrameRenderer` (mask, heights or normals,
/// built again only when the text, font, size or loft change; the mask only when the
/// text, font, size or placement do) and the shading sphere's PNG
/// for the last scene (made again only when the lights or material change).
///
/// The live preview renders canvases for the page, not files, so it does not go through
/// `RenderJob`; Export PNG and Export video do (`EditorSession+Export.swift`).
final class RenderCache: Sendable {
    /// The session's pipeline renders one frame at a time, so only one render uses
    /// the renderer at once; the lock guards the fields against the page's requests.
    private struct State {
        var renderer: (key: Key, kept: Kept<FrameRenderer>)?
        /// Canvases of frames the session let go of, with the settings each shows: a
        /// frame is drawn into one of these (only its inked pixels, when only the shading
        /// changed), not into a copy of the last frame's 8 MB.
        var spares: [(image: Image<RGBA8>, settings: RenderSettings)] = []
        var scene: ShadingScene?
        var png: [UInt8] = []
        /// The animation's renderer, for the settings and animation (by its JSON) it was made for.
        var animated: (base: RenderSettings, key: String, kept: Kept<FrameRenderer>)?
        /// The sequence's renderer, for the scene (by its JSON) it was made for.
        var sequence: (key: String, kept: Kept<SequenceRenderer>)?
    }
    private let state = Mutex(State())

    /// Unchecked: the session's pipeline runs one render at a time, so one thread at a
    /// time uses the renderer (the lock only hands it from one render to the next).
    private final class Kept<Renderer>: @unchecked Sendable {
        let renderer: Renderer
        init(_ renderer: Renderer) { self.renderer = renderer }
    }

    /// What a `FrameRenderer` is built from: the geometry, the shading image it reads
    /// once (its path and the file as it was, so an edit to it is read again) and the
    /// number of layers (it holds a renderer for each).
    struct Key: Equatable {
        var geometry: TitleShapeSettings
        var shadingImage: String?
        var shadingFile: FileStamp?
        var layers: Int
        /// How far the styles grow a canvas sized to the title, on each side it sizes itself
        /// (a shadow turned on or enlarged there makes a larger frame).
        var grownBy: [Int]

        init(_ settings: RenderSettings) {
            geometry = settings.shape
            layers = settings.layers.count
            grownBy = settings.stylesGrowth
            shadingImage = settings.shadingImage
            shadingFile = settings.shadingImage.flatMap(FileStamp.init)
        }

        /// Whether a renderer made for `self` draws `other`'s title too, building its
        /// shape again in it (a radius drag): one title, on a canvas of one given size
        /// (a text's, not a mask's), with the same shading image. It lets go of the old
        /// shape before it builds the new one and keeps the mask while it stays.
        func reshapes(to other: Key) -> Bool {
            layers == 0 && other.layers == 0 && shadingImage == other.shadingImage && shadingFile == other.shadingFile
                && geometry.mask == nil && other.geometry.mask == nil
                && geometry.width != nil && geometry.height != nil
                && geometry.width == other.geometry.width && geometry.height == other.geometry.height
        }
    }

    static let keptSpares = 2

    /// The title's canvas for `settings`; as `TitleRenderer.render` gives it, pixel for pixel.
    func frame(for settings: RenderSettings) throws(MercurialError) -> Image<RGBA8> {
        let key = Key(settings)
        // A renderer for other geometry is let go before the new one is built: at 8K each holds hundreds of MB.
        let cached = state.withLock { state -> FrameRenderer? in
            guard let kept = state.renderer else { return nil }
            if kept.key == key { return kept.kept.renderer }
            // Taken out: a render that fails leaves no renderer for the next to reuse.
            state.renderer = nil
            return kept.key.reshapes(to: key) ? kept.kept.renderer : nil
        }
        let frameRenderer: FrameRenderer
        if let cached { frameRenderer = cached } else { frameRenderer = try FrameRenderer(base: settings, timeline: Timeline(duration: 1)) }
        var canvas = Image<RGBA8>(width: 0, height: 0, repeating: .clear)
        var shown: RenderSettings?
        if let spare = state.withLock({ $0.spares.popLast() }),
           spare.image.width == frameRenderer.width, spare.image.height == frameRenderer.height {
            (canvas, shown) = (spare.image, spare.settings)
        }
        try frameRenderer.render(settings, into: &canvas, showing: shown)
        let kept = Kept(frameRenderer)
        state.withLock { $0.renderer = (key, kept) }
        return canvas
    }

    /// Frame `index` of the animation, as `mercurial animate` writes it: the same
    /// `FrameRenderer`, kept while the settings and the animation stay (a scrub or a play
    /// then changes only what the tracks change).
    func frame(_ index: Int, of timeline: Timeline, base: RenderSettings, key: String) throws(MercurialError) -> Image<RGBA8> {
        let cached = state.withLock { state -> FrameRenderer? in
            guard let animated = state.animated, animated.base == base, animated.key == key else {
                state.animated = nil
                return nil
            }
            return animated.kept.renderer
        }
        let renderer: FrameRenderer
        if let cached { renderer = cached } else { renderer = try FrameRenderer(base: base, timeline: timeline) }
        let image = try renderer.frame(index)
        let kept = Kept(renderer)
        state.withLock { $0.animated = (base, key, kept) }
        return image
    }

    /// Frame `index` of the sequence, as `mercurial animate` writes it: the same
    /// `SequenceRenderer`, kept while the scene (`key`, its JSON) stays.
    func frame(_ index: Int, of sequence: TitleSequence, key: String) throws(MercurialError) -> Image<RGBA8> {
        let cached = state.withLock { state -> SequenceRenderer? in
            guard let kept = state.sequence, kept.key == key else {
                state.sequence = nil
                return nil
            }
            return kept.kept.renderer
        }
        let renderer: SequenceRenderer
        if let cached { renderer = cached } else { renderer = try SequenceRenderer(sequence) }
        let image = try renderer.frame(index)
        let kept = Kept(renderer)
        state.withLock { $0.sequence = (key, kept) }
        return image
    }

    /// A frame's canvas that the session no longer keeps (a page's request may still
    /// hold it: then drawing into it copies it first, as values do).
    /// At most `keptSpares`, and no more than `room` bytes of them.
    func recycle(_ image: Image<RGBA8>, showing settings: RenderSettings, room: Int) {
        let keep = max(0, min(Self.keptSpares, room / max(1, image.width * image.height * 4)))
        state.withLock { state in
            state.spares.append((image, settings))
            while state.spares.count > keep { state.spares.removeFirst() }
        }
    }

    func dropSpares() { state.withLock { $0.spares.removeAll() } }

    static let size = 256

    func png(for scene: ShadingScene) throws(MercurialError) -> [UInt8] {
        if let cached = state.withLock({ $0.scene == scene ? $0.png : nil }) { return cached }
        let image = ShadingSphere.render(scene, size: Self.size, antialiasedRim: true)
        let bytes = try PNGSink(compression: .fast).encode(image)
        state.withLock { state in
            state.scene = scene
            state.png = bytes
        }
        return bytes
    }
}
