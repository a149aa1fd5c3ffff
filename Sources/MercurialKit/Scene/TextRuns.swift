/// A title's text as styled runs: `"text": [{"text": "Gold "}, {"text": "and chrome", "material": "chrome"}]`.
/// Each run may have its own font, size, letter spacing and baseline shift (how it is shaped,
/// part of the shape) and its own look: a material and the sphere's keys (how it is shaded,
/// part of the look). The runs are shaped one after another on shared lines and drawn into
/// one mask; each pixel also records which look it takes (a style plane), and the one
/// shading loop looks it up in that look's sphere (`ShadingLookup` pages).
public struct TextRun: Sendable, Equatable {
    public var text: String
    /// A font for this run (as `font`), or nil: the title's.
    public var font: String? = nil
    /// Its em size in pixels at the title's size (scaled with the title when that is shrunk
    /// or grown to fit), or nil: the title's.
    public var size: Double? = nil
    /// Extra pixels after each of its characters, or nil: the title's.
    public var letterSpacing: Double? = nil
    /// Pixels its baseline is raised by (negative lowers it).
    public var baselineShift: Double = 0
    /// The look its pixels take: 0 the title's, k the title's `runLooks[k - 1]`.
    public var look: Int = 0

    public init(text: String) { self.text = text }

    /// The most runs a title may have.
    public static let maximumCount = 64
    /// The keys of a run that shape it; the rest of its keys are a look's.
    static let shapeKeys = ["text", "font", "size", "letterSpacing", "baselineShift"]
    static let baselineShiftRange = -10_000.0...10_000.0
}

/// A run's look: the sphere keys it sets (its material preset's and its own), kept with their
/// values; the keys it leaves follow the title's (and the title's tracks) frame by frame.
public struct RunLook: Sendable, Equatable {
    /// The keys set, in the order `keys` lists them.
    public var keys: [String]
    /// The values of the keys set (the others are left at the defaults and not used).
    public var scene: ShadingScene

    /// The keys a run's look may set: the material's and the four lights'.
    static let keys: [String] = ["shininess", "diffuse", "specular", "ambient", "reflectivity", "reflection"]
        + (1...ParameterGroup.lightCount).flatMap { i in SceneFile.lightKeys.map { "light\(i).\($0)" } }

    /// `base` (the title's scene at a frame) with this look's keys set.
    public func applied(to base: ShadingScene) -> ShadingScene {
        var scene = base
        for key in keys {
            switch key {
            case "shininess": scene.material.shininess = self.scene.material.shininess
            case "diffuse": scene.material.diffuse = self.scene.material.diffuse
            case "specular": scene.material.specular = self.scene.material.specular
            case "ambient": scene.material.ambient = self.scene.material.ambient
            case "reflectivity": scene.material.reflectivity = self.scene.material.reflectivity
            case "reflection": scene.material.reflection = self.scene.material.reflection
            default:
                // lightN.hue, .brightness, .x, .y, .z
                guard key.hasPrefix("light"), let dot = key.firstIndex(of: "."),
                      let n = Int(key[key.index(key.startIndex, offsetBy: 5)..<dot]), (1...scene.lights.count).contains(n) else { continue }
                let (mine, i) = (self.scene.lights[n - 1], n - 1)
                switch key[key.index(after: dot)...] {
                case "hue": scene.lights[i].hue = mine.hue
                case "brightness": scene.lights[i].brightness = mine.brightness
                case "x": scene.lights[i].position.x = mine.position.x
                case "y": scene.lights[i].position.y = mine.position.y
                case "z": scene.lights[i].position.z = mine.position.z
                default: break
                }
            }
        }
        return scene
    }
}

extension RenderSettings {
    /// The title's styled runs (empty: `text` is one plain string). Their texts joined are `text`.
    public var runs: [TextRun] { shape.runs }
    /// The looks the runs take, beyond the title's own (a run's `look` k is `runLooks[k - 1]`).
    public var runLooks: [RunLook] { look.runLooks }

    /// Sets the title's text to styled runs (their texts joined) with their looks.
    public mutating func setRuns(_ runs: [TextRun], looks: [RunLook]) {
        text = runs.map(\.text).joined()
        (shape.runs, look.runLooks) = (runs, looks)
    }

    /// The scenes the title's pixels are shaded with at these settings: the title's, then each run look's over it.
    public var shadingScenes: [ShadingScene] { [scene] + runLooks.map { $0.applied(to: scene) } }
}

/// Reading and writing `text` as a list of runs, and the inline markup the command line takes.
public enum TextRuns {
    /// Reads `"text": [run, …]` onto `settings`: each run a string or an object of run keys.
    static func read(_ node: JSONNode, into settings: inout RenderSettings, reader: SceneAnimation.Reader) throws(MercurialError) {
        guard case .array(let items) = node.value, !items.isEmpty else {
            throw reader.fail(node, "\"text\" must be a string or a list of runs such as [{\"text\": \"Gold \"}, {\"text\": \"and chrome\", \"material\": \"chrome\"}]")
        }
        guard items.count <= TextRun.maximumCount else {
            throw reader.fail(node, "\"text\" has \(items.count) runs, over the limit of \(TextRun.maximumCount); join runs that look the same")
        }
        var runs: [TextRun] = [], looks: [RunLook] = []
        for (i, item) in items.enumerated() {
            var (run, look) = try readRun(item, name: "text[\(i)]", reader: reader)
            if let look {
                if let known = looks.firstIndex(of: look) { run.look = known + 1 } else { looks.append(look); run.look = looks.count }
            }
            runs.append(run)
        }
        settings.setRuns(runs, looks: looks)
        if let problem = RenderSettings.lengthProblem(of: settings.text ?? "") {
            throw reader.fail(node, "the text of \"text\" is \(problem); shorten it")
        }
    }

    /// One run: a string (text alone) or an object of its keys.
    static func readRun(_ node: JSONNode, name: String, reader: SceneAnimation.Reader) throws(MercurialError) -> (TextRun, RunLook?) {
        if case .string(let text) = node.value { return (TextRun(text: text), nil) }
        let allowed = TextRun.shapeKeys + [SceneSchema.materialKey.key, "lights"] + RunLook.keys
        if case .object(let given) = node.value,
           let title = given.first(where: { !allowed.contains($0.key) && SceneSchema.keys(in: .scene).contains($0.key) }) {
            throw MercurialError(reader.place(title.keyLocation) + "\"\(name)\" has \"\(title.key)\", which is the whole title's (its loft, canvas, placement or styles are one for all its runs); give it beside \"text\", not in a run. A run takes text, font, size, letterSpacing, baselineShift, material and the sphere's keys (shininess, diffuse, specular, ambient, reflectivity, reflection, lights)")
        }
        let members = try reader.object(node, name, keys: allowed)
        guard let textMember = members.first(where: { $0.key == "text" }), case .string(let text) = textMember.value.value else {
            throw reader.fail(node, "\"\(name)\" needs \"text\", a string: the run's characters")
        }
        var run = TextRun(text: text)
        // The shape keys are read as the title's parameters of the same name are (ranges, paths).
        var scratch = RenderSettings()
        for member in members {
            switch member.key {
            case "font":
                try SceneSchema.settings.field("font")?.read(&scratch, member.value, "\(name).font", reader)
                run.font = scratch.font
            case "size":
                let range = ParameterGroup.range(of: "size")
                guard case .number(let v) = member.value.value, range.contains(v) else {
                    throw reader.fail(member.value, "\"\(name).size\" must be a number of pixels from \(formatNumber(range.lowerBound)) to \(formatNumber(range.upperBound))")
                }
                run.size = v
            case "letterSpacing":
                try SceneSchema.settings.field("letterSpacing")?.read(&scratch, member.value, "\(name).letterSpacing", reader)
                run.letterSpacing = scratch.letterSpacing
            case "baselineShift":
                guard case .number(let v) = member.value.value, TextRun.baselineShiftRange.contains(v) else {
                    throw reader.fail(member.value, "\"\(name).baselineShift\" must be a number of pixels from -10000 to 10000 (up is +)")
                }
                run.baselineShift = v
            default: break
            }
        }
        // The look: the material's sphere keys, then the run's own.
        var look = RenderSettings()
        var keys = Set<String>()
        if let preset = try SceneFile.applyMaterial(of: members, override: nil, from: reader.file, to: &look) {
            keys.formUnion(preset.flatMap { $0 == "lights" ? RunLook.keys.filter { $0.hasPrefix("light") } : [$0] })
        }
        for member in members where member.key == "lights" || RunLook.keys.contains(member.key) {
            if member.key == "lights" {
                try SceneFile.applyLights(member, reader.file, to: &look)
                // The keys of the lights' fields given (read and checked just now).
                if case .array(let lights) = member.value.value {
                    for (i, light) in lights.enumerated() {
                        if case .object(let fields) = light.value { keys.formUnion(fields.map { "light\(i + 1).\($0.key)" }) }
                    }
                }
            } else {
                try SceneSchema.settings.field(member.key)?.read(&look, member.value, member.key, reader)
                keys.insert(member.key)
            }
        }
        let set = RunLook.keys.filter(keys.contains)
        return (run, set.isEmpty ? nil : RunLook(keys: set, scene: look.scene))
    }

    /// `settings`' runs as `text`'s list: each run's shape keys, then every key its look sets.
    static func write(_ settings: RenderSettings, absolutePaths: Bool = false) -> JSONValue {
        .list(settings.runs.map { run in
            var members: [(String, JSONValue)] = [("text", .string(run.text))]
            if let font = run.font {
                members.append(("font", .string(absolutePaths && UserPath.looksLikePath(font) ? UserPath(checked: font).absolute : font)))
            }
            if let size = run.size { members.append(("size", .number(size))) }
            if let spacing = run.letterSpacing { members.append(("letterSpacing", .number(spacing))) }
            if run.baselineShift != 0 { members.append(("baselineShift", .number(run.baselineShift))) }
            if run.look > 0, run.look <= settings.runLooks.count {
                let look = settings.runLooks[run.look - 1]
                var scratch = RenderSettings()
                scratch.scene = look.scene
                for key in look.keys {
                    if let value = SceneSchema.settings.field(key)?.write(scratch) { members.append((key, value)) }
                }
            }
            return .members(members)
        })
    }
}

// MARK: - Inline markup

extension TextRuns {
    /// Text with styled runs written inline, for the command line: `{KEY=VALUE …: TEXT}` is a run
    /// with those keys (a run's keys, as in a scene's list; spaces or commas between them), and text
    /// outside braces is a run in the title's style. `\{`, `\}` and `\\` stand for `{`, `}` and `\`.
    /// Runs do not nest. A value that reads as a number is one; any other is a string, in double
    /// quotes when it has a space, comma, colon or brace (`font="DejaVu Sans:bold"`, `\"` a quote).
    /// One space after the ':' separates the keys from the text and is not part of it.
    ///
    ///     Gold {material=chrome size=90: and chrome}
    public static func markup(_ text: String) throws(MercurialError) -> JSONNode {
        var runs: [JSONNode] = []
        var plain = "", column = 0
        var chars = Array(text).makeIterator()
        func at(_ c: Int) -> SourcePosition { SourcePosition(line: 1, column: c) }
        func flush() {
            if !plain.isEmpty { runs.append(JSONNode(value: .string(plain), location: at(column))) }
            plain = ""
        }
        var index = 0
        func next() -> Character? { index += 1; return chars.next() }
        while let c = next() {
            switch c {
            case "\\":
                guard let escaped = next() else { plain.append("\\"); continue }
                if "{}\\".contains(escaped) { plain.append(escaped) } else { plain.append("\\"); plain.append(escaped) }
            case "}":
                throw MercurialError("the markup has a '}' at character \(index) that closes no run; write \\} for a brace")
            case "{":
                flush()
                let start = index
                // The keys, up to the ':' outside quotes: KEY=VALUE or KEY="VALUE".
                var pairs: [(key: String, value: String, quoted: Bool)] = []
                var token = "", quoted = false, inQuotes = false, ended = false
                func endToken() throws(MercurialError) {
                    defer { (token, quoted) = ("", false) }
                    guard !token.isEmpty else { return }
                    guard let equals = token.firstIndex(of: "="), equals != token.startIndex else {
                        throw MercurialError("the markup's run at character \(start) has '\(shortQuote(token))', not KEY=VALUE; write {material=chrome size=90: text}")
                    }
                    pairs.append((String(token[..<equals]), String(token[token.index(after: equals)...]), quoted))
                }
                while let k = next() {
                    if inQuotes {
                        if k == "\\", let escaped = next() { token.append(escaped) }
                        else if k == "\"" { inQuotes = false }
                        else { token.append(k) }
                    } else if k == "\"" && token.last == "=" {
                        (inQuotes, quoted) = (true, true)
                    } else if k == ":" {
                        try endToken()
                        ended = true
                        break
                    } else if k == " " || k == "," || k == "\t" {
                        try endToken()
                    } else if k == "{" || k == "}" {
                        break
                    } else {
                        token.append(k)
                    }
                }
                guard ended else {
                    throw MercurialError("the markup's run at character \(start) has no ':' between its keys and its text; write {material=chrome: text}")
                }
                var body = ""
                var closed = false
                while let t = next() {
                    if t == "\\", let escaped = next() {
                        if "{}\\".contains(escaped) { body.append(escaped) } else { body.append("\\"); body.append(escaped) }
                    } else if t == "}" {
                        closed = true
                        break
                    } else if t == "{" {
                        throw MercurialError("the markup's run at character \(start) has a '{' inside it; runs do not nest (write \\{ for a brace)")
                    } else {
                        body.append(t)
                    }
                }
                guard closed else { throw MercurialError("the markup's run at character \(start) is not closed; end it with '}'") }
                // One space after the ':' only separates; the text is what follows it.
                if body.first == " " { body.removeFirst() }
                var members = [JSONMember(key: "text", keyLocation: at(start), value: JSONNode(value: .string(body), location: at(start)))]
                for (key, raw, quoted) in pairs {
                    guard key != "text", !members.contains(where: { $0.key == key }) else {
                        throw MercurialError("the markup's run at character \(start) gives \"\(key)\" twice or as a key; give each key once")
                    }
                    let value: JSONValue = quoted ? .string(raw) : Double(raw).map { .number($0) } ?? .string(raw)
                    members.append(JSONMember(key: key, keyLocation: at(start), value: JSONNode(value: value, location: at(start))))
                }
                runs.append(JSONNode(value: .object(members), location: at(start)))
                column = index + 1
            default:
                if plain.isEmpty { column = index }
                plain.append(c)
            }
        }
        flush()
        return JSONNode(value: .array(runs), location: at(1))
    }
}

extension RenderSettings {
    /// Sets the text from inline markup (`TextRuns.markup`): styled runs, or plain text when it has none.
    public mutating func setMarkup(_ text: String) throws(MercurialError) {
        let node = try TextRuns.markup(text)
        guard case .array(let runs) = node.value, runs.contains(where: { if case .object = $0.value { true } else { false } }) else {
            if case .array(let runs) = node.value, case .string(let plain)? = runs.first?.value, runs.count == 1 { self.text = plain }
            else { self.text = "" }
            return
        }
        var reader = SceneAnimation.Reader(file: "--markup")
        reader.showsLocation = false
        try TextRuns.read(node, into: &self, reader: reader)
    }
}

extension TextRuns {
    /// A list of runs (as a scene writes it) as inline markup, or nil when a run has a value
    /// markup cannot write (an object or a list: `lights`, `reflection`).
    public static func markupText(of runs: JSONValue) -> String? {
        guard case .array(let items) = runs else { return nil }
        func escaped(_ text: String) -> String {
            text.replacing("\\", with: "\\\\").replacing("{", with: "\\{")
                .replacing("}", with: "\\}")
        }
        var out = ""
        for item in items {
            switch item.value {
            case .string(let text):
                out += escaped(text)
            case .object(let members):
                var keys: [String] = [], text = ""
                for member in members {
                    switch member.value.value {
                    case .string(let s) where member.key == "text": text = s
                    case .string(let s):
                        let plain = !s.isEmpty && Double(s) == nil && !s.contains(where: { " ,:{}\"\\\t".contains($0) })
                        keys.append("\(member.key)=" + (plain ? s : "\"" + s.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""))
                    case .number(let v): keys.append("\(member.key)=\(formatNumber(v))")
                    default: return nil
                    }
                }
                out += keys.isEmpty ? escaped(text) : "{" + keys.joined(separator: " ") + ": " + escaped(text) + "}"
            default:
                return nil
            }
        }
        return out
    }
}
