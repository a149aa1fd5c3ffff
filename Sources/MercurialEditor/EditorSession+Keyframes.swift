import MercurialKit

/// The animation's keyframes and the playhead, as the page's timeline edits them.
extension EditorSession {
    /// The pseudo-key of a change that adds, removes or moves a keyframe: its value is
    /// `{"key": K, "t": seconds, "remove": false}`, the keyframe taking K's value as it is now,
    /// or `{"key": K, "t": seconds, "to": seconds}`, K's keyframe at `t` moved to `to` (with its
    /// timing), or `{"key": K, "t": seconds, "timing": "easeIn"}`, its easing to the next one
    /// (null: linear), or `{"key": K, "t": seconds, "value": V}` (with a timing or not), the
    /// keyframe put as given.
    /// (`@keyframe:K` is the same change, for a batch changing the keyframes of several keys.)
    public static let keyframeKey = "@keyframe"

    func keyframe(_ text: String, of settings: RenderSettings, timeline: Timeline?, sequence: Bool,
                          in document: inout SceneDocument) throws(MercurialError) {
        guard let root = try? JSONDocument.parse(Array(text.utf8)),
              case .string(let key)? = root.value.at([.key("key")]), case .number(let t)? = root.value.at([.key("t")]) else {
            throw MercurialError("a keyframe is {\"key\": KEY, \"t\": SECONDS}")
        }
        guard let timeline else {
            throw MercurialError("this scene has no \"animation\"; add one (e.g. \"animation\": {\"duration\": 2}) to keyframe its values")
        }
        guard !sequence else {
            throw MercurialError("a sequence's titles are keyframed in their own scenes: give a step's \"scene\" an \"animation\" with \"tracks\"")
        }
        func check(_ t: Double) throws(MercurialError) {
            guard t >= 0, t <= timeline.duration else {
                throw MercurialError("a keyframe at \(Self.number(t)) s is outside the animation: give a time from 0 to \(Self.number(timeline.duration)) s")
            }
        }
        try check(t)
        if case .number(let to)? = root.value.at([.key("to")]) {
            try check(to)
            try document.moveKeyframe(key, from: t, to: to)
            return
        }
        if case .bool(true)? = root.value.at([.key("remove")]) {
            document.keyframe(key, at: t, value: nil)
            return
        }
        let (value, timing) = (root.value.at([.key("value")]), root.value.at([.key("timing")]))
        guard value != nil || timing != nil else {
            try setKeyframe(key, at: t, of: settings, in: &document)
            return
        }
        // A value given (an undo putting back a keyframe it took out): set as given, checked
        // as the file's when the document is read again.
        if let value {
            guard timeline.tracks.contains(where: { $0.key == key }) || Self.value(of: key, in: settings) != nil else {
                throw MercurialError("'\(key)' is no key a track can animate (see 'mercurial params')")
            }
            document.keyframe(key, at: t, value: value)
        }
        if let timing {
            // The easing from this keyframe to the next (null: linear, left out).
            switch timing {
            case .string(let text):
                _ = try TimingFunction.parse(text)
                try document.keyframeTiming(key, at: t, timing)
            case .null:
                try document.keyframeTiming(key, at: t, nil)
            default:
                throw MercurialError("a keyframe's timing is a name such as \"easeIn\" or cubicBezier(x1, y1, x2, y2)")
            }
        }
    }

    /// A change's value as JSON, or as a string when it is not JSON (`Jane Doe`, `gold`).
    static func jsonValue(_ text: String) -> JSONValue {
        (try? JSONDocument.parse(Array(text.utf8)))?.value ?? .string(text)
    }

    /// Puts the keyframe of `key` at `t` in `document`, with the value `settings` give the key.
    func setKeyframe(_ key: String, at t: Double, of settings: RenderSettings,
                             in document: inout SceneDocument) throws(MercurialError) {
        guard let value = Self.value(of: key, in: settings) else {
            throw MercurialError("'\(key)' is no key a track can animate (see 'mercurial params')")
        }
        document.keyframe(key, at: t, value: value)
    }

    /// The value `settings` give a track's key: a parameter, a nested block's number or colour,
    /// or either of a layer (`layers[1].size`).
    static func value(of key: String, in settings: RenderSettings) -> JSONValue? {
        if let layer = ScenePath.layerKey(key), settings.layers.indices.contains(layer.index) {
            return value(of: layer.key, in: settings.layers[layer.index].settings)
        }
        if let parameter = try? ParameterGroup.parameter(forKey: key), parameter.key == key {
            return JSONValue(parameter.value(in: settings))
        }
        if let value = SceneSchema.value(at: key, in: settings) { return value }
        // An axis the scene does not set has the font's default (what its slider shows).
        if key.hasPrefix("variations."), let axis = (try? FontDescription.axes(of: settings.font))?
            .first(where: { "variations." + $0.tag == key }) {
            return .number(axis.defaultValue)
        }
        return nil
    }

    /// A playhead's value from a page: a frame of the animation, or `none`.
    static func frame(_ value: String, of timeline: Timeline?) throws(EditorChangeError) -> Int? {
        if value == "none" { return nil }
        guard let timeline else {
            throw EditorChangeError(key: playheadKey, message: "this scene has no \"animation\"; add one (e.g. \"animation\": {\"duration\": 2}) to move through time")
        }
        guard let index = Int(value), (0..<timeline.frameCount).contains(index) else {
            throw EditorChangeError(key: playheadKey, message: "frame '\(value)' is not in the animation: give a frame from 0 to \(timeline.frameCount - 1) (\(Self.number(timeline.duration)) s at \(Self.number(timeline.fps)) frames/s)")
        }
        return index
    }
}
