import MercurialKit

/// A page's changes, applied to the scene as the editor holds it (`document`), and the settings read from it.
extension EditorSession {
    /// A change from a page: `key` a parameter's key (or `material`), `value` as
    /// the command line's `--set KEY=VALUE` takes it.
    public struct Change: Sendable {
        public var key: String
        public var value: String
        public init(key: String, value: String) { (self.key, self.value) = (key, value) }
    }

    /// Applies `changes` together, or none of them: the error is the command line's
    /// for the same `--set` (and names the key in `failedKey`). Returns the new
    /// revision, whether anything changed (when nothing did, no frame follows) and the
    /// keyframes an edit at the playhead ADDED (key → seconds): their undo takes them out
    /// rather than setting them to the value before.
    /// Each change is recorded in the document (see `record`), and the settings are the
    /// document read again: what is shown is what a save writes.
    public func apply(_ changes: [Change], tag: String?) throws(EditorChangeError)
        -> (revision: Int, changed: Bool, addedKeyframes: [String: Double]) {
        var next = settings
        var nextDocument = document
        var nextTimeline = timeline
        var nextSequence = sequence
        var nextPlayhead = playhead
        var added: [String: Double] = [:]
        for change in changes {
            if change.key == Self.playheadKey {
                nextPlayhead = try Self.frame(change.value, of: nextTimeline)
                continue
            }
            do {
                if nextSequence == nil, nextTimeline == nil, Self.needsAnimation(change) {
                    Self.addAnimation(to: &nextDocument)
                    let loaded = try nextDocument.load(as: scenePath)
                    (next, nextTimeline, nextSequence) = (loaded.settings, loaded.timeline, loaded.sequence)
                }
                if change.key == Self.keyframeKey || change.key.hasPrefix(Self.keyframeKey + ":") {
                    try keyframe(change.value, of: next, timeline: nextTimeline, sequence: nextSequence != nil, in: &nextDocument)
                } else if nextSequence == nil, let timeline = nextTimeline, let frame = nextPlayhead,
                          timeline.tracks.contains(where: { $0.key == change.key }) {
                    // As After Effects does: a key with a track, edited at the playhead, sets
                    // (or adds) its keyframe there; its base value would only be overridden.
                    var edited = next
                    if let path = Self.documentPath(change.key), case .key("layers") = path[0] {
                        // A layer's key: set in a copy of the document, read as the file's would be.
                        var trial = nextDocument
                        try trial.assign(change.key, path, Self.jsonValue(change.value))
                        try checkLayers(trial["layers"], had: document["layers"])
                        edited = try trial.load(as: scenePath).settings
                    } else {
                        try applyOne(change, to: &edited)
                    }
                    let t = timeline.time(ofFrame: min(frame, timeline.frameCount - 1))
                    if nextDocument.keyframeValue(change.key, at: t) == nil { added[change.key] = t }
                    try setKeyframe(change.key, at: t, of: edited, in: &nextDocument)
                } else if let path = Self.documentPath(change.key) {
                    try Self.checkStepKey(change.key, path)
                    // The animation's, dynamics', in/out's, layers' and a sequence step's keys: set in the
                    // document, checked as the file's are when it is read. A whole block (`layers`, `in`)
                    // set to none is taken out.
                    let value = Self.jsonValue(change.value)
                    if path.count == 1, case .key(let block) = path[0] {
                        let taken = ["none", "null"].contains(change.value.trimmingCharacters(in: .whitespaces))
                        nextDocument.set(block, taken ? nil : value)
                    } else {
                        try nextDocument.assign(change.key, path, value)
                    }
                    if case .key("layers") = path[0] { try checkLayers(nextDocument["layers"], had: document["layers"]) }
                    if case .key("sequence") = path[0] { try checkSteps(nextDocument["sequence"], had: document["sequence"]) }
                } else if change.key == Self.textRunsKey || (change.key == "text" && Self.hasRuns(nextDocument)) {
                    try setRuns(change, in: &nextDocument)
                } else {
                    try applyOne(change, to: &next)
                    try record(change, from: next, in: &nextDocument)
                }
                let loaded = try nextDocument.load(as: scenePath)
                try checkImages(loaded.settings, had: settings)
                (next, nextTimeline, nextSequence) = (loaded.settings, loaded.timeline, loaded.sequence)
            } catch {
                throw EditorChangeError(key: change.key, message: pageMessage(error.message), kind: error.kind)
            }
        }
        nextPlayhead = Self.playhead(nextPlayhead, in: nextTimeline, sequence: nextSequence)
        // A sequence's steps are not settings: any change to its scene is one to show.
        let moved = nextPlayhead != playhead || nextTimeline != timeline
            || (nextSequence != nil && nextDocument.text != document.text)
        document = nextDocument
        (timeline, sequence, playhead) = (nextTimeline, nextSequence, nextPlayhead)
        guard next != settings || moved else { return (revision, false, added) }
        settings = next
        changed(tag: tag)
        return (revision, true, added)
    }

    /// The page's switch between plain text and styled runs (`on`, `off`).
    static let textRunsKey = "@textRuns"

    /// Whether the scene's text is a list of styled runs.
    static func hasRuns(_ document: SceneDocument) -> Bool {
        if case .array? = document["text"] { true } else { false }
    }

    /// The scene's text as runs: `text` given as inline markup (`TextRuns.markup`) while the scene's
    /// text is runs, or the switch turned on (the text, one run) or off (the runs' text, plain). A page
    /// names bundled materials and the fonts it may (`allowedFont`), never a file to read.
    func setRuns(_ change: Change, in document: inout SceneDocument) throws(MercurialError) {
        let plain: String
        if case .string(let text)? = document["text"] { plain = text } else { plain = settings.text ?? "" }
        if change.key == Self.textRunsKey {
            switch change.value {
            case "on": if !Self.hasRuns(document) { document.set("text", .list([.string(plain)])) }
            case "off": if Self.hasRuns(document) { document.set("text", .string(settings.text ?? "")) }
            default: throw MercurialError("\(Self.textRunsKey) is 'on' or 'off', not '\(change.value)'")
            }
            return
        }
        let runs = try TextRuns.markup(change.value)
        guard case .array(let items) = runs.value, !items.isEmpty else {
            throw MercurialError("the text is empty; give the title's text")
        }
        for case .object(let members) in items.map(\.value) {
            for member in members {
                guard case .string(let value) = member.value.value else { continue }
                if member.key == "material", !materials.contains(value) {
                    throw MercurialError("unknown material '\(value)'; bundled: \(materials.joined(separator: ", "))")
                }
                if member.key == "font" { _ = try allowedFont(value) }
            }
        }
        document.set("text", runs.value)
    }

    /// A change that needs the scene to have an animation: an `in` or `out` (the scene's or a
    /// layer's, not taken out), or a keyframe.
    static func needsAnimation(_ change: Change) -> Bool {
        if change.key == keyframeKey || change.key.hasPrefix(keyframeKey + ":") { return true }
        let key = change.key.replacing(/^layers\[\d+\]\./, with: "")
        guard ["in", "out"].contains(key) || key.hasPrefix("in.") || key.hasPrefix("out.") else { return false }
        return !["none", "null"].contains(change.value.trimmingCharacters(in: .whitespaces))
    }

    /// The animation a scene without one is given when a page adds an in, an out or a
    /// keyframe to it: 3 s at 30 frames a second.
    static func addAnimation(to document: inout SceneDocument) {
        document.set("animation", .members([("duration", .number(3)), ("fps", .number(30))]))
    }

    /// `message` as the page shows it: the scene the page edits is the one in memory, so the
    /// scene file's name and a line and column in it (of a text the page may not have saved
    /// yet) are left out; other files keep theirs.
    func pageMessage(_ message: String) -> String {
        let names = [UserPath(checked: scenePath).absolute, scenePath, UserPath(checked: scenePath).description]
        guard let name = names.first(where: { message.hasPrefix($0 + ":") }) else { return message }
        var rest = Substring(message.dropFirst(name.count + 1))
        // ":LINE:COLUMN: " after the name, when there is one.
        let place = rest.prefix { $0.isNumber || $0 == ":" }
        if place.contains(":"), rest.dropFirst(place.count).hasPrefix(" ") { rest = rest.dropFirst(place.count) }
        return String(rest.drop { $0 == " " })
    }

    /// The playhead kept within `timeline` (nil without one); a sequence's is on a frame from the start.
    static func playhead(_ frame: Int?, in timeline: Timeline?, sequence: TitleSequence?) -> Int? {
        guard let timeline, let frame = frame ?? (sequence == nil ? nil : 0) else { return nil }
        return min(frame, timeline.frameCount - 1)
    }

    /// A number as a message shows it (`2`, `0.5`).
    static func number(_ value: Double) -> String { String(format: "%g", value) }

    /// The path of a key the editor sets in the document, as the file holds it: those the scene
    /// file's reader reads with the timeline (`animation.fps`, `dynamics.ropes`, `in`, `out.duration`,
    /// a sequence's step: `sequence[1].hold`, `sequence[0].scene.text`) and the layers (`layers`,
    /// `layers[1].text`), read over the scene's top level; nil for the others.
    static func documentPath(_ key: String) -> [SchemaPathStep]? {
        guard !key.hasPrefix("animation.tracks"), let path = SchemaPathStep.parse(key),
              case .key(let block)? = path.first else { return nil }
        switch block {
        case "animation", "dynamics": return path.count > 1 ? path : nil
        case "layers":
            // A layer's light key (`layers[1].light2.x`) is one key of the layer, as the scene's is.
            if path.count == 4, case .key(let light) = path[2], case .key(let field) = path[3], SceneDocument.lightKey(light + "." + field) != nil {
                return Array(path.prefix(2)) + [.key(light + "." + field)]
            }
            return path
        case "in", "out", "sequence": return path
        default: return nil
        }
    }

    /// The scene file as the editor holds it (the page reads the animation's and dynamics' values from it).
    var documentValue: JSONValue { .object(document.members) }

    /// The scene's animation, as the page's timeline shows it.
    public var animation: Timeline? { timeline }

    /// The scene's sequence of titles, if it has one.
    public var titleSequence: TitleSequence? { sequence }

    /// The settings as the controls show them: at the playhead, each key with a track takes
    /// the track's value there (an edit of it sets that keyframe; see `apply`).
    public var shownSettings: RenderSettings {
        guard let playhead, let timeline, sequence == nil else { return settings }
        var shown = settings
        for track in timeline.tracks { track.apply(at: timeline.time(ofFrame: playhead), to: &shown) }
        return shown
    }

    /// The keys of the document that the preset does not give (the page marks their controls).
    public var overriddenKeys: [String] {
        document.members.map(\.key).filter { !["material", "description", "generator"].contains($0) }
    }

    /// Writes `change`, applied to `settings`, into `document`.
    func record(_ change: Change, from settings: RenderSettings, in document: inout SceneDocument) throws(MercurialError) {
        if change.key == "material" {
            document.set("material", .string(change.value))
            return
        }
        let base = try preset(document["material"] == nil ? nil : settings.material)
        if let parameter = try? ParameterGroup.parameter(forKey: change.key) {
            document.record(parameter, from: settings, base: base, folder: folder)
        } else if case .key(let block)? = SchemaPathStep.parse(change.key)?.first {
            document.recordBlock(block, from: settings, base: base)
        }
    }

    /// The settings of the preset `name` alone (nil: the defaults, which are the mercurial preset's).
    func preset(_ name: String?) throws(MercurialError) -> RenderSettings {
        guard let name else { return RenderSettings() }
        if let known = presets[name] { return known }
        var base = RenderSettings()
        try Materials.apply(name, to: &base)
        presets[name] = base
        return base
    }

    func applyOne(_ change: Change, to settings: inout RenderSettings) throws(MercurialError) {
        if change.key == "material" {
            // Only a bundled preset: a page never names a file to read.
            guard materials.contains(change.value) else {
                throw MercurialError("unknown material '\(change.value)'; bundled: \(materials.joined(separator: ", "))")
            }
            try Materials.apply(change.value, to: &settings)
            return
        }
        if SceneSchema.isNested(change.key), (try? ParameterGroup.parameter(forKey: change.key)) == nil {
            // A key of a nested block (a control made from the scene schema): no files are named there.
            return try SceneSchema.assign(change.key, text: change.value, to: &settings)
        }
        let parameter = try ParameterGroup.parameter(forKey: change.key)
        var value = try parameter.parse(change.value, culprit: "\(parameter.key) = '\(change.value)'")
        if case .text(let text) = value {
            switch parameter.kind {
            case .path: value = .text(try inputFile(text, of: parameter, key: parameter.key))
            case .font: value = .text(try allowedFont(text))
            default: break
            }
        }
        try settings.set(parameter, to: value)
    }
}

