import ArgumentParser
import MercurialKit

/// `--params`: a scene file, for the commands that take one as an option (animate
/// and watch take theirs as their argument).
struct SceneFileOption: ParsableArguments {
    @Option(name: .customLong("params"), help: ArgumentHelp("A scene file (JSON); options given here override it.", valueName: "scene.json"))
    var sceneFile: String?
}

/// Options that choose the material and the shading sphere's parameters.
struct MaterialOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A bundled material or a material JSON file (default: \(RenderSettings().material); see 'mercurial materials').", valueName: "name|path"))
    var material: String?

    @Option(help: .parameter("shininess"), transform: decimalFlag)
    var shininess: Double?

    @Option(name: .customLong("set"), help: ArgumentHelp("Set any parameter, repeatable, e.g. --set light1.hue=0.6 or --set align=left (see 'mercurial params').", valueName: "key=value"))
    var assignments: [String] = []

    @Flag(help: ArgumentHelp("Read the text as styled runs: {KEY=VALUE …: TEXT} is a run with its own material, font, size, letterSpacing, baselineShift or sphere keys, e.g. 'Gold {material=chrome: and chrome}'; \\{ \\} \\\\ stand for { } \\."))
    var markup = false

    /// Settings from the material, then the scene file, then the text argument,
    /// then the parameter flags of these options and of `flags`, then `--set`.
    func settings(sceneFile: String? = nil, text: String? = nil,
                  flags: [any ParsableArguments] = []) throws -> RenderSettings {
        try settingsAndTimeline(sceneFile: sceneFile, text: text, flags: flags).settings
    }

    /// The same, with the scene file's animation when it has one.
    func settingsAndTimeline(sceneFile: String? = nil, text: String? = nil,
                             flags: [any ParsableArguments] = [],
                             recipe: (name: String, json: String)? = nil,
                             animation: SceneFile.AnimationOverride? = nil) throws -> (settings: RenderSettings, timeline: Timeline?) {
        var settings = RenderSettings()
        var timeline: Timeline?
        let layerMaterials = try self.layerMaterials()
        if let recipe {
            timeline = try SceneFile.load(json: Array(recipe.json.utf8), name: recipe.name, into: &settings,
                                          materialOverride: material, layerMaterials: layerMaterials.byIndex)
        } else if let sceneFile {
            timeline = try SceneFile.load(sceneFile, into: &settings, materialOverride: material,
                                          layerMaterials: layerMaterials.byIndex, animation: animation)
        } else if let material {
            try MercurialKit.Materials.apply(material, to: &settings)
        }
        for path in layerMaterials.paths { try path.checkLayer(in: settings, role: "--set ") }
        for unused in settings.unusedKeys { warn(MercurialWarning(unused.message)) }
        if let text { settings.text = text }
        try applyFlags(flags, to: &settings)
        if markup, settings.runs.isEmpty, let text = settings.text { try settings.setMarkup(text) }
        return (settings, timeline)
    }

    /// The parameter flags of these options and of `flags`, then `--set`.
    /// A scene's layers each take them too, over their own keys; `--set 'layers[N].KEY=…'` sets one layer's.
    func applyFlags(_ flags: [any ParsableArguments], to settings: inout RenderSettings) throws {
        func dedicated(to settings: inout RenderSettings) throws {
            for arguments in [self] + flags { try applyParameterFlags(of: arguments, to: &settings) }
            for i in settings.layers.indices { try dedicated(to: &settings.layers[i].settings) }
        }
        try dedicated(to: &settings)
        let layerMaterials = try self.layerMaterials().assignments
        for assignment in assignments where !layerMaterials.contains(assignment) { try settings.set(assignment: assignment) }
    }

    /// The `--set 'layers[N].material=NAME'`: a layer's preset, which its scene is read over.
    private func layerMaterials() throws -> (paths: [ScenePath], byIndex: [Int: String], assignments: Set<String>) {
        var paths: [ScenePath] = [], byIndex: [Int: String] = [:], taken: Set<String> = []
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), let path = try? ScenePath(String(assignment[..<equals])),
                  let layer = path.layer, path.key == "material" else { continue }
            paths.append(path)
            taken.insert(assignment)
            byIndex[layer] = String(assignment[assignment.index(after: equals)...]).trimmingWhitespace()
        }
        return (paths, byIndex, taken)
    }

    /// The scene file's `sequence`, or nil when it has none: each title's settings
    /// come from the material, the scene around the sequence, the title's own scene,
    /// then these options' flags and those of `flags`, then `finish`.
    func sequence(sceneFile: String, flags: [any ParsableArguments] = [],
                  finish: @escaping (inout RenderSettings) -> Void = { _ in }) throws -> TitleSequence? {
        let layerMaterials = try self.layerMaterials()
        let sequence = try TitleSequence.load(sceneFile, materialOverride: material,
                                              layerMaterials: layerMaterials.byIndex) { settings in
            // Each title as one scene is: a layer's material names a layer it has.
            for path in layerMaterials.paths { try path.checkLayer(in: settings, role: "--set ") }
            try applyFlags(flags, to: &settings)
            finish(&settings)
        }
        var warned: Set<String> = []
        for step in sequence?.steps ?? [] {
            for unused in step.settings.unusedKeys where warned.insert(unused.message).inserted {
                warn(MercurialWarning(unused.message))
            }
        }
        return sequence
    }
}
