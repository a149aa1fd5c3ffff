/// A key's path in a scene, as `--set`, tracks, batch columns, the editor and errors write it:
/// a key of the scene (`radius`, `light1.hue`, `dropShadow.size`, `pointLights[0].x`), or one
/// of those in one layer (`layers[1].material`, `layers[0].dropShadow.size`). The one parser of
/// such paths.
public struct ScenePath: Sendable, Equatable, CustomStringConvertible {
    /// The layer `layers[N].` names; nil for a key of the scene itself (`layers` included).
    public var layer: Int?
    /// The key in the scene or in the layer: `size`, `light1.hue`, `dropShadow.size`.
    public var key: String
    /// `key`'s steps.
    public var steps: [SchemaPathStep]

    /// Reads `text`; refuses what is no path, with examples.
    public init(_ text: String) throws(MercurialError) {
        let trimmed = text.trimmingWhitespace()
        guard let steps = SchemaPathStep.parse(trimmed), !steps.isEmpty else {
            throw MercurialError("'\(shortQuote(trimmed))' is not a key path; write KEY (radius, light1.hue), BLOCK.KEY (dropShadow.size) or layers[N].KEY (layers[0].size)")
        }
        guard case .key("layers") = steps[0], steps.count > 1, case .index(let index) = steps[1] else {
            (layer, key, self.steps) = (nil, trimmed, steps)
            return
        }
        guard steps.count > 2, case .key = steps[2] else {
            throw MercurialError("'\(shortQuote(trimmed))' names a layer but none of its keys; write layers[\(index)].KEY, e.g. layers[\(index)].size")
        }
        let rest = Array(steps.dropFirst(2))
        (layer, key, self.steps) = (index, SchemaPathStep.text(rest[...]), rest)
    }

    /// A key of the scene itself.
    init(key: String, steps: [SchemaPathStep]) { (layer, self.key, self.steps) = (nil, key, steps) }

    /// `layers[N].KEY` as N and KEY; nil for a path of the scene's own key, or no path.
    public static func layerKey(_ text: String) -> (index: Int, key: String)? {
        guard let path = try? ScenePath(text), let layer = path.layer else { return nil }
        return (layer, path.key)
    }

    /// The path as written: `layers[1].size`.
    public var description: String { (layer.map { "layers[\($0)]." } ?? "") + key }

    /// The key in its layer, as a key of that layer's settings.
    public var inLayer: ScenePath { ScenePath(key: key, steps: steps) }

    /// Refuses a layer `settings` lack, naming those it has.
    public func checkLayer(in settings: RenderSettings, role: String = "") throws(MercurialError) {
        guard let layer, !settings.layers.indices.contains(layer) else { return }
        let count = settings.layers.count
        guard count > 0 else {
            throw MercurialError("\(role)'\(shortQuote(description))' names layer \(layer), but the scene has no \"layers\"; give it \"layers\" or leave the key out")
        }
        throw MercurialError("\(role)'\(shortQuote(description))' names layer \(layer), but the scene has \(count) layer\(count == 1 ? "" : "s") (layers[0] to layers[\(count - 1)]); use one of those")
    }

    /// The key nearest to `text` that a path may name in `settings` (its parameters, its nested
    /// blocks' keys, its layers' keys), for "did you mean".
    public static func nearest(to text: String, in settings: RenderSettings) -> String? {
        var known = ParameterGroup.allParameters.map(\.key) + SceneSchema.leafPaths(in: settings)
            + SceneSchema.blocks.keys
        if let layer = try? ScenePath(text).layer, settings.layers.indices.contains(layer) {
            known += (SceneSchema.settings.keys + SceneSchema.layer.keys + [SceneSchema.materialKey.key])
                .map { "layers[\(layer)].\($0)" }
        }
        return closestMatch(to: text, in: known)
    }
}

extension RenderSettings {
    /// Sets the key `path` names to `text` (as `--set` and a batch column give it): a key of the
    /// scene in the scene and in every layer (over the layers' own), a layer's key in that layer.
    /// A material is a preset the scene is read over, so it is refused here.
    public mutating func set(_ path: ScenePath, text: String) throws(MercurialError) {
        if let layer = path.layer {
            try path.checkLayer(in: self)
            if path.key == SceneSchema.materialKey.key {
                throw MercurialError("'\(path)' is layer \(layer)'s preset, which its scene is read over: give it with the scene (--params scene.json)")
            }
            do {
                try layers[layer].settings.set(path.inLayer, text: text)
            } catch {
                throw MercurialError("layers[\(layer)]: \(error.message)")
            }
            return
        }
        if path.key == SceneSchema.materialKey.key {
            throw MercurialError("'material' is the preset a scene is read over, not a key to set: give --material NAME (or for one layer, --set 'layers[N].material=NAME' with --params)")
        }
        if SceneSchema.isNested(path.key), (try? ParameterGroup.parameter(forKey: path.key)) == nil {
            try SceneSchema.assign(path.key, text: text, to: &self)
        } else {
            let parameter = try ParameterGroup.parameter(forKey: path.key)
            try set(parameter, to: try parameter.parse(text))
        }
        for i in layers.indices { try layers[i].settings.set(path, text: text) }
    }
}
