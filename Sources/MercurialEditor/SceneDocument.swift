import MercurialKit

/// The scene as its file holds it: the members in the file's order. The editor's
/// settings are always this document read as a scene file is read (its `material`
/// preset first, then its keys on top), so a scene is its preset plus the keys the
/// user set: switching the preset keeps them, and a save writes the file's own
/// members back in their order, the ones the editor has no control for included.
struct SceneDocument: Sendable {
    private(set) var members: [JSONMember]

    init(members: [JSONMember]) { self.members = members }

    /// The document of a scene file's bytes (already read as a scene, so they parse).
    init(parsing bytes: [UInt8]) throws(MercurialError) {
        let root: JSONNode
        do { root = try JSONDocument.parse(bytes) } catch { throw MercurialError("\(error.location): \(error.reason)") }
        guard case .object(let members) = root.value else { throw MercurialError("a scene file must be a JSON object {…}") }
        self.members = members
    }

    subscript(key: String) -> JSONValue? { members.first { $0.key == key }?.value.value }

    /// Sets `key` where it is, or adds it (`material` near the top, the rest at the end); nil removes it.
    mutating func set(_ key: String, _ value: JSONValue?) {
        let index = members.firstIndex { $0.key == key }
        guard let value else {
            if let index { members.remove(at: index) }
            return
        }
        let member = JSONMember(key: key, keyLocation: .none, value: JSONNode(value: value, location: .none))
        if let index {
            members[index] = member
        } else if key == "material" {
            members.insert(member, at: members.first?.key == "description" ? 1 : 0)
        } else {
            members.append(member)
        }
    }

    /// The JSON text of the document, a member a line (the form of the bundled scenes).
    var text: String { JSONValue.object(members).text(lines: 1) + "\n" }

    /// What a scene gives the editor: its settings, its animation, and its sequence of titles if it has one.
    struct Loaded {
        var settings: RenderSettings
        var timeline: Timeline?
        var sequence: TitleSequence? = nil
    }

    /// The settings and animation this document gives, read as the scene file at `path` would be,
    /// from its members as they are in memory (no text is written and parsed again): a member read
    /// from the file keeps its place there for its errors, one set since names the file alone.
    /// A sequence's settings are the scene around it (what every title starts from), and its
    /// timeline is the sequence's length and rate, without tracks.
    func load(as path: String) throws(MercurialError) -> Loaded {
        var settings = RenderSettings()
        guard self["sequence"] != nil else {
            let timeline = try SceneFile.load(members: members, name: path, into: &settings)
            return Loaded(settings: settings, timeline: timeline)
        }
        try SceneFile.load(members: members.filter { $0.key != "sequence" && $0.key != "animation" }, name: path, into: &settings)
        let sequence: TitleSequence
        do {
            guard let loaded = try TitleSequence.load(members: members, name: path) else {
                throw MercurialError("\(path): the scene's \"sequence\" could not be read")
            }
            sequence = loaded
        } catch let error as MercurialError {
            throw error
        } catch {
            throw MercurialError("\(path): \(error)")
        }
        return Loaded(settings: settings, timeline: Timeline(duration: sequence.duration, fps: sequence.fps, loop: sequence.loop),
                      sequence: sequence)
    }

    /// Records the parameter `parameter`'s value in `settings` as the document's: removed
    /// when it is the preset's own (`base`), so that another preset's value shows through.
    /// A light's key goes into the file's `lights` array when it has one.
    mutating func record(_ parameter: Parameter, from settings: RenderSettings, base: RenderSettings, folder: String) {
        let value = parameter.value(in: settings)
        var json: JSONValue? = value == parameter.value(in: base) ? nil : JSONValue(value)
        if case .string(let path)? = json, parameter.kind == .path || parameter.kind == .font,
           let real = EditorSession.realPath(folder), path.hasPrefix(real + "/") {
            // Relative to the scene's folder, as a scene file's paths are: the folder can move.
            json = .string(String(path.dropFirst(real.count + 1)))
        }
        if let (index, field) = Self.lightKey(parameter.key), case .array(var lights)? = self["lights"] {
            while lights.count <= index { lights.append(JSONNode(value: .object([]), location: .none)) }
            guard case .object(var fields) = lights[index].value else { return }
            fields.removeAll { $0.key == field }
            if let json { fields.append(JSONMember(key: field, keyLocation: .none, value: JSONNode(value: json, location: .none))) }
            lights[index] = JSONNode(value: .object(fields), location: .none)
            set("lights", .array(lights))
            set(parameter.key, nil)
            return
        }
        set(parameter.key, json)
    }

    /// Records the nested block `key` (`pointLights`, `vine`, …) as `settings` have it; removed when it is the preset's.
    mutating func recordBlock(_ key: String, from settings: RenderSettings, base: RenderSettings) {
        let value = SceneSchema.settings.write(settings).at([.key(key)])
        let preset = SceneSchema.settings.write(base).at([.key(key)])
        set(key, value?.text() == preset?.text() ? nil : value)
    }

    /// Puts a keyframe `{"t": t, "value": value}` in the animation's track for `key` (a keyframe
    /// at the same time keeps its other keys, its `timing`), or with `value` nil takes the keyframe
    /// at `t` away (and the track, when it was the last); keyframes stay in time order.
    mutating func keyframe(_ key: String, at t: Double, value: JSONValue?) {
        editKeyframe(key, at: t) { members in
            guard let value else { members = nil; return }
            var kept = members ?? [Self.member("t", .number(t))]
            Self.put("value", value, in: &kept)
            members = kept
        }
    }

    /// Sets the `timing` of `key`'s keyframe at `t` (nil: left out, linear); refused when there is none.
    mutating func keyframeTiming(_ key: String, at t: Double, _ timing: JSONValue?) throws(MercurialError) {
        guard keyframeValue(key, at: t) != nil else {
            throw MercurialError("'\(key)' has no keyframe at \(EditorSession.number(t)) s (did the scene change on disk?)")
        }
        editKeyframe(key, at: t) { members in
            guard var kept = members else { return }
            if let timing { Self.put("timing", timing, in: &kept) } else { kept.removeAll { $0.key == "timing" } }
            members = kept
        }
    }

    /// Edits the members of `key`'s keyframe at `t` (within a microsecond; nil when there is
    /// none, and set to nil to take it out), keeping the track in time order; a track left
    /// without keyframes goes.
    private mutating func editKeyframe(_ key: String, at t: Double, _ edit: (inout [JSONMember]?) -> Void) {
        guard case .object(var animation)? = self["animation"] else { return }
        var tracks: [JSONMember] = []
        if let index = animation.firstIndex(where: { $0.key == "tracks" }), case .object(let existing) = animation[index].value.value {
            tracks = existing
        }
        var frames: [JSONNode] = []
        if let track = tracks.first(where: { $0.key == key }), case .array(let existing) = track.value.value { frames = existing }
        func time(_ node: JSONNode) -> Double? { if case .number(let v)? = node.value.at([.key("t")]) { v } else { nil } }
        let index = frames.firstIndex { time($0).map { abs($0 - t) < 1e-6 } ?? false }
        var members: [JSONMember]? = nil
        if let index, case .object(let existing) = frames[index].value { members = existing }
        edit(&members)
        if let index { frames.remove(at: index) }
        if let members {
            frames.append(JSONNode(value: .object(members), location: .none))
            frames.sort { (time($0) ?? 0) < (time($1) ?? 0) }
        }
        tracks.removeAll { $0.key == key && frames.isEmpty }
        if !frames.isEmpty {
            let member = Self.member(key, .array(frames))
            if let index = tracks.firstIndex(where: { $0.key == key }) { tracks[index] = member } else { tracks.append(member) }
        }
        Self.put("tracks", .object(tracks), in: &animation)
        set("animation", .object(animation))
    }

    private static func member(_ key: String, _ value: JSONValue) -> JSONMember {
        JSONMember(key: key, keyLocation: .none, value: JSONNode(value: value, location: .none))
    }

    /// Sets `key` in `members` where it is, or appends it.
    private static func put(_ key: String, _ value: JSONValue, in members: inout [JSONMember]) {
        if let index = members.firstIndex(where: { $0.key == key }) { members[index] = member(key, value) } else { members.append(member(key, value)) }
    }

    /// The value of `key`'s keyframe at `t` (within a microsecond), if the track has one.
    func keyframeValue(_ key: String, at t: Double) -> JSONValue? {
        guard case .array(let frames)? = self["animation"]?.at([.key("tracks"), .key(key)]) else { return nil }
        for frame in frames {
            if case .number(let time)? = frame.value.at([.key("t")]), abs(time - t) < 1e-6 { return frame.value.at([.key("value")]) }
        }
        return nil
    }

    /// Moves `key`'s keyframe at `from` to `to` with its value and timing; refused when there is
    /// none at `from` or another one at `to` (the caller checks `to` against the animation's length).
    mutating func moveKeyframe(_ key: String, from: Double, to: Double) throws(MercurialError) {
        guard keyframeValue(key, at: from) != nil else {
            throw MercurialError("'\(key)' has no keyframe at \(EditorSession.number(from)) s to move (did the scene change on disk?)")
        }
        if abs(from - to) < 1e-6 { return }
        guard keyframeValue(key, at: to) == nil else {
            throw MercurialError("'\(key)' has a keyframe at \(EditorSession.number(to)) s already; drop this one at another time, or delete that one first (Alt+click its ◆)")
        }
        var moved: [JSONMember]? = nil
        editKeyframe(key, at: from) { members in moved = members; members = nil }
        guard var kept = moved else { return }
        Self.put("t", .number(to), in: &kept)
        editKeyframe(key, at: to) { $0 = kept }
    }

    /// Sets the value at `path` (`animation.fps`, `dynamics.gravity.magnitude`, `[]` for every
    /// element), making the objects on the way; the document is read again after, which checks it.
    /// A key set to null is taken out: left out, as a page's emptied rectangle or list means.
    mutating func assign(_ key: String, _ path: [SchemaPathStep], _ value: JSONValue) throws(MercurialError) {
        guard case .key(let first)? = path.first,
              let root = Self.assign(path.dropFirst(), value, in: self[first] ?? .object([])) else {
            throw MercurialError("there is no '\(key)' in the scene to set")
        }
        set(first, root)
    }

    private static func assign(_ path: ArraySlice<SchemaPathStep>, _ value: JSONValue, in root: JSONValue) -> JSONValue? {
        guard let step = path.first else { return value }
        switch (step, root) {
        case (.key(let key), .object(var members)):
            if path.count == 1, case .null = value {
                members.removeAll { $0.key == key }
                return .object(members)
            }
            guard let inner = assign(path.dropFirst(), value, in: members.first { $0.key == key }?.value.value ?? .object([])) else { return nil }
            let node = JSONNode(value: inner, location: .none)
            if let index = members.firstIndex(where: { $0.key == key }) { members[index].value = node }
            else { members.append(JSONMember(key: key, keyLocation: .none, value: node)) }
            return .object(members)
        case (.index(let i), .array(var items)) where items.indices.contains(i):
            guard let inner = assign(path.dropFirst(), value, in: items[i].value) else { return nil }
            items[i] = JSONNode(value: inner, location: .none)
            return .array(items)
        case (.every, .array(let items)):
            var out: [JSONNode] = []
            for item in items {
                guard let inner = assign(path.dropFirst(), value, in: item.value) else { return nil }
                out.append(JSONNode(value: inner, location: .none))
            }
            return .array(out)
        default:
            return nil
        }
    }

    /// `light2.x` → (1, "x").
    static func lightKey(_ key: String) -> (Int, String)? {
        guard key.hasPrefix("light"), let dot = key.firstIndex(of: "."),
              let number = Int(key[key.index(key.startIndex, offsetBy: 5)..<dot]), number >= 1 else { return nil }
        return (number - 1, String(key[key.index(after: dot)...]))
    }

    /// This document without the top-level parameters that equal the preset's (`base`):
    /// what a save writes, with `material` named.
    func pruned(base: RenderSettings, material: String) -> SceneDocument {
        var copy = self
        copy.members.removeAll { member in
            guard let parameter = try? ParameterGroup.parameter(forKey: member.key), parameter.key == member.key else { return false }
            return JSONValue(parameter.value(in: base)).text() == member.value.value.text()
        }
        if copy["material"] == nil { copy.set("material", .string(material)) }
        return copy
    }
}
