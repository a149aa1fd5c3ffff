/// Every key of a scene file, declared once.
///
/// A `Schema` declares a block: each key once, with its kind, range, default and help,
/// bound by a key path to the value it reads and writes. The scene's top level is one
/// (`SceneSchema.settings`): its parameters (Parameters.swift, each a field with its
/// `Parameter` row: group, label, unset word, CLI flag) and its nested blocks.
/// From the declaration alone come the reader (with `file:line:column` errors, the
/// range in the message and did-you-mean), the JSON writer (recipes, `inspect`,
/// the editor's save), the rows of `mercurial params` (`vine.branchAngle`,
/// `pointLights[].intensity`), the leaves a track may animate and the editor's
/// controls. A schema is a value: `adding(_:)` extends a block with one more key.
public struct Schema<Root: Sendable>: Sendable {
    public typealias Finish = @Sendable (inout Root, _ node: JSONNode, _ members: [JSONMember], _ name: String,
                                         _ reader: SceneAnimation.Reader) throws(MercurialError) -> Void
    /// The block a scene file leaves out keys of.
    public let defaultValue: Root
    public private(set) var fields: [SchemaField<Root>] { didSet { parameters = fields.compactMap(\.parameter) } }
    /// The rows of the fields that are parameters (the scene's top level's), in order; kept with the fields,
    /// as the table is read on every lookup of a key.
    public private(set) var parameters: [Parameter]
    /// Checks that need the whole block (a key that needs another), run after its keys are read.
    let finish: Finish?

    public init(_ defaultValue: Root, _ fields: [SchemaField<Root>], finish: Finish? = nil) {
        self.defaultValue = defaultValue
        self.fields = fields
        parameters = fields.compactMap(\.parameter)
        self.finish = finish
    }

    public var keys: [String] { fields.map(\.key) }

    /// This schema with one more key.
    public func adding(_ field: SchemaField<Root>) -> Schema {
        var copy = self
        copy.fields.append(field)
        return copy
    }

    /// This schema with the key of the same name declared as `field`.
    public func replacing(_ field: SchemaField<Root>) -> Schema {
        var copy = self
        copy.fields = fields.map { $0.key == field.key ? field : $0 }
        return copy
    }

    public func field(_ key: String) -> SchemaField<Root>? { fields.first { $0.key == key } }

    /// Reads the object `node` (named `name` in messages) onto `root`: required keys
    /// first, then the others in the file's order; a key the schema lacks is an error
    /// with the nearest known key.
    public func read(_ node: JSONNode, _ name: String, onto root: inout Root,
                     _ reader: SceneAnimation.Reader) throws(MercurialError) {
        let members = try reader.object(node, name, keys: keys)
        for field in fields where field.required != nil {
            guard let member = members.first(where: { $0.key == field.key }) else {
                throw reader.fail(node, "\"\(name)\" needs \"\(field.key)\"\(field.required ?? "")")
            }
            try field.read(&root, member.value, "\(name).\(field.key)", reader)
        }
        for member in members {
            guard let field = field(member.key), field.required == nil else { continue }
            try field.read(&root, member.value, "\(name).\(member.key)", reader)
        }
        try finish?(&root, node, members, name, reader)
    }

    /// Reads `node` as the value at `path` below this block (`vine.width`, `pointLights[].x` for
    /// every light) and stores it in `root`, with the same checks and messages as a file's.
    public func assign(_ path: ArraySlice<SchemaPathStep>, _ node: JSONNode, _ name: String, onto root: inout Root,
                       _ reader: SceneAnimation.Reader) throws(MercurialError) {
        guard case .key(let key)? = path.first, let field = field(key) else {
            let known = keys.map { name.isEmpty ? $0 : "\(name).\($0)" }
            let hint = closestMatch(to: name.isEmpty ? SchemaPathStep.text(path) : name + "." + SchemaPathStep.text(path), in: known)
                .map { "; did you mean '\($0)'?" } ?? ""
            throw MercurialError("unknown key '\(shortQuote((name.isEmpty ? "" : name + ".") + SchemaPathStep.text(path)))'\(hint) (see 'mercurial params')")
        }
        try field.assign(&root, path.dropFirst(), node, name.isEmpty ? key : "\(name).\(key)", reader)
    }

    /// `root` as a JSON object, every key the schema declares (but empty optional ones).
    public func write(_ root: Root) -> JSONValue {
        .object(fields.compactMap { field in
            field.write(root).map { JSONMember(key: field.key, keyLocation: .none, value: JSONNode(value: $0, location: .none)) }
        })
    }

    /// The rows of `params` for this block's keys, each path under `prefix`.
    public func rows(under prefix: String) -> [SchemaRow] {
        fields.flatMap { field -> [SchemaRow] in
            let path = prefix + field.key
            let row = SchemaRow(path: path, kind: field.value.kind, range: field.value.range, cases: field.value.cases,
                                rangeDescription: field.value.rangeDescription,
                                defaultValue: field.write(defaultValue) ?? .null, help: field.help)
            return [row] + field.value.children(path)
        }
    }

    /// The number or colour at `path` (keys and indices below this block), if the schema has one there.
    func leaf(_ path: ArraySlice<SchemaPathStep>) -> SchemaLeaf<Root>? {
        guard case .key(let key)? = path.first, let field = field(key) else { return nil }
        return field.leaf(path.dropFirst())
    }
}

/// One key of a block.
public struct SchemaField<Root: Sendable>: Sendable {
    public let key: String
    public let help: String
    /// Set for a key the block needs: what follows `"NAME" needs "KEY"` (e.g. ", in seconds").
    public let required: String?
    /// A scene's top-level parameter's row (group, label, kind, unset word, CLI flag); nil for a block's key.
    public let parameter: Parameter?
    let value: SchemaDescription
    let read: @Sendable (inout Root, JSONNode, String, SceneAnimation.Reader) throws(MercurialError) -> Void
    let write: @Sendable (Root) -> JSONValue?
    let leaf: @Sendable (ArraySlice<SchemaPathStep>) -> SchemaLeaf<Root>?
    let assign: @Sendable (inout Root, ArraySlice<SchemaPathStep>, JSONNode, String, SceneAnimation.Reader) throws(MercurialError) -> Void

    /// The key `key`, whose value `value` reads and writes at `path`; `then` runs after it is read.
    public init<Value: Sendable>(_ key: String, _ path: WritableKeyPath<Root, Value> & Sendable,
                                 _ value: SchemaValue<Value>, required: String? = nil, help: String,
                                 then: (@Sendable (inout Root) -> Void)? = nil) {
        self.key = key
        self.help = help
        self.required = required
        parameter = nil
        self.value = value.description
        read = { root, node, name, reader throws(MercurialError) in
            root[keyPath: path] = try value.read(node, name, reader)
            then?(&root)
        }
        write = { value.write($0[keyPath: path]) }
        leaf = { steps in value.leaf(steps).map { $0.through(path) } }
        assign = { root, steps, node, name, reader throws(MercurialError) in
            try value.assign(&root[keyPath: path], steps, node, name, reader)
            then?(&root)
        }
    }

    /// A key that is declared (listed, written) but read by the block's owner, e.g. a
    /// timeline's tracks, which need the scene read before them.
    public init<Value: Sendable>(_ key: String, readBy owner: String, _ path: KeyPath<Root, Value> & Sendable,
                                 _ value: SchemaValue<Value>, help: String) {
        self.key = key
        self.help = help
        required = nil
        parameter = nil
        self.value = value.description
        read = { _, _, _, _ in }
        write = { value.write($0[keyPath: path]) }
        leaf = { _ in nil }
        assign = { _, _, _, name, _ throws(MercurialError) in
            throw MercurialError("\"\(name)\" is read by the \(owner); edit it in the scene file")
        }
    }
}

/// How a value of type `Value` is read from JSON, written back, listed and animated.
public struct SchemaValue<Value: Sendable>: Sendable {
    typealias Description = SchemaDescription
    let description: Description
    let read: @Sendable (JSONNode, String, SceneAnimation.Reader) throws(MercurialError) -> Value
    let write: @Sendable (Value) -> JSONValue?
    let leaf: @Sendable (ArraySlice<SchemaPathStep>) -> SchemaLeaf<Value>?
    /// Reads a value for a path inside this one (or, with no path, this one) and stores it.
    let assign: @Sendable (inout Value, ArraySlice<SchemaPathStep>, JSONNode, String, SceneAnimation.Reader) throws(MercurialError) -> Void
    /// The value a block starts from when a path inside it is set and it is absent.
    let blank: @Sendable () -> Value?

    public init(kind: String, range: ClosedRange<Double>? = nil, rangeDescription: String,
                read: @escaping @Sendable (JSONNode, String, SceneAnimation.Reader) throws(MercurialError) -> Value,
                write: @escaping @Sendable (Value) -> JSONValue?) {
        self.init(Description(kind: kind, range: range, rangeDescription: rangeDescription, children: { _ in [] }),
                  read: read, write: write, leaf: { _ in nil })
    }

    init(_ description: Description,
         read: @escaping @Sendable (JSONNode, String, SceneAnimation.Reader) throws(MercurialError) -> Value,
         write: @escaping @Sendable (Value) -> JSONValue?,
         leaf: @escaping @Sendable (ArraySlice<SchemaPathStep>) -> SchemaLeaf<Value>?,
         assign: (@Sendable (inout Value, ArraySlice<SchemaPathStep>, JSONNode, String, SceneAnimation.Reader) throws(MercurialError) -> Void)? = nil,
         blank: @escaping @Sendable () -> Value? = { nil }) {
        self.description = description
        self.read = read
        self.write = write
        self.leaf = leaf
        if let assign {
            self.assign = assign
        } else {
            self.assign = { value, steps, node, name, reader throws(MercurialError) in
                guard steps.isEmpty else { throw MercurialError("'\(name)' has no '\(SchemaPathStep.text(steps))' (see 'mercurial params')") }
                value = try read(node, name, reader)
            }
        }
        self.blank = blank
    }

    /// The same JSON read into and written from another type.
    public func map<Other: Sendable>(_ into: @escaping @Sendable (Value) -> Other,
                                     _ back: @escaping @Sendable (Other) -> Value) -> SchemaValue<Other> {
        SchemaValue<Other>(description, read: { node, name, reader throws(MercurialError) in into(try read(node, name, reader)) },
                           write: { write(back($0)) },
                           leaf: { steps in leaf(steps).map { $0.mapped(into, back) } },
                           assign: { other, steps, node, name, reader throws(MercurialError) in
                               var value = back(other)
                               try assign(&value, steps, node, name, reader)
                               other = into(value)
                           },
                           blank: { blank().map(into) })
    }
}

/// A value a track or an edit sets, held at the range's ends (NaN at the lower end).
func clamped(_ value: Double, _ range: ClosedRange<Double>) -> Double {
    value.isNaN ? range.lowerBound : min(max(value, range.lowerBound), range.upperBound)
}

extension SchemaValue where Value == Double {
    /// A number in `range`; `check` may refuse one more value (its message follows `"NAME" is V`).
    public static func number(_ range: ClosedRange<Double>,
                              check: (@Sendable (Double) -> String?)? = nil) -> SchemaValue {
        SchemaValue(Description(kind: "number", range: range, rangeDescription: rangeText(range), children: { _ in [] }),
                    read: { node, name, reader throws(MercurialError) in
                        let v = try reader.number(node, name, in: range)
                        if let problem = check?(v) { throw reader.fail(node, "\"\(name)\" is \(formatNumber(v))\(problem)") }
                        return v
                    },
                    write: { .number($0) },
                    leaf: { steps in
                        steps.isEmpty ? SchemaLeaf(kind: .number(range), get: { .value(.number($0)) },
                                                   set: { if case .number(let n) = $1 { $0 = clamped(n, range) } })
                                      : nil
                    })
    }
}

extension SchemaValue where Value == Double {
    /// A length of time in `range` seconds: a number of seconds, or a string of seconds
    /// (`"2.5s"`), frames (`"15f"`) or SMPTE timecode (`"00:00:05:00"`) at the animation's rate
    /// (`TimeValue`); written as seconds.
    public static func time(_ range: ClosedRange<Double>) -> SchemaValue {
        let seconds = number(range)
        return SchemaValue(Description(kind: "number", range: range, rangeDescription: rangeText(range) + " s, \"15f\" or \"00:00:00:15\"",
                                       children: { _ in [] }),
                           read: { node, name, reader throws(MercurialError) in
                               guard case .string(let text) = node.value else { return try seconds.read(node, name, reader) }
                               let rate = FrameRate(reader.fps ?? 30)
                               let v: Double
                               do throws(MercurialError) { v = try TimeValue.parse(text).seconds(at: rate) } catch {
                                   throw reader.fail(node, "\"\(name)\": \(error.message)")
                               }
                               guard range.contains(v) else {
                                   throw reader.fail(node, "\"\(name)\" is \(formatNumber(v)) s ('\(shortQuote(text))'), out of range \(rangeText(range)); give a time in that range")
                               }
                               return v
                           },
                           write: seconds.write, leaf: seconds.leaf)
    }
}

extension SchemaValue where Value == Int {
    /// A whole number in `range`.
    public static func integer(_ range: ClosedRange<Int>) -> SchemaValue {
        let limits = Double(range.lowerBound)...Double(range.upperBound)
        return SchemaValue(kind: "integer", range: limits, rangeDescription: "\(range.lowerBound)…\(range.upperBound)",
                           read: { node, name, reader throws(MercurialError) in
                               let v = try reader.number(node, name, in: limits)
                               guard v == v.rounded() else { throw reader.fail(node, "\"\(name)\" must be a whole number") }
                               return Int(v)
                           },
                           write: { .number(Double($0)) })
    }
}

extension SchemaValue {
    /// A JSON scalar that `extract` takes as it is; `expected` completes `"NAME" must be …`.
    static func scalar(_ kind: String, _ rangeDescription: String, expected: @escaping @Sendable (JSONValue) -> String,
                       extract: @escaping @Sendable (JSONValue) -> Value?,
                       write: @escaping @Sendable (Value) -> JSONValue) -> SchemaValue {
        SchemaValue(kind: kind, rangeDescription: rangeDescription,
                    read: { node, name, reader throws(MercurialError) in
                        guard let value = extract(node.value) else { throw reader.fail(node, "\"\(name)\" must be \(expected(node.value))") }
                        return value
                    },
                    write: write)
    }
}

extension SchemaValue where Value == Bool {
    public static var bool: SchemaValue {
        .scalar("bool", "true, false", expected: { _ in "true or false" },
                extract: { if case .bool(let on) = $0 { return on } else { return nil } }, write: { .bool($0) })
    }
}

extension SchemaValue where Value == String {
    public static var string: SchemaValue {
        .scalar("text", "text", expected: { "a string, not \($0.typeName)" },
                extract: { if case .string(let s) = $0 { return s } else { return nil } }, write: { .string($0) })
    }
}

extension SchemaValue where Value == RGBColor {
    public static var color: SchemaValue {
        SchemaValue(Description(kind: "color", range: nil, rangeDescription: "colour", children: { _ in [] }),
                    read: { node, name, reader throws(MercurialError) in try reader.color(node, name) },
                    write: { .string($0.hex) },
                    leaf: { steps in
                        steps.isEmpty ? SchemaLeaf(kind: .color, get: { .value(.color($0)) },
                                                   set: { if case .color(let c) = $1 { $0 = c } })
                                      : nil
                    })
    }

    /// A list of 1 to `maximum` colours; each is a leaf (`colors[0]`).
    public static func colors(maximum: Int) -> SchemaValue<[RGBColor]> {
        let one = SchemaValue.color
        return SchemaValue<[RGBColor]>(
            Description(kind: "array", range: nil, rangeDescription: "1 to \(maximum) colours", children: { _ in [] }),
            read: { node, name, reader throws(MercurialError) in
                guard case .array(let items) = node.value, !items.isEmpty, items.count <= maximum else {
                    throw reader.fail(node, "\"\(name)\" must be an array of 1 to \(maximum) colours")
                }
                var colors: [RGBColor] = []
                for item in items { colors.append(try one.read(item, name, reader)) }
                return colors
            },
            write: { .array($0.map { JSONNode(value: .string($0.hex), location: .none) }) },
            leaf: { steps in element(steps, one, noun: "colour") })
    }
}

extension SchemaValue where Value == SIMD2<Double> {
    /// `[x, y]`, each in `range`; `x` and `y` are leaves. `what` completes "must be a point [x, y] …".
    public static func point(_ range: ClosedRange<Double>, _ what: String, nonZero: Bool = false) -> SchemaValue {
        SchemaValue(Description(kind: "point", range: range, rangeDescription: "[x, y], each \(rangeText(range))",
                                children: { _ in [] }),
                    read: { node, name, reader throws(MercurialError) in
                        guard case .array(let items) = node.value, items.count == 2 else {
                            throw reader.fail(node, "\"\(name)\" must be \(what)")
                        }
                        let v = SIMD2(try reader.number(items[0], name, in: range), try reader.number(items[1], name, in: range))
                        guard !nonZero || v != .zero else {
                            throw reader.fail(node, "\"\(name)\" is [0, 0], which points nowhere; give e.g. [0, 1] for down")
                        }
                        return v
                    },
                    write: { .array([JSONNode(value: .number($0.x), location: .none), JSONNode(value: .number($0.y), location: .none)]) },
                    leaf: { steps in
                        guard steps.count == 1, case .key(let axis) = steps.first, let i = ["x", "y"].firstIndex(of: axis) else { return nil }
                        return SchemaLeaf(kind: .number(range), get: { .value(.number($0[i])) },
                                          set: { if case .number(let n) = $1 { $0[i] = clamped(n, range) } })
                    })
    }
}

extension SchemaValue where Value == ClosedRange<Double> {
    /// `[low, high]` inside `limits`.
    public static func span(_ limits: ClosedRange<Double>) -> SchemaValue {
        SchemaValue(kind: "range", range: limits, rangeDescription: "[low, high] within \(rangeText(limits))",
                    read: { node, name, reader throws(MercurialError) in
                        guard case .array(let items) = node.value, items.count == 2 else {
                            throw reader.fail(node, "\"\(name)\" must be a range [low, high] within \(rangeText(limits))")
                        }
                        let low = try reader.number(items[0], name, in: limits), high = try reader.number(items[1], name, in: limits)
                        guard low <= high else {
                            throw reader.fail(node, "\"\(name)\" is [\(formatNumber(low)), \(formatNumber(high))]; put the lower bound first")
                        }
                        return low...high
                    },
                    write: { .array([JSONNode(value: .number($0.lowerBound), location: .none),
                                     JSONNode(value: .number($0.upperBound), location: .none)]) })
    }
}

extension SchemaValue {
    /// One of `cases` (an enumeration's raw values).
    public static func choice(_ cases: [String], parse: @escaping @Sendable (String) -> Value?,
                              name: @escaping @Sendable (Value) -> String, what: String) -> SchemaValue {
        SchemaValue(Description(kind: "enum", range: nil, cases: cases, rangeDescription: cases.joined(separator: ", "),
                                children: { _ in [] }),
                    read: { node, key, reader throws(MercurialError) in
                        guard case .string(let s) = node.value, let v = parse(s) else {
                            let hint = if case .string(let s) = node.value { didYouMean(s, in: cases, quote: "\"") } else { "" }
                            throw reader.fail(node, "\"\(key)\" must be \(what)\(hint)")
                        }
                        return v
                    },
                    write: { .string(name($0)) }, leaf: { _ in nil })
    }

    /// A nested block. The schema is taken as written (`.block(vine)`, a `static let`) and made
    /// on first use: a scene without a vine, a plate or a text path never builds theirs (their key
    /// paths and the generic types behind them are a twentieth of a small title's instructions).
    /// Give a stored schema, not one built in the argument, which would be built at every use.
    public static func block(_ schema: @autoclosure @escaping @Sendable () -> Schema<Value>) -> SchemaValue {
        SchemaValue(Description(kind: "object", range: nil, rangeDescription: "{…}",
                                children: { schema().rows(under: $0 + ".") }),
                    read: { node, name, reader throws(MercurialError) in
                        let schema = schema()
                        var value = schema.defaultValue
                        try schema.read(node, name, onto: &value, reader)
                        return value
                    },
                    write: { schema().write($0) },
                    leaf: { schema().leaf($0) },
                    assign: { value, steps, node, name, reader throws(MercurialError) in
                        let schema = schema()
                        if steps.isEmpty {
                            value = schema.defaultValue
                            try schema.read(node, name, onto: &value, reader)
                        } else {
                            try schema.assign(steps, node, name, onto: &value, reader)
                        }
                    },
                    blank: { schema().defaultValue })
    }

    /// A list of blocks (`noun` names one in messages: "point light 2").
    /// Its schema is made on first use, as `block`'s is.
    public static func list<Element: Sendable>(_ schema: @autoclosure @escaping @Sendable () -> Schema<Element>, maximum: Int, noun: String,
                                               plural: String) -> SchemaValue<[Element]> {
        let one = SchemaValue<Element>.block(schema())
        let read: @Sendable (JSONNode, String, SceneAnimation.Reader) throws(MercurialError) -> [Element] = { node, name, reader throws(MercurialError) in
                guard case .array(let items) = node.value else {
                    throw reader.fail(node, "\"\(name)\" must be an array of \(noun) objects, not \(node.value.typeName)")
                }
                guard items.count <= maximum else {
                    throw reader.fail(node, "\"\(name)\" has \(items.count) \(plural), over the limit of \(maximum); remove some")
                }
                var elements: [Element] = []
                for (i, item) in items.enumerated() { elements.append(try one.read(item, "\(name)[\(i)]", reader)) }
                return elements
            }
        return SchemaValue<[Element]>(
            Description(kind: "array", range: nil, rangeDescription: "up to \(maximum) {…}",
                        children: { schema().rows(under: $0 + "[].") }),
            read: read,
            write: { $0.isEmpty ? nil : .array($0.compactMap { one.write($0).map { JSONNode(value: $0, location: .none) } }) },
            leaf: { steps in element(steps, one, noun: noun) },
            assign: { list, steps, node, name, reader throws(MercurialError) in
                switch steps.first {
                case nil: list = try read(node, name, reader)
                case .every?:
                    for i in list.indices { try one.assign(&list[i], steps.dropFirst(), node, "\(name)[\(i)]", reader) }
                case .index(let i)?:
                    // The index one past the end adds an element made from the defaults (once it is set).
                    if i == list.count, i < maximum, var blank = one.blank() {
                        try one.assign(&blank, steps.dropFirst(), node, "\(name)[\(i)]", reader)
                        list.append(blank)
                        return
                    }
                    guard i < list.count else {
                        let has = "the scene has \(list.count) \(list.count == 1 ? noun : plural)"
                        let fix = list.count < maximum ? "use '\(name)[\(list.count)]' to add one" : "the limit is \(maximum)"
                        throw MercurialError("'\(name)[\(i)]': \(has); \(fix)")
                    }
                    try one.assign(&list[i], steps.dropFirst(), node, "\(name)[\(i)]", reader)
                case .key?:
                    throw MercurialError("'\(name)' is a list; give [N] or [] before '\(SchemaPathStep.text(steps))'")
                }
            },
            blank: { [] })
    }

    /// The leaf at `[i]` and below of a list whose elements `one` declares.
    static func element<Element>(_ steps: ArraySlice<SchemaPathStep>, _ one: SchemaValue<Element>,
                                 noun: String) -> SchemaLeaf<[Element]>? {
        guard case .index(let i)? = steps.first, let inner = one.leaf(steps.dropFirst()) else { return nil }
        return SchemaLeaf(kind: inner.kind,
                          get: { list in
                              i < list.count ? inner.get(list[i]) : .missing("names \(noun) \(i + 1), but the scene has \(list.count)")
                          },
                          set: { list, value in if i < list.count { inner.set(&list[i], value) } })
    }

    /// A value that may be absent: nil is left out when written (or written as `null` with `writeNull`),
    /// and with `acceptsNull` a `null` in a file reads as nil. `what` names it in "needs WHAT in the scene".
    /// With `createsBlank`, setting a path inside an absent block starts it from its defaults.
    public func optional(acceptsNull: Bool = false, writeNull: Bool = false, createsBlank: Bool = true,
                         what: String) -> SchemaValue<Value?> {
        SchemaValue<Value?>(description,
                            read: { node, name, reader throws(MercurialError) in
                                if acceptsNull, case .null = node.value { return nil }
                                return try read(node, name, reader)
                            },
                            write: { value in value.map { write($0) } ?? (writeNull ? .null : nil) },
                            leaf: { steps in
                                leaf(steps).map { inner in
                                    SchemaLeaf(kind: inner.kind, get: { $0.map(inner.get) ?? .missing("needs \(what) in the scene") },
                                               set: { if $0 != nil { inner.set(&$0!, $1) } })
                                }
                            },
                            assign: { value, steps, node, name, reader throws(MercurialError) in
                                if steps.isEmpty, case .null = node.value { value = nil; return }
                                guard var inner = value ?? (steps.isEmpty || !createsBlank ? nil : blank()) else {
                                    guard steps.isEmpty else { throw MercurialError("the scene has no '\(name)'; set the whole '\(name)' first") }
                                    value = try read(node, name, reader)
                                    return
                                }
                                try assign(&inner, steps, node, name, reader)
                                value = inner
                            },
                            blank: { nil })
    }
}

/// What `params` says of a value's kind.
public struct SchemaDescription: Sendable {
    /// The kind `params` names: number, integer, bool, color, enum, point, range, object, array, ….
    public let kind: String
    public let range: ClosedRange<Double>?
    public var cases: [String]? = nil
    public let rangeDescription: String
    /// The rows of the keys inside (a block's), under a path.
    let children: @Sendable (String) -> [SchemaRow]
}

/// A row of `mercurial params` for a nested key.
public struct SchemaRow: Sendable {
    /// `vine.branchAngle`, `pointLights[].intensity`.
    public let path: String
    public let kind: String
    public let range: ClosedRange<Double>?
    public let cases: [String]?
    public let rangeDescription: String
    public let defaultValue: JSONValue
    public let help: String

    /// The top-level block the key is in (`pointLights`), and the key's own name (`intensity`).
    public var block: String { String(path.prefix { $0 != "." && $0 != "[" }) }
    public var name: String { String(path.split(separator: ".").last ?? Substring(path)) }
}

/// One step of a path to a leaf: `pointLights[1].intensity` is key, index, key.
public enum SchemaPathStep: Sendable, Equatable {
    case key(String)
    case index(Int)
    /// `[]`: every element (the editor's controls set every point light at once).
    case every

    static func text(_ steps: ArraySlice<SchemaPathStep>) -> String {
        steps.reduce(into: "") { text, step in
            switch step {
            case .key(let k): text += (text.isEmpty ? "" : ".") + k
            case .index(let i): text += "[\(i)]"
            case .every: text += "[]"
            }
        }
    }

    /// The steps of `path`, or nil when it is not a path (`a.b[2].c`).
    public static func parse(_ path: String) -> [SchemaPathStep]? {
        var steps: [SchemaPathStep] = []
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = Substring(part)
            guard let open = rest.firstIndex(of: "[") ?? Optional(rest.endIndex), open > rest.startIndex else { return nil }
            steps.append(.key(String(rest[..<open])))
            rest = rest[open...]
            while rest.first == "[" {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                let digits = rest[rest.index(after: rest.startIndex)..<close]
                if digits.isEmpty {
                    steps.append(.every)
                } else {
                    guard digits.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
                    // An index too long for Int names an element no list has.
                    steps.append(.index(Int(digits) ?? Int.max))
                }
                rest = rest[rest.index(after: close)...]
            }
            guard rest.isEmpty else { return nil }
        }
        return steps
    }
}

/// What a leaf holds in a scene.
public enum SchemaLookup: Sendable, Equatable {
    case value(ParameterValue)
    /// The scene lacks it; the message follows `track "KEY" `.
    case missing(String)
}

/// A number or colour somewhere inside a `Root`, which a track can animate.
public struct SchemaLeaf<Root>: Sendable {
    public typealias Lookup = SchemaLookup
    /// `.number(range)` or `.color`.
    public let kind: ParameterKind
    let get: @Sendable (Root) -> Lookup
    /// Stores a value, a number held inside the range; nothing when the leaf is missing.
    let set: @Sendable (inout Root, ParameterValue) -> Void

    func through<Outer>(_ path: WritableKeyPath<Outer, Root> & Sendable) -> SchemaLeaf<Outer> {
        SchemaLeaf<Outer>(kind: kind, get: { get($0[keyPath: path]) }, set: { set(&$0[keyPath: path], $1) })
    }

    func mapped<Other>(_ into: @escaping @Sendable (Root) -> Other, _ back: @escaping @Sendable (Other) -> Root) -> SchemaLeaf<Other> {
        SchemaLeaf<Other>(kind: kind, get: { get(back($0)) },
                          set: { other, value in var root = back(other); set(&root, value); other = into(root) })
    }
}

extension JSONValue {
    /// The value as JSON text: to `lines` levels deep, an object's members and an array's objects
    /// one a line; deeper, everything on one line with ", " between items (the form of a scene file).
    public func text(lines: Int = 0, indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .object(let members):
            if members.isEmpty { return "{}" }
            guard lines > 0 else {
                return "{" + members.map { "\(ParameterGroup.jsonString($0.key)): \($0.value.value.text())" }.joined(separator: ", ") + "}"
            }
            return "{\n" + members.map { "\(inner)\(ParameterGroup.jsonString($0.key)): \($0.value.value.text(lines: lines - 1, indent: inner))" }
                .joined(separator: ",\n") + "\n\(indent)}"
        case .array(let items):
            guard lines > 0, items.contains(where: { if case .object = $0.value { return true } else { return false } }) else {
                return "[" + items.map { $0.value.text() }.joined(separator: ", ") + "]"
            }
            return "[\n" + items.map { inner + $0.value.text(lines: lines - 1, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .string(let s): return ParameterGroup.jsonString(s)
        case .number(let v): return formatNumber(v)
        case .bool(let on): return on ? "true" : "false"
        case .null: return "null"
        }
    }

    /// The value at `path` inside this one (`[]` takes the first element), or nil.
    public func at(_ path: ArraySlice<SchemaPathStep>) -> JSONValue? {
        guard let step = path.first else { return self }
        switch (step, self) {
        case let (.key(k), .object(members)): return members.first { $0.key == k }?.value.value.at(path.dropFirst())
        case let (.index(i), .array(items)): return i < items.count ? items[i].value.at(path.dropFirst()) : nil
        case let (.every, .array(items)): return items.first?.value.at(path.dropFirst())
        default: return nil
        }
    }

    /// `.object` of `members` (key, value) in order.
    public static func members(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(members.map { JSONMember(key: $0.0, keyLocation: .none, value: JSONNode(value: $0.1, location: .none)) })
    }

    public static func list(_ items: [JSONValue]) -> JSONValue { .array(items.map { JSONNode(value: $0, location: .none) }) }

    /// A `Float` as the shortest decimal that reads back as the same `Float`.
    public static func float(_ v: Float) -> JSONValue { .number(Double("\(v)") ?? Double(v)) }

    /// A parameter's value as JSON.
    public init(_ value: ParameterValue) {
        switch value {
        case .number(let v): self = .number(v)
        case .integer(let v): self = .number(Double(v))
        case .bool(let on): self = .bool(on)
        case .color(let c): self = .string(c.hex)
        case .choice(let s), .text(let s): self = .string(s)
        case .unset: self = .null
        }
    }
}

extension SourcePosition {
    /// The position of a value made by a program rather than read from a file.
    public static let none = SourcePosition(line: 0, column: 0)
}
