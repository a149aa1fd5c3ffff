import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An omni light: a colour HSB(hue, 1, brightness) at a finite position, with no
/// distance attenuation (as SceneKit's omni lights in the original).
public struct Light: Sendable, Equatable, Hashable, Encodable {
    public var hue: Double
    public var brightness: Double
    public var position: SIMD3<Double>

    public init(hue: Double, brightness: Double, position: SIMD3<Double>) {
        self.hue = hue; self.brightness = brightness; self.position = position
    }

    public var color: RGBColor { RGBColor(hue: hue, saturation: 1, brightness: brightness) }

    /// The original app's four lights.
    public static let originalDefaults: [Light] = [
        Light(hue: 0, brightness: 1, position: [0, 25, 0]),
        Light(hue: 0.333, brightness: 1, position: [25, -35, 0]),
        Light(hue: 0.85, brightness: 1, position: [-35, -20, -10]),
        Light(hue: 0.25, brightness: 1, position: [-35, 10, 35]),
    ]
}

/// The sphere's surface: Phong lighting (Blinn's half-vector form) plus an optional
/// reflection gradient sampled by the reflection vector.
public struct SphereMaterial: Sendable, Equatable, Encodable {
    /// 0.001…0.25, default 0.02: higher is a tighter highlight (Blinn–Phong exponent 1000 × shininess).
    public var shininess: Double = 0.02
    public var diffuse = RGBColor(grey: 1.0 / 3.0)
    public var specular = RGBColor.white
    public var ambient = RGBColor.black
    /// Colours top (0) to bottom (1) of the surroundings the sphere reflects.
    public var reflection: Gradient? = nil
    /// How much of the reflection gradient is added, 0…1.
    public var reflectivity: Double = 1

    public init() {}

    public var specularExponent: Float { Float(shininess * 1000) }
}

/// What the shading sphere shows: four lights and a material.
public struct ShadingScene: Sendable, Equatable, Encodable {
    public var lights: [Light]
    public var material: SphereMaterial

    public init(lights: [Light] = Light.originalDefaults, material: SphereMaterial = SphereMaterial()) {
        self.lights = lights
        self.material = material
    }
}

/// A small CPU ray tracer that replaces the original's SceneKit view: a unit
/// sphere at the origin, seen by an orthographic camera on +z looking down −z,
/// the sphere exactly filling the square image.
public enum ShadingSphere {
    public static let defaultSize = 512
    /// The size of the sphere traced for lookups: bilinear interpolation of 256² is smooth.
    public static let lookupSize = 256

    /// Renders the sphere. With `antialiasedRim` the rim is supersampled and the
    /// outside is transparent (for a picture of the sphere); without it every pixel
    /// outside the circle takes the rim's colour, so that bilinear lookups at the
    /// hemisphere's edge never blend in a background.
    public static func render(_ scene: ShadingScene, size: Int = defaultSize, antialiasedRim: Bool) -> Image<RGBA8> {
        precondition(size > 0, "Shading sphere size must be positive, got \(size)")
        let shader = SphereShader(scene)
        var image = Image<RGBA8>(width: size, height: size, repeating: .clear)
        let pixelSize = 2 / Float(size)
        image.withUnsafeMutableBufferPointer { out in
            parallelBands(size, minimumBand: 4) { rows in
                for j in rows {
                    for i in 0..<size {
                        // Pixel centre in sphere coordinates: x right, y up.
                        let x = (Float(i) + 0.5) * pixelSize - 1
                        let y = 1 - (Float(j) + 0.5) * pixelSize
                        let r = (x * x + y * y).squareRoot()
                        if !antialiasedRim {
                            let s = r > 1 ? 1 / r : 1
                            out[j * size + i] = RGBA8(opaque: shader.shade(x: x * s, y: y * s))
                        } else if r < 1 - pixelSize {
                            out[j * size + i] = RGBA8(opaque: shader.shade(x: x, y: y))
                        } else if r < 1 + pixelSize {
                            out[j * size + i] = shader.supersampledRim(x: x, y: y, pixelSize: pixelSize)
                        }
                    }
                }
            }
        }
        return image
    }

    /// The sphere as a shading lookup, built once per scene and size and cached.
    /// The lookup a title's settings shade with: its scene's sphere, then (styled runs with
    /// looks of their own) each look's sphere as a further page.
    public static func lookup(for settings: RenderSettings) -> ShadingLookup {
        guard !settings.runLooks.isEmpty else { return lookup(settings.scene) }
        return ShadingLookup(pages: settings.shadingScenes.map { lookup($0) })
    }

    public static func lookup(_ scene: ShadingScene, size: Int = lookupSize) -> ShadingLookup {
        ShadingCache.shared.lookup(scene, size: size)
    }

    /// The process's first traced sphere read from `disk` when an earlier process traced
    /// it, and written there when not (a one-shot command's one sphere); later spheres,
    /// as a drag's or an animation's, stay in memory.
    public static func keepFirstSphere(in disk: ShadingDiskCache?) {
        ShadingCache.shared.keepFirstSphere(in: disk)
    }
}

/// The Phong shader for points of the unit sphere.
struct SphereShader {
    let lights: [(position: SIMD3<Float>, color: SIMD3<Float>)]
    let diffuse: SIMD3<Float>, specular: SIMD3<Float>, ambient: SIMD3<Float>
    let exponent: Float
    let reflection: Gradient?
    let reflectivity: Float

    init(_ scene: ShadingScene) {
        lights = scene.lights.map { light in
            let c = light.color
            return (SIMD3<Float>(light.position), SIMD3(c.r, c.g, c.b))
        }
        let m = scene.material
        diffuse = SIMD3(m.diffuse.r, m.diffuse.g, m.diffuse.b)
        specular = SIMD3(m.specular.r, m.specular.g, m.specular.b)
        ambient = SIMD3(m.ambient.r, m.ambient.g, m.ambient.b)
        exponent = m.specularExponent
        reflection = m.reflection
        reflectivity = Float(m.reflectivity)
    }

    /// The colour of the sphere where the camera ray through (x, y) meets it; x² + y² ≤ 1.
    func shade(x: Float, y: Float) -> RGBColor {
        let normal = Self.normal(x: x, y: y)
        var colour = ambient
        for light in lights {
            guard let (diffuseTerm, specularTerm) = terms(of: light, at: normal) else { continue }
            colour += diffuseTerm
            colour += specularTerm
        }
        return finished(colour, at: normal)
    }

    static let view = SIMD3<Float>(0, 0, 1)        // orthographic camera on +z

    @inline(__always)
    static func normal(x: Float, y: Float) -> SIMD3<Float> {
        SIMD3<Float>(x, y, max(0, 1 - x * x - y * y).squareRoot())
    }

    /// One light's diffuse and specular terms where the sphere's normal is `normal`
    /// (the point is the normal: a unit sphere at the origin); nil when it is behind.
    @inline(__always)
    func terms(of light: (position: SIMD3<Float>, color: SIMD3<Float>), at normal: SIMD3<Float>)
        -> (SIMD3<Float>, SIMD3<Float>)? {
        guard let (lambert, highlight) = Self.geometry(of: light.position, at: normal, exponent: exponent) else {
            return nil
        }
        return (diffuse * light.color * lambert, specular * light.color * highlight)
    }

    /// The colourless part of a light's terms: the Lambert factor and the Blinn–Phong
    /// highlight `pow(max(n·h, 0), exponent)`; nil when the light is behind (lambert ≤ 0).
    /// A light's terms are `(diffuse * colour) * lambert` and `(specular * colour) * highlight`.
    @inline(__always)
    static func geometry(of position: SIMD3<Float>, at normal: SIMD3<Float>, exponent: Float) -> (Float, Float)? {
        let toLight = normalized(position - normal)
        let lambert = dot(normal, toLight)
        guard lambert > 0 else { return nil }
        let halfVector = normalized(toLight + view)
        return (lambert, pow(max(dot(normal, halfVector), 0), exponent))
    }

    /// The lights' sum `colour` with the reflection added.
    @inline(__always)
    func finished(_ colour: SIMD3<Float>, at normal: SIMD3<Float>) -> RGBColor {
        var colour = colour
        if let reflection {
            let reflected = 2 * dot(normal, Self.view) * normal - Self.view
            let c = reflection.color(at: (1 - reflected.y) / 2)
            colour += SIMD3(c.r, c.g, c.b) * reflectivity
        }
        return RGBColor(r: colour.x, g: colour.y, b: colour.z)
    }

    /// A rim pixel: 4×4 samples, colour averaged over those on the sphere, alpha their share.
    func supersampledRim(x: Float, y: Float, pixelSize: Float) -> RGBA8 {
        var sum = RGBColor.black
        var hits = 0
        for sj in 0..<4 {
            for si in 0..<4 {
                let sx = x + (Float(si) - 1.5) / 4 * pixelSize
                let sy = y + (Float(sj) - 1.5) / 4 * pixelSize
                guard sx * sx + sy * sy <= 1 else { continue }
                sum = sum + shade(x: sx, y: sy)
                hits += 1
            }
        }
        guard hits > 0 else { return .clear }
        let average = sum * (1 / Float(hits))
        return RGBA8(r: unitByte(average.r), g: unitByte(average.g), b: unitByte(average.b),
                     a: unitByte(Float(hits) / 16))
    }
}

@inline(__always) func dot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }
@inline(__always) func normalized(_ v: SIMD3<Float>) -> SIMD3<Float> { v / dot(v, v).squareRoot() }

/// Built shading lookups, keyed by scene and size, so that a render whose lights
/// and material have not changed does not trace the sphere again.
final class ShadingCache: Sendable {
    static let shared = ShadingCache()
    private struct State {
        var entries: [(scene: ShadingScene, size: Int, lookup: ShadingLookup)] = []
        /// Each light's colourless terms from recent lookups (see `LightLayer`), newest first.
        var layers: [LightLayer] = []
        var tracedLayers = 0
        /// Where the next lookup traced is read from or written to; taken by that lookup.
        var disk: ShadingDiskCache?

        /// `lookup` as the newest of the last four built.
        mutating func remember(_ scene: ShadingScene, _ size: Int, _ lookup: ShadingLookup) {
            entries.insert((scene, size, lookup), at: 0)
            if entries.count > 4 { entries.removeLast() }
        }
    }
    private let state = Mutex(State())
    static let keptLayers = 8
    /// How many layers this cache has traced (for tests: a colour change traces none).
    var tracedLayers: Int { state.withLock { $0.tracedLayers } }

    func keepFirstSphere(in disk: ShadingDiskCache?) {
        state.withLock { $0.disk = disk }
    }

    func lookup(_ scene: ShadingScene, size: Int) -> ShadingLookup {
        if let hit = state.withLock({ $0.entries.first { $0.scene == scene && $0.size == size }?.lookup }) {
            return hit
        }
        let disk = state.withLock { state in defer { state.disk = nil }; return state.disk }
        let key = disk.map { _ in ShadingDiskCache.key(scene, size: size) }
        if let disk, let key, let kept = disk.read(key, size: size) {
            state.withLock { $0.remember(scene, size, kept) }
            return kept
        }
        // A light seen in a recent lookup at the same position, with the same shininess,
        // is not traced again, whatever its colour or the material's colours: a slider
        // drag that moves one light re-traces a quarter of the sphere, one that changes
        // a colour or the material's colours only sums the layers.
        let shader = SphereShader(scene)
        let kept = state.withLock { $0.layers }
        var traced = 0
        let sceneLayers = shader.lights.map { light in
            if let layer = kept.first(where: { $0.fits(light.position, shader.exponent, size) }) { return layer }
            traced += 1
            return LightLayer(position: light.position, exponent: shader.exponent, size: size)
        }
        let built = LightLayer.lookup(from: sceneLayers, shader: shader, size: size)
        state.withLock { state in
            state.tracedLayers += traced
            state.remember(scene, size, built)
            let fresh = sceneLayers.filter { layer in !state.layers.contains { $0 === layer } }
            state.layers = Array((fresh + state.layers).prefix(Self.keptLayers))
        }
        if let disk, let key { disk.write(built, key, size: size) }
        return built
    }
}

/// One light's colourless terms at every texel of a lookup sphere: the Lambert factor
/// and the highlight (`SphereShader.geometry`), for a light position, a specular
/// exponent and a size. Multiplied by the light's colour times the material's diffuse
/// and specular colours and added up in the lights' order, with the ambient first and
/// the reflection last, they are the colour `shade` gives, to the bit: the same
/// operations in the same order (a test compares).
final class LightLayer: Sendable {
    let position: SIMD3<Float>
    let exponent: Float
    let size: Int
    /// Every texel's Lambert factor, then every texel's highlight (`2 * size * size`
    /// floats, two planes so that the sums load eight texels at a time); both 0 where
    /// the light is behind the sphere, so that `lambert > 0` says which texels it reaches.
    let terms: [Float]

    init(position: SIMD3<Float>, exponent: Float, size: Int) {
        self.position = position
        self.exponent = exponent
        self.size = size
        let plane = size * size
        var terms = [Float](repeating: 0, count: 2 * plane)
        terms.withUnsafeMutableBufferPointer { terms in
            parallelBands(size, minimumBand: 4) { rows in
                for j in rows {
                    for i in 0..<size {
                        let normal = Self.normal(i, j, size)
                        guard let (lambert, highlight) = SphereShader.geometry(of: position, at: normal,
                                                                               exponent: exponent) else { continue }
                        terms[j * size + i] = lambert
                        terms[plane + j * size + i] = highlight
                    }
                }
            }
        }
        self.terms = terms
    }

    func fits(_ position: SIMD3<Float>, _ exponent: Float, _ size: Int) -> Bool {
        self.position == position && self.exponent == exponent && self.size == size
    }

    /// The normal at texel (i, j) of a lookup sphere: as `ShadingSphere.render` without
    /// an antialiased rim takes it, a pixel outside the circle taking the rim's.
    @inline(__always)
    static func normal(_ i: Int, _ j: Int, _ size: Int) -> SIMD3<Float> {
        let pixelSize = 2 / Float(size)
        let x = (Float(i) + 0.5) * pixelSize - 1
        let y = 1 - (Float(j) + 0.5) * pixelSize
        let r = (x * x + y * y).squareRoot()
        let s = r > 1 ? 1 / r : 1
        return SphereShader.normal(x: x * s, y: y * s)
    }

    /// The lookup sphere from its lights' layers (`layers[n]` traced for `shader.lights[n]`),
    /// its texels as `ShadingLookup(ShadingSphere.render(…, antialiasedRim: false))` has
    /// them. It runs on every step of a colour drag, so it works a row at a time, one
    /// colour channel per array, eight texels at a time; each channel gets exactly
    /// `shade`'s operations: the ambient, then per lit light `+ (d * c) * lambert` and
    /// `+ (s * c) * highlight`, then the reflection.
    static func lookup(from layers: [LightLayer], shader: SphereShader, size: Int) -> ShadingLookup {
        precondition(layers.count == shader.lights.count && layers.allSatisfy { $0.size == size })
        // Each light's colour times the material's diffuse and specular.
        let factors = shader.lights.map { light in
            (diffuse: shader.diffuse * light.color, specular: shader.specular * light.color)
        }
        let plane = size * size
        return ShadingLookup(width: size, height: size) { rgb in
            withTerms(of: layers[...]) { terms in
                parallelBands(size, minimumBand: 4) { rows in
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * size) { sums in
                        let red = sums.baseAddress!, green = red + size, blue = green + size
                        for j in rows {
                            let row = j * size
                            red.update(repeating: shader.ambient.x, count: size)
                            green.update(repeating: shader.ambient.y, count: size)
                            blue.update(repeating: shader.ambient.z, count: size)
                            for (layer, factor) in zip(terms, factors) {
                                let lambert = layer.baseAddress! + row, highlight = lambert + plane
                                addLayer(lambert, highlight, factor.diffuse.x, factor.specular.x, to: red, size)
                                addLayer(lambert, highlight, factor.diffuse.y, factor.specular.y, to: green, size)
                                addLayer(lambert, highlight, factor.diffuse.z, factor.specular.z, to: blue, size)
                            }
                            if shader.reflection != nil {
                                for i in 0..<size {
                                    let c = shader.finished(SIMD3(red[i], green[i], blue[i]), at: normal(i, j, size))
                                    (red[i], green[i], blue[i]) = (c.r, c.g, c.b)
                                }
                            }
                            storeAsBytes(red, size); storeAsBytes(green, size); storeAsBytes(blue, size)
                            for i in 0..<size {
                                let texel = rgb.baseAddress! + 3 * (row + i)
                                (texel[0], texel[1], texel[2]) = (UInt8(red[i]), UInt8(green[i]), UInt8(blue[i]))
                            }
                        }
                    }
                }
            }
        }
    }

    /// One channel of one layer added to a row's sums where the light reaches it:
    /// `(sum + diffuse * lambert) + specular * highlight`, eight texels at a time.
    @inline(__always)
    private static func addLayer(_ lambert: UnsafePointer<Float>, _ highlight: UnsafePointer<Float>,
                                 _ diffuse: Float, _ specular: Float,
                                 to sums: UnsafeMutablePointer<Float>, _ count: Int) {
        typealias Lanes = SIMD8<Float>
        let lanes = Lanes.scalarCount
        var i = 0
        while i + lanes <= count {
            let l = UnsafeRawPointer(lambert + i).loadUnaligned(as: Lanes.self)
            let h = UnsafeRawPointer(highlight + i).loadUnaligned(as: Lanes.self)
            let s = UnsafeRawPointer(sums + i).loadUnaligned(as: Lanes.self)
            let sum = (s + diffuse * l) + specular * h
            UnsafeMutableRawPointer(sums + i).storeBytes(of: s.replacing(with: sum, where: l .> 0), as: Lanes.self)
            i += lanes
        }
        while i < count {
            if lambert[i] > 0 { sums[i] = (sums[i] + diffuse * lambert[i]) + specular * highlight[i] }
            i += 1
        }
    }

    /// Each value `v` made `Float(unitByte(v))`, the byte a lookup holds for it, eight at a
    /// time. The byte is `x = clamped * 255 + 0.5` rounded down, which
    /// (0.5 ≤ x ≤ 255.5) is x rounded to the nearest integer by adding and taking away
    /// 2²³, less one where that went up: plain SSE2 arithmetic, exact, with no calls.
    @inline(__always)
    static func storeAsBytes(_ values: UnsafeMutablePointer<Float>, _ count: Int) {
        typealias Lanes = SIMD8<Float>
        let lanes = Lanes.scalarCount
        var i = 0
        while i + lanes <= count {
            var v = UnsafeRawPointer(values + i).loadUnaligned(as: Lanes.self)
            v.replace(with: 0, where: v .< 0)
            v.replace(with: 1, where: v .> 1)
            let x = v * 255 + 0.5
            var byte = (x + 8_388_608) - 8_388_608
            byte.replace(with: byte - 1, where: byte .> x)
            UnsafeMutableRawPointer(values + i).storeBytes(of: byte, as: Lanes.self)
            i += lanes
        }
        while i < count {
            values[i] = Float(unitByte(values[i]))
            i += 1
        }
    }

    /// `body` with the layers' terms as buffers, in order.
    private static func withTerms<R>(of layers: ArraySlice<LightLayer>, _ taken: [UnsafeBufferPointer<Float>] = [],
                                     _ body: ([UnsafeBufferPointer<Float>]) -> R) -> R {
        guard let first = layers.first else { return body(taken) }
        return first.terms.withUnsafeBufferPointer { terms in
            withTerms(of: layers.dropFirst(), taken + [terms], body)
        }
    }
}
