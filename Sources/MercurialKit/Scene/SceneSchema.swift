/// The declarations of a scene file's nested blocks (see Schema.swift): point
/// lights and their orbits, the gradient backdrop, the vine and the animation.
/// A new key of a block is one `SchemaField` line here and the code that uses it.
public enum SceneSchema {
    /// The scene's top level, read onto `RenderSettings`: its parameters (Parameters.swift), then
    /// its blocks. A task-local value, so that a test can extend it (`$settings.withValue(…)`) and
    /// see the reader, writer, params, `--set`, tracks and editor follow with no other edit.
    @TaskLocal public static var settings = Schema(RenderSettings(), ParameterGroup.fields + [
        SchemaField("reflection", \.scene.material.reflection,
                    SchemaValue.block(reflection).map({ $0.reflection }, { GradientDraft($0) })
                        .optional(acceptsNull: true, writeNull: true, createsBlank: false, what: "a \"reflection\""),
                    help: "the reflection gradient the material adds (CIShadedMaterial's sphere), or null"),
        SchemaField("pointLights", \.pointLights, .list(pointLight, maximum: 64, noun: "point light", plural: "point lights"),
                    help: "coloured 2-D lights over the title (MBLightingController); ambientLightLevel darkens the rest"),
        SchemaField("backgroundGradient", \.backgroundGradient,
                    SchemaValue.block(gradient).map({ $0.backgroundGradient }, { GradientDraft($0) })
                        .optional(acceptsNull: true, createsBlank: false, what: "a \"backgroundGradient\""),
                    help: "an axial gradient behind the title instead of background (CAGradientLayer)"),
        SchemaField("vine", \.vine, SchemaValue.block(vine).optional(acceptsNull: true, what: "a \"vine\""),
                    help: "a growing vine ornament, lofted and shaded with the title"),
        SchemaField("margin", \.margin, margin,
                    help: "space between the canvas's edges and the box the ink is placed in: px, \"5%\" of the canvas, or \"safe\" (EBU R 95: 5 % a side); auto (null in a file): the loft's radius plus 4 px"),
        SchemaField("offset", \.offset, offset,
                    help: "pixels the placed ink is moved by, [x, y], right and down"),
        SchemaField("maxWidth", \.maxWidth, SchemaValue.integer(1...PNGFile.maximumSide).optional(what: "a \"maxWidth\""),
                    help: "the widest the ink may be, in pixels: the text wraps (up to maxLines) and shrinks to fit it, on any canvas; a lower third's name box"),
        SchemaField("features", \.features, features,
                    help: "OpenType features for HarfBuzz, in its syntax: [\"smcp\", \"-liga\", \"tnum\", \"salt=2\"] turn small caps on, ligatures off, tabular figures on, and pick the second stylistic alternate"),
        SchemaField("overflow", \.overflow, overflow,
                    help: "text too long for maxLines lines on its canvas: shrink (smaller until it fits) or ellipsis (kept at its size, 160 px when auto, and cut with …)"),
        SchemaField("emoji", \.emoji, emoji,
                    help: "colour emoji: emboss (their silhouette in the title's metal) or color (their own colours lit by the title's lights, their luminance lofted)"),
        SchemaField("textPath", \.textPath, SchemaValue.block(textPath).optional(acceptsNull: true, what: "a \"textPath\""),
                    help: "the baseline follows a curve: round a circle (arc: centred on start; circle: beginning at it) or through points, each glyph turned to it"),
        SchemaField("variations", \.variations, variations,
                    help: "a variable font's axes: {\"wght\": 650, \"slnt\": -8}, each within the font's range; a track can animate one (variations.wght)"),
        SchemaField("image", \.image, layerImage.optional(acceptsNull: true, what: "an \"image\""),
                    help: "a PNG drawn as the title instead of a text (a logo, a bug), placed as a text is: \"logo.png\" or {file, width, height, emboss}"),
        SchemaField("plate", \.plate, SchemaValue.block(plate).optional(acceptsNull: true, what: "a \"plate\""),
                    help: "a filled, optionally rounded box behind the ink, sized to it with padding, with an optional accent bar: a lower third's plate; it moves and fades with the title"),
        SchemaField("dropShadow", \.dropShadow, SchemaValue.block(dropShadow).optional(acceptsNull: true, what: "a \"dropShadow\""),
                    help: "a shadow under the title, as Photoshop's Drop Shadow layer style"),
        SchemaField("outerGlow", \.outerGlow, SchemaValue.block(outerGlow).optional(acceptsNull: true, what: "an \"outerGlow\""),
                    help: "a glow around the title, as Photoshop's Outer Glow"),
        SchemaField("stroke", \.stroke, SchemaValue.block(stroke).optional(acceptsNull: true, what: "a \"stroke\""),
                    help: "an outline along the letters' edge, as Photoshop's Stroke"),
        SchemaField("innerShadow", \.innerShadow, SchemaValue.block(innerShadow).optional(acceptsNull: true, what: "an \"innerShadow\""),
                    help: "a shadow inside the letters, as Photoshop's Inner Shadow"),
    ])

    /// `overflow`: written only when it is not the default, so older titles' recipes stay as they were.
    static let overflow: SchemaValue<TextOverflow> = {
        let choice = SchemaValue<TextOverflow>.choice(TextOverflow.allCases.map(\.rawValue), parse: { TextOverflow(rawValue: $0) },
                                                      name: { $0.rawValue }, what: "\"shrink\" or \"ellipsis\"")
        return SchemaValue(choice.description, read: choice.read, write: { $0 == .shrink ? nil : choice.write($0) }, leaf: choice.leaf)
    }()

    /// `emoji`: written only when not the default, so older titles' recipes stay as they were.
    static let emoji: SchemaValue<EmojiStyle> = {
        let choice = SchemaValue<EmojiStyle>.choice(EmojiStyle.allCases.map(\.rawValue), parse: { EmojiStyle(rawValue: $0) },
                                                    name: { $0.rawValue }, what: "\"emboss\" or \"color\"")
        return SchemaValue(choice.description, read: choice.read, write: { $0 == .emboss ? nil : choice.write($0) }, leaf: choice.leaf)
    }()

    /// `features`: HarfBuzz's feature strings, each checked as it is read.
    static let features = SchemaValue<[String]>(
        kind: "features", rangeDescription: "[\"smcp\", \"-liga\", …]",
        read: { node, name, reader throws(MercurialError) in
            if case .null = node.value { return [] }
            guard case .array(let items) = node.value else {
                throw reader.fail(node, "\"\(name)\" must be a list of OpenType features such as [\"smcp\", \"-liga\"]")
            }
            guard items.count <= FontFeatures.maximumCount else {
                throw reader.fail(node, "\"\(name)\" has \(items.count) features, over the limit of \(FontFeatures.maximumCount)")
            }
            return try items.enumerated().map { i, item throws(MercurialError) in
                guard case .string(let text) = item.value, FontFeatures.parse(text) != nil else {
                    throw reader.fail(item, "\"\(name)[\(i)]\" must be an OpenType feature: a tag such as \"smcp\", \"-liga\" to turn one off, or \"ss01=2\"")
                }
                return text
            }
        },
        write: { $0.isEmpty ? nil : .list($0.map { .string($0) }) })

    /// An object of axis tags and design values, each tag checked here and its range at render.
    static func readVariations(_ node: JSONNode, _ name: String, _ reader: SceneAnimation.Reader) throws(MercurialError) -> [FontVariation] {
        if case .null = node.value { return [] }
        guard case .object(let members) = node.value else {
            throw reader.fail(node, "\"\(name)\" must be an object such as {\"wght\": 650}, not \(node.value.typeName)")
        }
        guard members.count <= 64 else { throw reader.fail(node, "\"\(name)\" has \(members.count) axes, over the limit of 64") }
        return try members.map { member throws(MercurialError) in
            guard FontVariation.isTag(member.key) else {
                throw reader.fail(member.value, "\"\(name)\" has \"\(shortQuote(member.key))\", which is no axis tag; an axis is 1 to 4 letters such as \"wght\", \"wdth\", \"slnt\" or \"opsz\"")
            }
            return FontVariation(tag: member.key, value: try reader.number(member.value, "\(name).\(member.key)", in: FontVariation.range))
        }
    }

    /// `variations`: axis tags to design values, in the file's order; `variations.wght` is a track's leaf.
    static let variations = SchemaValue<[FontVariation]>(
        SchemaDescription(kind: "variations", range: FontVariation.range, rangeDescription: "{\"wght\": 650, …}", children: { _ in [] }),
        read: readVariations,
        write: { $0.isEmpty ? nil : .members($0.map { ($0.tag, .number($0.value)) }) },
        leaf: { steps in
            guard steps.count == 1, case .key(let tag)? = steps.first, FontVariation.isTag(tag) else { return nil }
            // The axis need not be set in the scene: a track sets it on every frame.
            return SchemaLeaf(kind: .number(FontVariation.range),
                              get: { .value(.number($0.last { $0.tag == tag }?.value ?? 0)) },
                              set: { list, value in
                                  guard case .number(let n) = value else { return }
                                  let v = clamped(n, FontVariation.range)
                                  list.set(tag, to: v)
                              })
        },
        assign: { list, steps, node, name, reader throws(MercurialError) in
            switch steps.first {
            case nil:
                list = try readVariations(node, name, reader)
            case .key(let tag)? where steps.count == 1 && FontVariation.isTag(tag):
                let v = try reader.number(node, name, in: FontVariation.range)
                list.set(tag, to: v)
            default:
                throw MercurialError("'\(name).\(SchemaPathStep.text(steps))' is no axis; write variations.TAG, e.g. variations.wght=650")
            }
        })

    /// `margin`: pixels, a share of the canvas (`"5%"`) or `"safe"`, the same at every side, or one
    /// a side: `[x, y]` (left and right, top and bottom) or `[top, right, bottom, left]`; nil (left
    /// out or null): the loft's margin.
    static let margin = SchemaValue<PlacementMargin?>(
        kind: "margin", range: 0...PlacementMargin.maximumPixels,
        rangeDescription: "px, \"N%\" (0…50), \"safe\", [x, y], [top, right, bottom, left] or null (auto)",
        read: { node, name, reader throws(MercurialError) in
            func side(_ node: JSONNode, _ name: String) throws(MercurialError) -> PlacementMargin {
                switch node.value {
                case .number: return .pixels(try reader.number(node, name, in: 0...PlacementMargin.maximumPixels))
                case .string(let s):
                    guard let m = PlacementMargin.parse(s) else {
                        throw reader.fail(node, "\"\(name)\" is \"\(shortQuote(s))\"; give pixels (e.g. 40), a share of the canvas under 50 % (e.g. \"5%\") or \"safe\"")
                    }
                    return m
                default:
                    throw reader.fail(node, "\"\(name)\" must be pixels, a share such as \"5%\" or \"safe\", not \(node.value.typeName)")
                }
            }
            switch node.value {
            case .null: return nil
            case .string(let s) where ["", "auto"].contains(s.trimmingWhitespace().lowercased()): return nil
            case .array(let items) where items.count == 2:
                let (x, y) = (try side(items[0], "\(name)[0]"), try side(items[1], "\(name)[1]"))
                return .sides(y, x, y, x)
            case .array(let items) where items.count == 4:
                return .sides(try side(items[0], "\(name)[0]"), try side(items[1], "\(name)[1]"), try side(items[2], "\(name)[2]"),
                              try side(items[3], "\(name)[3]"))
            case .array(let items):
                throw reader.fail(node, "\"\(name)\" has \(items.count) values; give one for every side, [x, y] or [top, right, bottom, left]")
            default: return try side(node, name)
            }
        },
        write: { margin in
            func value(_ m: PlacementMargin) -> JSONValue {
                if case .pixels(let v) = m { return .number(v) }
                return .string(m.description)
            }
            switch margin {
            case nil: return nil
            case let .sides(top, right, bottom, left)?: return .list([top, right, bottom, left].map(value))
            case let m?: return value(m)
            }
        })

    /// `offset`: `[x, y]` in pixels; x and y can be animated. Left out of a recipe when [0, 0].
    static let offset: SchemaValue<SIMD2<Double>> = {
        let point = SchemaValue<SIMD2<Double>>.point(-1e5...1e5, "a point [x, y] in pixels, e.g. [0, -20]")
        let number = SchemaValue<Double>.number(-1e5...1e5)
        return SchemaValue(point.description, read: point.read, write: { $0 == .zero ? nil : point.write($0) },
                           leaf: point.leaf,
                           assign: { value, steps, node, name, reader throws(MercurialError) in
                               switch Array(steps) {
                               case []: value = try point.read(node, name, reader)
                               case [.key("x")]: value.x = try number.read(node, name + ".x", reader)
                               case [.key("y")]: value.y = try number.read(node, name + ".y", reader)
                               default: throw MercurialError("'\(name)' has no '\(SchemaPathStep.text(steps))'; give offset, offset.x or offset.y")
                               }
                           })
    }()

    // MARK: - layer styles (Photoshop's names, ranges and defaults)

    static let styleOpacity = SchemaValue.number(0...1)
    static let styleAngle = SchemaValue.number(-360...360)
    static let styleDistance = SchemaValue.number(0...4096)
    static let styleSize = SchemaValue.number(0...250)
    static let stylePercent = SchemaValue.number(0...100)

    /// A drop shadow (`edge` "spread") or an inner shadow (`edge` "choke", into the letters).
    static func shadow(edge: String, falls: String, edgeHelp: String, knockout: Bool) -> Schema<Shadow> {
        Schema(Shadow(), [
            SchemaField("color", \.color, .color, help: "the shadow's colour"),
            SchemaField("opacity", \.opacity, styleOpacity, help: "the shadow's opacity, 0…1"),
            SchemaField("angle", \.angle, styleAngle,
                        help: "where the light comes from, degrees anticlockwise from the right (120: upper left); the shadow falls opposite"),
            SchemaField("distance", \.distance, styleDistance, help: "how far the shadow falls\(falls), in pixels"),
            SchemaField("size", \.size, styleSize, help: "how far its soft edge reaches, in pixels (0: hard)"),
            SchemaField(edge, \.spread, stylePercent, help: "per cent of the size that is a hard \(edgeHelp) before the blur"),
        ] + (knockout ? [knockoutField(\.knockout, "shadow")] : []))
    }

    /// A drop shadow's or outer glow's `knockout` (on by default).
    static func knockoutField<T: Sendable>(_ key: WritableKeyPath<T, Bool> & Sendable, _ style: String) -> SchemaField<T> {
        SchemaField("knockout", key, .bool, help: "whether the \(style) is hidden under the title's own ink (a half-revealed letter keeps its colour)")
    }

    public static let dropShadow = shadow(edge: "spread", falls: "", edgeHelp: "dilation", knockout: true)
    public static let innerShadow = shadow(edge: "choke", falls: " inside the letters", edgeHelp: "choke", knockout: false)

    /// An `image`'s keys; in a scene file its `file` is relative to the scene's folder.
    public static let imageBlock = Schema(LayerImage(), [
        SchemaField("file", \.file, imageFile, help: "the PNG; relative to the scene file's folder"),
        SchemaField("width", \.width, SchemaValue.integer(1...PNGFile.maximumSide).optional(what: "an \"image.width\""),
                    help: "its width in pixels (with no height, its shape kept); left out: its own"),
        SchemaField("height", \.height, SchemaValue.integer(1...PNGFile.maximumSide).optional(what: "an \"image.height\""),
                    help: "its height in pixels (with no width, its shape kept); left out: its own"),
        SchemaField("emboss", \.emboss, .bool,
                    help: "lofted and shaded in the title's metal, as --mask is (its alpha, or its luminance, the coverage); false: drawn in its own colours"),
    ], finish: { image, node, _, name, reader throws(MercurialError) in
        guard !image.file.isEmpty else { throw reader.fail(node, "\"\(name)\" has no \"file\"; give the PNG's path, e.g. {\"file\": \"logo.png\"}") }
    })

    /// An image's file: a path, relative to the scene file's folder.
    static let imageFile = SchemaValue<String>(
        kind: "path", rangeDescription: "a PNG file",
        read: { node, name, reader throws(MercurialError) in
            guard case .string(let s) = node.value, !s.isEmpty else {
                throw reader.fail(node, "\"\(name)\" must be a PNG file's path, not \(node.value.typeName)")
            }
            return try SceneFile.resolvePath(s, relativeTo: reader.file, at: node.location, key: name, onlyIfPathLike: false)
        },
        write: { .string($0) })

    /// `image`: a file's path alone, or the block.
    static let layerImage: SchemaValue<LayerImage> = {
        let block = SchemaValue.block(imageBlock)
        return SchemaValue(block.description,
                           read: { node, name, reader throws(MercurialError) in
                               guard case .string = node.value else { return try block.read(node, name, reader) }
                               var image = LayerImage()
                               image.file = try imageFile.read(node, name, reader)
                               return image
                           },
                           write: block.write, leaf: block.leaf, assign: block.assign, blank: block.blank)
    }()

    public static let plate = Schema(Plate(), [
        SchemaField("color", \.paint, paint(of: "plate"),
                    help: "the plate's colour, or \"material\": lofted and shaded in the title's metal and lights"),
        SchemaField("opacity", \.opacity, styleOpacity, help: "the plate's opacity, 0…1 (0: the bar alone)"),
        SchemaField("padding", \.padding, platePadding, help: "pixels between the ink and the plate's edge: one for every side, [x, y] or [top, right, bottom, left]"),
        SchemaField("radius", \.radius, .number(0...2048), help: "the corners' radius in pixels"),
        SchemaField("bar", \.bar, SchemaValue.block(plateBar).optional(acceptsNull: true, what: "a \"plate.bar\""),
                    help: "an accent line along one side of the plate"),
    ])

    public static let plateBar = Schema(Plate.Bar(), [
        SchemaField("side", \.side, .choice(Plate.Bar.Side.allCases.map(\.rawValue), parse: { Plate.Bar.Side(rawValue: $0) },
                                           name: { $0.rawValue }, what: "\"left\", \"right\", \"top\" or \"bottom\""),
                    help: "the side of the plate it runs along"),
        SchemaField("width", \.width, .number(0...2048), help: "its width in pixels, inside the plate's edge"),
        SchemaField("color", \.color, .color, help: "its colour"),
        SchemaField("opacity", \.opacity, styleOpacity, help: "its opacity, 0…1"),
    ])

    /// A plate's `padding`: one number for every side, `[x, y]` or `[top, right, bottom, left]`, in pixels.
    static let platePadding = SchemaValue<SIMD4<Double>>(
        kind: "padding", range: 0...4096, rangeDescription: "px, [x, y] or [top, right, bottom, left]",
        read: { node, name, reader throws(MercurialError) in
            switch node.value {
            case .array(let items) where items.count == 2:
                let (x, y) = (try reader.number(items[0], "\(name)[0]", in: 0...4096), try reader.number(items[1], "\(name)[1]", in: 0...4096))
                return SIMD4(y, x, y, x)
            case .array(let items) where items.count == 4:
                var sides = SIMD4<Double>()
                for i in 0..<4 { sides[i] = try reader.number(items[i], "\(name)[\(i)]", in: 0...4096) }
                return sides
            case .array(let items):
                throw reader.fail(node, "\"\(name)\" has \(items.count) values; give one for every side, [x, y] or [top, right, bottom, left]")
            default:
                let v = try reader.number(node, name, in: 0...4096)
                return SIMD4(repeating: v)
            }
        },
        write: { p in
            p == SIMD4(repeating: p[0]) ? .number(p[0]) : .list([p[0], p[1], p[2], p[3]].map { .number($0) })
        })

    public static let outerGlow = Schema(OuterGlow(), [
        SchemaField("color", \.color, .color, help: "the glow's colour"),
        SchemaField("opacity", \.opacity, styleOpacity, help: "the glow's opacity, 0…1"),
        SchemaField("size", \.size, styleSize, help: "how far the glow reaches, in pixels"),
        SchemaField("spread", \.spread, stylePercent, help: "per cent of the size that is a hard dilation before the blur"),
        knockoutField(\.knockout, "glow"),
    ])

    public static let stroke = Schema(Stroke(), [
        SchemaField("width", \.width, .number(0.5...250), help: "the outline's width in pixels"),
        SchemaField("position", \.position, strokePosition, help: "outside, inside or center of the letters' edge"),
        SchemaField("color", \.paint, strokePaint,
                    help: "the outline's colour, or \"material\": lofted and shaded in the title's metal and lights"),
        SchemaField("opacity", \.opacity, styleOpacity, help: "the outline's opacity, 0…1"),
    ])

    /// A stroke's paint: a colour (animatable), or `"material"` (did-you-mean for a near miss).
    static let strokePaint = paint(of: "stroke")

    /// A style's paint (`style`: "stroke", "plate"): a colour (animatable), or `"material"`.
    static func paint(of style: String) -> SchemaValue<Stroke.Paint> {
        let color = SchemaValue<RGBColor>.color
        return SchemaValue(SchemaDescription(kind: "color", range: nil, rangeDescription: "colour or \"material\"",
                                             children: { _ in [] }),
                           read: { node, name, reader throws(MercurialError) in
                               guard case .string(let s) = node.value else {
                                   throw reader.fail(node, "\"\(name)\" is \(node.value.typeName), not a colour; use a name (e.g. gold), #rrggbb or \"material\" (the title's metal)")
                               }
                               if let c = RGBColor.parse(s) { return .color(c) }
                               if s == "material" { return .material }
                               if let near = closestMatch(to: s, in: ["material"]) {
                                   throw reader.fail(node, "unknown \"\(name)\" \"\(shortQuote(s))\"; did you mean \"\(near)\"? give a colour (e.g. gold or #rrggbb) or \"material\"")
                               }
                               throw reader.fail(node, "\"\(name)\" is \"\(shortQuote(s))\", not a colour; use a name (e.g. gold), #rrggbb or \"material\" (the title's metal)")
                           },
                           write: { paint in
                               switch paint {
                               case .material: return .string("material")
                               case .color(let c): return color.write(c)
                               }
                           },
                           leaf: { steps in
                               steps.isEmpty ? SchemaLeaf(kind: .color,
                                                          get: { paint in
                                                              guard case .color(let c) = paint else {
                                                                  return .missing("animates the \(style)'s colour, but \"\(style).color\" is \"material\" (the title's metal, which its lights animate); give the \(style) a colour, or leave out the track")
                                                              }
                                                              return .value(.color(c))
                                                          },
                                                          set: { paint, value in
                                                              if case .color = paint, case .color(let c) = value { paint = .color(c) }
                                                          })
                                            : nil
                           })
    }

    /// A stroke's position: one of its cases.
    static let strokePosition = SchemaValue<Stroke.Position>.choice(
        Stroke.Position.allCases.map(\.rawValue), parse: { Stroke.Position(rawValue: $0) }, name: { $0.rawValue },
        what: orList(Stroke.Position.allCases.map { "\"\($0.rawValue)\"" }))

    public static let textPath = Schema(TextPath(), [
        SchemaField("type", \.type, SchemaValue<TextPath.Kind>.choice(
            TextPath.Kind.allCases.map(\.rawValue), parse: { TextPath.Kind(rawValue: $0) }, name: { $0.rawValue },
            what: orList(TextPath.Kind.allCases.map { "\"\($0.rawValue)\"" })),
                    help: "arc: round a circle, the text centred on start; circle: round a circle from start; points: through points"),
        SchemaField("radius", \.radius, .number(1...100_000), help: "the circle's radius in pixels; the baseline runs on it, the letters outside"),
        SchemaField("start", \.start, .number(-36_000...36_000),
                    help: "degrees clockwise from the circle's top where the text's middle (arc) or start (circle) is; a track turns the text"),
        SchemaField("points", \.points, textPathPoints, help: "with type points: the curve through [[x, y], …] in pixels, y down, the letters on its left; canvas pixels when width and height are given (dragged on the editor's preview)"),
    ], finish: { path, node, members, name, reader throws(MercurialError) in
        if path.type == .points && path.points.count < 2 {
            throw reader.fail(node, "\"\(name)\" of type \"points\" needs \"points\": at least 2 points [[x, y], …]")
        }
    })

    static let textPathPoints = SchemaValue<[SIMD2<Double>]>(
        kind: "points", rangeDescription: "[[x, y], …], 2 to \(TextPath.maximumPoints)",
        read: { node, name, reader throws(MercurialError) in
            if case .null = node.value { return [] }
            guard case .array(let items) = node.value, (2...TextPath.maximumPoints).contains(items.count) else {
                throw reader.fail(node, "\"\(name)\" must be 2 to \(TextPath.maximumPoints) points [[x, y], …]")
            }
            return try items.map { item throws(MercurialError) in
                guard case .array(let xy) = item.value, xy.count == 2 else {
                    throw reader.fail(item, "each point of \"\(name)\" must be [x, y] in pixels")
                }
                return SIMD2(try reader.number(xy[0], name, in: -1e5...1e5), try reader.number(xy[1], name, in: -1e5...1e5))
            }
        },
        write: { $0.isEmpty ? nil : .list($0.map { .list([.number($0.x), .number($0.y)]) }) })

    public static let orbit = Schema(Orbit(cx: 0, cy: 0, r: 0, period: 1), [
        SchemaField("cx", \.cx, .number(-1e6...1e6), help: "centre x in canvas pixels"),
        SchemaField("cy", \.cy, .number(-1e6...1e6), help: "centre y in canvas pixels"),
        SchemaField("r", \.r, .number(0...1e6), help: "radius in pixels"),
        SchemaField("period", \.period,
                    .number(-3600...3600, check: { $0 == 0 ? "; give the seconds per turn (negative turns the other way)" : nil }),
                    help: "seconds per turn; negative turns anticlockwise on screen"),
        SchemaField("phase", \.phase, .number(-1000...1000), help: "the starting angle, in turns"),
    ])

    public static let pointLight = Schema(PointLight(x: 0, y: 0), [
        SchemaField("x", \.x, .number(-1e6...1e6), help: "centre x in canvas pixels (y down)"),
        SchemaField("y", \.y, .number(-1e6...1e6), help: "centre y in canvas pixels (y down)"),
        SchemaField("color", \.color, .color, help: "the light's colour"),
        SchemaField("intensity", \.intensity, .number(0...10), help: "the colour's strength at the centre"),
        SchemaField("range", \.range, .number(0...1e6), help: "radius in pixels where the light has faded to nothing"),
        SchemaField("constantIntensityOverRange", \.constantIntensityOverRange, .bool,
                    help: "hold the intensity out to the range instead of fading"),
        SchemaField("orbit", \.orbit, SchemaValue.block(orbit).optional(acceptsNull: true, what: "an \"orbit\""),
                    help: "circle on this path; x and y follow it",
                    then: { light in if let o = light.orbit { (light.x, light.y) = o.position(at: 0) } }),
    ], finish: { _, node, members, name, reader throws(MercurialError) in
        let keys = Set(members.map(\.key))
        guard keys.contains("orbit") || (keys.contains("x") && keys.contains("y")) else {
            throw reader.fail(node, "\"\(name)\" needs a position: \"x\" and \"y\" in canvas pixels, or an \"orbit\"")
        }
    })

    /// A backdrop gradient as a scene file gives it: colours, their locations (evenly spaced when
    /// there are none), and the two ends of its axis in unit coordinates.
    public struct GradientDraft: Sendable {
        public var colors: [RGBColor] = []
        public var locations: [Float]? = nil
        public var startPoint = SIMD2<Double>(0.5, 0), endPoint = SIMD2<Double>(0.5, 1)

        init() {}

        init(_ g: BackgroundGradient) {
            self.init(g.gradient)
            startPoint = g.startPoint
            endPoint = g.endPoint
        }

        init(_ g: Gradient) {
            colors = g.stops.map(\.color)
            locations = g.stops.map(\.location)
        }

        var reflection: Gradient {
            locations.map { Gradient(stops: zip(colors, $0).map { Gradient.Stop(color: $0, location: $1) }) } ?? Gradient(colors: colors)
        }

        var backgroundGradient: BackgroundGradient {
            BackgroundGradient(gradient: reflection, startPoint: startPoint, endPoint: endPoint)
        }
    }

    /// A material's reflection gradient: colours and their locations (in any order) on the sphere.
    public static let reflection = Schema(GradientDraft(), [
        SchemaField("colors", \.colors, SchemaValue<[RGBColor]>(
            kind: "array", rangeDescription: "colours",
            read: { node, name, reader throws(MercurialError) in
                guard case .array(let items) = node.value, !items.isEmpty else {
                    throw reader.fail(node, "\"\(name)\" must be a non-empty array of colours")
                }
                var colors: [RGBColor] = []
                for item in items {
                    guard case .string(let s) = item.value, let c = RGBColor.parse(s) else {
                        throw reader.fail(item, "\"\(name)\" holds \(item.value.typeName) that is not a colour; use names or #rrggbb")
                    }
                    colors.append(c)
                }
                return colors
            },
            write: { .list($0.map { .string($0.hex) }) }), required: "", help: "the colours, from the sphere's top"),
        SchemaField("locations", \.locations, SchemaValue<[Float]>(
            kind: "array", range: 0...1, rangeDescription: "numbers in 0…1",
            read: { node, name, reader throws(MercurialError) in
                guard case .array(let items) = node.value else { throw reader.fail(node, "\"\(name)\" must be an array of numbers 0…1") }
                var list: [Float] = []
                for item in items {
                    guard case .number(let v) = item.value, (0...1).contains(v) else {
                        throw reader.fail(item, "\"\(name)\" entries must be numbers in 0…1")
                    }
                    list.append(Float(v))
                }
                return list
            },
            write: { .list($0.map(JSONValue.float)) }).optional(what: "\"locations\""),
            help: "where each colour sits, 0…1; evenly spaced when left out"),
    ], finish: matchingLocations)

    /// One location per colour, when locations are given.
    static let matchingLocations: Schema<GradientDraft>.Finish = { draft, _, members, name, reader throws(MercurialError) in
        if let locations = draft.locations, locations.count != draft.colors.count,
           let colors = members.first(where: { $0.key == "colors" }) {
            throw reader.fail(colors.value, "\"\(name)\" has \(draft.colors.count) colors but \(locations.count) locations; give one location per colour")
        }
    }

    public static let gradient = Schema(GradientDraft(), [
        SchemaField("colors", \.colors, SchemaValue.colors(maximum: 256), required: "", help: "the colours, first at the start"),
        SchemaField("locations", \.locations, locations.optional(what: "\"locations\""),
                    help: "where each colour sits along the axis, 0…1; evenly spaced when left out"),
        SchemaField("startPoint", \.startPoint, .point(-10...10, "a point [x, y] in unit coordinates, e.g. [0.5, 0]"),
                    help: "the axis' start, (0, 0) top left, (1, 1) bottom right"),
        SchemaField("endPoint", \.endPoint, .point(-10...10, "a point [x, y] in unit coordinates, e.g. [0.5, 0]"),
                    help: "the axis' end"),
    ], finish: matchingLocations)

    /// Numbers in 0…1 that do not decrease.
    static let locations = SchemaValue<[Float]>(
        kind: "array", range: 0...1, rangeDescription: "numbers in 0…1, not decreasing",
        read: { node, name, reader throws(MercurialError) in
            guard case .array(let items) = node.value else { throw reader.fail(node, "\"\(name)\" must be an array of numbers in 0…1") }
            var list: [Float] = []
            for item in items { list.append(Float(try reader.number(item, name, in: 0...1))) }
            guard zip(list, list.dropFirst()).allSatisfy({ $0 <= $1 }) else { throw reader.fail(node, "\"\(name)\" must not decrease") }
            return list
        },
        write: { .list($0.map(JSONValue.float)) })

    public static let vine = Schema(Vine(), [
        SchemaField("path", \.route, route, help: "where the stem runs: under the text, over it, or through canvas points"),
        SchemaField("seed", \.seed, SchemaValue.number(0...4_294_967_295).map({ UInt64($0.rounded()) }, { Double($0) }),
                    help: "the same seed always grows the same vine"),
        SchemaField("width", \.width, .number(1...200), help: "the stem's width in pixels; branches are thinner"),
        SchemaField("start", \.start, .number(0...3600), help: "when the stem starts to grow, in seconds"),
        SchemaField("duration", \.duration, .number(0.001...3600), help: "how long it grows, in seconds"),
        SchemaField("branchSpacing", \.branchSpacing, .number(4...10_000), help: "mean pixels along the stem between branch points"),
        SchemaField("branchAngle", \.branchAngle, .span(0...180), help: "a branch's angle from the stem in degrees, drawn in this range"),
        SchemaField("branchLength", \.branchLength, .span(1...4096), help: "a branch's length in pixels, drawn in this range"),
        SchemaField("branchChance", \.branchChance, .number(0...1), help: "the chance that a branch point sprouts"),
        SchemaField("leafSize", \.leafSize, .number(0...1024), help: "a leaf's length in pixels"),
    ])

    static let route = SchemaValue<Vine.Route>(
        kind: "route", rangeDescription: "underline, arc or [[x, y], …]",
        read: { node, name, reader throws(MercurialError) in
            switch node.value {
            case .string("underline"): return .underline
            case .string("arc"): return .arc
            case .array(let items):
                guard (2...Vine.maximumPoints).contains(items.count) else {
                    throw reader.fail(node, "\"\(name)\" has \(items.count) points; give 2 to \(Vine.maximumPoints) canvas points [x, y]")
                }
                var points: [SIMD2<Double>] = []
                for item in items {
                    guard case .array(let xy) = item.value, xy.count == 2 else {
                        throw reader.fail(item, "each point of \"\(name)\" must be [x, y] in canvas pixels")
                    }
                    points.append(SIMD2(try reader.number(xy[0], name, in: -1e5...1e5), try reader.number(xy[1], name, in: -1e5...1e5)))
                }
                return .points(points)
            default:
                throw reader.fail(node, "\"\(name)\" must be \"underline\", \"arc\" or an array of canvas points [[x, y], …]")
            }
        },
        write: { route in
            switch route {
            case .underline: return .string("underline")
            case .arc: return .string("arc")
            case .points(let points): return .list(points.map { .list([.number($0.x), .number($0.y)]) })
            }
        })

    /// A scene's `animation` block; its tracks are read by the timeline once the scene is read.
    public static let motionBlur = Schema(MotionBlur(), [
        SchemaField("shutter", \.shutter, .number(MotionBlur.shutterRange),
                    help: "the shutter angle in degrees: the share of a frame's time it is open (180: half; 360: all), centred on the frame"),
        SchemaField("samples", \.samples, .integer(MotionBlur.sampleRange), help: "frames averaged for a moving frame"),
    ])

    public static let animation = Schema(Timeline(duration: 1), [
        SchemaField("duration", \.duration, .time(Timeline.durationRange), required: ", in seconds, frames (\"150f\") or timecode (\"00:00:05:00\")",
                    help: "the animation's length: seconds, frames (\"150f\") or SMPTE timecode (\"00:00:05:00\"; \"00:00:05;00\" drop-frame at 29.97 and 59.94)"),
        SchemaField("fps", \.fps, fps, help: fpsHelp),
        SchemaField("timecode", \.timecode, timecode.optional(what: "a \"timecode\""),
                    help: "the first frame's SMPTE timecode, written into a .mov (HH:MM:SS:FF; ';' before the frames for drop-frame); left out: 00:00:00:00, drop-frame at 29.97 and 59.94"),
        SchemaField("loop", \.loop, .bool, help: "whether the output plays in a loop (an APNG's play count)"),
        SchemaField("motionBlur", \.motionBlur, SchemaValue.block(motionBlur).optional(acceptsNull: true, what: "a \"motionBlur\""),
                    help: "motion blur for moves (in, out, shift, zoom, opacity): each moving frame the average of samples over the shutter's share of the frame"),
        SchemaField("quality", \.quality, quality, help: qualityHelp),
        SchemaField("tracks", readBy: "timeline", \.tracks, tracks,
                    help: "keyframes by what they change: a parameter key or a nested path such as pointLights[0].intensity"),
    ], finish: { timeline, node, members, _, reader throws(MercurialError) in
        // A duration in frames or timecode counts at the animation's rate, which may follow it in the block.
        if let duration = members.first(where: { $0.key == "duration" }), case .string = duration.value.value {
            var atRate = reader
            atRate.fps = timeline.fps
            timeline.duration = try SchemaValue<Double>.time(Timeline.durationRange).read(duration.value, "duration", atRate)
        }
        if let timecode = timeline.timecode {
            do throws(MercurialError) { _ = try timecode.frame(at: timeline.rate) } catch {
                throw reader.fail(members.first { $0.key == "timecode" }?.value ?? node, error.message)
            }
        }
        guard timeline.duration * timeline.fps <= Double(Timeline.maximumFrames) else {
            let duration = members.first { $0.key == "duration" }?.value ?? node
            throw reader.fail(duration, "the animation has \(Int(timeline.duration * timeline.fps)) frames, over the limit of \(Timeline.maximumFrames); shorten \"duration\" or lower \"fps\"")
        }
    })

    static let tracks = SchemaValue<[Track]>(
        SchemaDescription(kind: "tracks", range: nil, rangeDescription: "{\"KEY\": [keyframe, …]}",
                          children: { keyframe(.number(0...1)).rows(under: $0 + ".KEY[].") }),
        read: { node, name, reader throws(MercurialError) in throw reader.fail(node, "\"\(name)\" is read with the timeline") },
        write: { tracks in
            .members(tracks.map { track in
                (track.key, .list(track.keyframes.frames.map { keyframe(.number(0...1)).write($0) }))
            })
        },
        leaf: { _ in nil })

    /// A keyframe of a track whose target takes `kind` (a number in a range, or a colour).
    static func keyframe(_ kind: ParameterKind) -> Schema<Keyframe<ParameterValue>> {
        let value: SchemaValue<ParameterValue>
        if case .number(let range) = kind {
            value = SchemaValue.number(range).map({ .number($0) }, { if case .number(let n) = $0 { n } else { 0 } })
        } else {
            value = SchemaValue.color.map({ .color($0) }, { if case .color(let c) = $0 { c } else { .white } })
        }
        return Schema(Keyframe(time: 0, value: .number(0)), [
            SchemaField("t", \.time, time, required: " (seconds)", help: "the keyframe's time in seconds, 0…animation.duration"),
            SchemaField("value", \.value, value, required: "", help: "the value at that time: a number in the key's range, or a colour"),
            SchemaField("timing", \.timing, timing, help: "the easing from this keyframe to the next"),
        ])
    }

    /// Sets the nested key `path` (`vine.width`, `pointLights[].intensity`, `backgroundGradient`)
    /// to `text`: JSON (a number, `true`, `[25, 60]`, `{"colors": ["red"]}`), or else a bare word
    /// read as a string (`gold`, `#ff8800`, `arc`). Checked as a scene file's value is.
    public static func assign(_ path: String, text: String, to target: inout RenderSettings) throws(MercurialError) {
        guard let steps = SchemaPathStep.parse(path) else { throw MercurialError("'\(shortQuote(path))' is not a key path such as vine.width or pointLights[0].x") }
        let node = (try? JSONDocument.parse(Array(text.utf8))) ?? JSONNode(value: .string(text), location: .none)
        var reader = SceneAnimation.Reader(file: path)
        reader.showsLocation = false
        try settings.assign(steps[...], node, "", onto: &target, reader)
    }

    /// The scene's nested blocks: the fields of `settings` that are no parameter.
    public static var blocks: Schema<RenderSettings> {
        Schema(settings.defaultValue, settings.fields.filter { $0.parameter == nil })
    }

    /// Whether `path` names a key inside a nested block (its first key is a block's).
    public static func isNested(_ path: String) -> Bool {
        guard case .key(let first)? = SchemaPathStep.parse(path)?.first else { return false }
        return settings.field(first).map { $0.parameter == nil } ?? false
    }

    /// The value at a nested row's path in `settings` (the first element for `[]`), or nil.
    public static func value(at path: String, in settings: RenderSettings) -> JSONValue? {
        guard let steps = SchemaPathStep.parse(path) else { return nil }
        return blocks.write(settings).at(steps[...])
    }

    /// The row `rows` has at `path`, built from the one block that holds it: a flag's help
    /// reads its row at every start of the command line, and building every row for each of
    /// the three such flags cost a 64×64 title's whole process 1.7 ms of 24.2 (medians).
    public static func row(at path: String) -> SchemaRow? {
        let block = String(path.prefix { $0 != "." && $0 != "[" && $0 != "(" })
        let candidates: [SchemaRow]
        if block == "animation" {
            candidates = animation.rows(under: "animation.")
        } else if block == "dynamics" {
            candidates = dynamics.rows(under: "dynamics.")
        } else if let field = settings.field(block), field.parameter == nil {
            candidates = Schema(settings.defaultValue, [field]).rows(under: "")
        } else {
            candidates = rows
        }
        return candidates.first { $0.path == path }
    }

    /// Every nested key as `params` lists it: `pointLights[].intensity`, `vine.branchAngle`, `animation.fps`.
    public static var rows: [SchemaRow] {
        blocks.rows(under: "") + animation.rows(under: "animation.") + dynamics.rows(under: "dynamics.")
            + sequenceStep.rows(under: "sequence[].")
            + transitions.flatMap { type, schema in schema.rows(under: "sequence[].transition(\(type)).") }
            + fallbackFont.rows(under: "fallbackFonts[].") + layer.rows(under: "layers[].")
            + entrance.description.children("in|out")
    }

    /// The number or colour a track's `path` names (`pointLights[0].intensity`, `vine.width`,
    /// `backgroundGradient.colors[1]`), or nil. The names tracks used before the schema are
    /// aliases: `pointLightN.F` is `pointLights[N-1].F`, `backgroundGradient.startX` is
    /// `backgroundGradient.startPoint.x` (and `startY`, `endX`, `endY`), `backgroundGradient.colorN`
    /// is `backgroundGradient.colors[N-1]`.
    public static func leaf(at path: String) -> SchemaLeaf<RenderSettings>? {
        guard let steps = SchemaPathStep.parse(unaliased(path)) else { return nil }
        return settings.leaf(steps[...])
    }

    static func unaliased(_ path: String) -> String {
        let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return path }
        if parts[0].hasPrefix("pointLight"), let n = Int(parts[0].dropFirst("pointLight".count)), n >= 1 {
            return "pointLights[\(n - 1)].\(parts[1])"
        }
        if parts[0] == "backgroundGradient" {
            let points = ["startX": "startPoint.x", "startY": "startPoint.y", "endX": "endPoint.x", "endY": "endPoint.y"]
            if let point = points[parts[1]] { return "backgroundGradient.\(point)" }
            if parts[1].hasPrefix("color"), let n = Int(parts[1].dropFirst("color".count)), n >= 1 {
                return "backgroundGradient.colors[\(n - 1)]"
            }
        }
        return path
    }

    /// The paths of the numbers and colours `settings` has, for did-you-mean.
    static func leafPaths(in settings: RenderSettings) -> [String] {
        func concrete(_ path: String) -> [String] {
            guard let open = path.firstRange(of: "[]") else { return [path] }
            let list = String(path[..<open.lowerBound])
            let count = list == "pointLights" ? settings.pointLights.count : (settings.backgroundGradient?.gradient.stops.count ?? 0)
            return (0..<count).flatMap { concrete(list + "[\($0)]" + path[open.upperBound...]) }
        }
        return rows.filter { ["number", "color", "point"].contains($0.kind) && !$0.path.hasPrefix("animation.") }
            .flatMap { row in row.kind == "point" ? [row.path + ".x", row.path + ".y"] : [row.path] }
            .flatMap(concrete)
            .filter { if case .value? = leaf(at: $0)?.get(settings) { return true } else { return false } }
    }

    // MARK: - dynamics

    /// A scene's `dynamics` block (read with its animation's duration, which its times must not pass).
    public static let dynamics = Schema(Dynamics(), [
        SchemaField("bodies", \.bodies, .choice(Dynamics.Bodies.allCases.map(\.rawValue), parse: { Dynamics.Bodies(rawValue: $0) },
                                                name: { $0.rawValue }, what: "\"glyphs\", \"words\" or \"title\""),
                    help: "what becomes a rigid body: each glyph, each word, or the whole title"),
        SchemaField("gravity", \.gravityBlock, .block(gravity), help: "UIGravityBehavior's direction and magnitude"),
        SchemaField("elasticity", \.elasticity, .number(0...1), help: "how much of its speed a body keeps in a collision"),
        SchemaField("friction", \.friction, .number(0...10), help: "friction between bodies, walls and floor"),
        SchemaField("density", \.density, .number(0.001...1000), help: "mass per px²"),
        SchemaField("floor", \.floorSetting, floor, help: "true: the canvas's bottom edge, false: none, or a y in canvas pixels"),
        SchemaField("walls", \.walls, .bool, help: "walls at the canvas's left and right edges"),
        SchemaField("ceiling", \.ceiling, .bool, help: "a ceiling at the canvas's top edge"),
        SchemaField("push", \.push, SchemaValue.block(push).optional(acceptsNull: true, what: "a \"push\""), help: "an instantaneous push (UIPushBehavior)"),
        SchemaField("spin", \.spin, .number(-200...200), help: "radians/s added to a body on its first collision"),
        SchemaField("delay", \.delay, time, help: "seconds before the first body is let go"),
        SchemaField("stagger", \.stagger, time, help: "further seconds for each next body"),
        SchemaField("delays", \.delays, delays, help: "per-body release times in seconds, overriding delay and stagger"),
        SchemaField("bodyOverrides", \.overrideList, .list(bodyOverride, maximum: 10_000, noun: "body override", plural: "overrides"),
                    help: "per-body elasticity, friction and density, by index"),
        SchemaField("stepsPerSecond", \.stepsPerSecond, .number(60...2000), help: "physics steps per second, whatever the frame rate"),
        SchemaField("ropes", \.ropes, .list(rope, maximum: Dynamics.maximumRopes, noun: "rope", plural: "ropes"),
                    help: "ropes that bodies hang from (chains of UIAttachmentBehaviors)"),
    ])

    /// A vector on the canvas (y down) that must point somewhere.
    static let direction = SchemaValue.point(-1e6...1e6, "a vector [dx, dy] on the canvas (y down), e.g. [0, 1]", nonZero: true)

    /// A time in seconds within the animation.
    static let time = SchemaValue<Double>(
        kind: "number", range: 0...Timeline.durationRange.upperBound, rangeDescription: "0…animation.duration",
        read: { node, name, reader throws(MercurialError) in try reader.number(node, name, in: 0...(reader.duration ?? Timeline.durationRange.upperBound)) },
        write: { .number($0) })

    static let delays = SchemaValue<[Double]>(
        kind: "array", rangeDescription: "up to 10000 times in 0…animation.duration",
        read: { node, name, reader throws(MercurialError) in
            guard case .array(let items) = node.value, items.count <= 10_000 else {
                throw reader.fail(node, "\"\(name)\" must be an array of up to 10000 times in seconds, one per body")
            }
            var times: [Double] = []
            for item in items { times.append(try time.read(item, name, reader)) }
            return times
        },
        write: { $0.isEmpty ? nil : .list($0.map(JSONValue.number)) })

    public struct GravityBlock: Sendable { var direction: SIMD2<Double>, magnitude: Double }

    public static let gravity = Schema(Dynamics().gravityBlock, [
        SchemaField("direction", \.direction, direction, help: "gravity's direction; its length does not matter"),
        SchemaField("magnitude", \.magnitude, .number(0...100), help: "1 is 1000 px/s²"),
    ])

    public static let push = Schema(Dynamics.Push(), [
        SchemaField("direction", \.direction, direction, help: "the push's direction"),
        SchemaField("magnitude", \.magnitude, .number(0...100), help: "1 gives a 100 × 100 px body of density 1 a speed of 100 px/s"),
        SchemaField("at", \.at, time, help: "when, in seconds"),
    ])

    public enum Floor: Sendable { case none, edge, at(Double) }

    static let floor = SchemaValue<Floor>(
        kind: "number", range: -1e6...1e6, rangeDescription: "true, false or -1000000…1000000",
        read: { node, name, reader throws(MercurialError) in
            if case .bool(let on) = node.value { return on ? .edge : .none }
            return .at(try reader.number(node, "\(name) (y in canvas pixels, or true/false)", in: -1e6...1e6))
        },
        write: { floor in
            switch floor {
            case .none: return .bool(false)
            case .edge: return .bool(true)
            case .at(let y): return .number(y)
            }
        })

    /// One entry of `bodyOverrides`.
    public struct BodyOverride: Sendable {
        var index = 0
        var material = Dynamics.BodyMaterial()
    }

    public static let bodyOverride = Schema(BodyOverride(), [
        SchemaField("index", \.index, .integer(0...9_999), required: ", the body's number from 0", help: "the body, from 0 in text order"),
        SchemaField("elasticity", \.material.elasticity, SchemaValue.number(0...1).optional(what: "\"elasticity\""), help: "this body's elasticity"),
        SchemaField("friction", \.material.friction, SchemaValue.number(0...10).optional(what: "\"friction\""), help: "this body's friction"),
        SchemaField("density", \.material.density, SchemaValue.number(0.001...1000).optional(what: "\"density\""), help: "this body's density"),
    ])

    public static let rope = Schema(Dynamics.Rope(), [
        SchemaField("body", \.bodyReference, ropeBody, help: "the body that hangs from it, from 0 in text order"),
        SchemaField("anchor", \.anchor, SchemaValue.point(-1e5...1e5, "a point [x, y] in canvas pixels").optional(acceptsNull: true, what: "an \"anchor\""),
                    help: "the fixed end in canvas pixels; left out: above the body, at the canvas's top edge"),
        SchemaField("segments", \.segments, .integer(1...200), help: "rigid links in the rope"),
        SchemaField("width", \.width, .number(1...200), help: "the stroke's width in pixels"),
        SchemaField("density", \.density, .number(0.001...1000), help: "mass per pixel of length"),
    ])

    /// A rope's body and where the file gives it, for the error when the title has no such body.
    public struct RopeBody: Sendable { var index: Int, location: String? }

    static let ropeBody = SchemaValue<RopeBody>(
        kind: "integer", range: 0...9_999, rangeDescription: "0…9999",
        read: { node, name, reader throws(MercurialError) in
            RopeBody(index: try SchemaValue.integer(0...9_999).read(node, name, reader), location: "\(reader.file):\(node.location)")
        },
        write: { .number(Double($0.index)) })
}

extension Dynamics {
    var gravityBlock: SceneSchema.GravityBlock {
        get { SceneSchema.GravityBlock(direction: gravityDirection, magnitude: gravityMagnitude) }
        set { (gravityDirection, gravityMagnitude) = (newValue.direction, newValue.magnitude) }
    }

    /// `floor` and `hasFloor` as the file gives them: true keeps the floor's y as it is.
    var floorSetting: SceneSchema.Floor {
        get { hasFloor ? floor.map { .at($0) } ?? .edge : .none }
        set {
            switch newValue {
            case .none: hasFloor = false
            case .edge: hasFloor = true
            case .at(let y): floor = y; hasFloor = true
            }
        }
    }

    /// `overrides` as the file lists them, by index (a later entry for the same body wins).
    var overrideList: [SceneSchema.BodyOverride] {
        get { overrides.sorted { $0.key < $1.key }.map { SceneSchema.BodyOverride(index: $0.key, material: $0.value) } }
        set { overrides = Dictionary(newValue.map { ($0.index, $0.material) }, uniquingKeysWith: { $1 }) }
    }
}

extension Dynamics.Rope {
    var bodyReference: SceneSchema.RopeBody {
        get { SceneSchema.RopeBody(index: body, location: bodyLocation) }
        set { (body, bodyLocation) = (newValue.index, newValue.location) }
    }
}

// MARK: - sequences and transitions

extension SceneSchema {
    /// A step of a `sequence`: its scene and transition are read by the sequence (they need the
    /// steps around them); the declaration lists and writes them.
    public static let sequenceStep = Schema(TitleSequence.Step(settings: RenderSettings(), timeline: nil, hold: 1), [
        SchemaField("scene", readBy: "sequence", \.settings, SchemaValue<RenderSettings>(
            kind: "object", rangeDescription: "a scene file's path or a scene object {…}",
            read: { node, name, reader throws(MercurialError) in throw reader.fail(node, "\"\(name)\" is read by the sequence") },
            write: { _ in nil }), help: "the title: a scene file's path (relative to this file) or a scene object"),
        SchemaField("hold", \.hold, .number(0...3600), help: "seconds the title is shown before its transition"),
        SchemaField("transition", readBy: "sequence", \.transition, SchemaValue<TitleSequence.TransitionStep?>(
            kind: "object", rangeDescription: "{\"type\": \(transitions.map { "\"\($0.type)\"" }.joined(separator: " | ")), …}",
            read: { node, name, reader throws(MercurialError) in try transition(node, name, reader) },
            write: { $0.map(write) }), help: "how this title gives way to the next; not on the last step"),
    ])

    /// A sequence's own `animation`: only its frame rate and looping.
    public static let sequenceAnimation = Schema(TitleSequence(steps: []), [
        SchemaField("fps", \.fps, fps, help: fpsHelp),
        SchemaField("loop", \.loop, .bool, help: "whether the output plays in a loop"),
        SchemaField("quality", \.quality, quality, help: qualityHelp),
    ])

    /// A start timecode, HH:MM:SS:FF (checked against the rate when the block is read).
    static let timecode = SchemaValue<Timecode>(
        kind: "timecode", rangeDescription: "\"HH:MM:SS:FF\"",
        read: { node, name, reader throws(MercurialError) in
            guard case .string(let text) = node.value, let timecode = Timecode(text) else {
                throw reader.fail(node, "\"\(name)\" must be SMPTE timecode such as \"01:00:00:00\" (\"01:00:00;00\" drop-frame)")
            }
            return timecode
        },
        write: { .string($0.description) })

    /// A frame rate that ffmpeg takes as a fraction (see `FrameRate`).
    static let fps = SchemaValue.number(Timeline.fpsRange, check: { fps in
        FrameRate(fps).isExact ? nil : " and has more digits than a frame rate can carry (ffmpeg takes a fraction of two 32-bit whole numbers); round it, e.g. to 3 decimals (29.97 is 30000/1001)"
    })
    static let fpsHelp = "frames per second; 23.976, 29.97, 59.94 (N×1000/1001) are exact"
    static let quality = SchemaValue.number(Timeline.qualityRange)
    static let qualityHelp = "WebM and MP4 quality: 0 smallest file, 100 best picture, 50 the default (VP9 CRF 32, H.264 CRF 18)"

    /// A named timing function (its `cases`, which the editor offers) or a cubic Bézier.
    static let timing = SchemaValue<TimingFunction>(
        SchemaDescription(kind: "timing", range: nil, cases: TimingFunction.named.map(\.name),
                          rangeDescription: TimingFunction.named.map(\.name).joined(separator: ", ") + ", or cubicBezier(x1, y1, x2, y2)",
                          children: { _ in [] }),
        read: { node, name, reader throws(MercurialError) in
            guard case .string(let s) = node.value else { throw reader.fail(node, "\"\(name)\" must be a string such as \"easeInEaseOut\"") }
            do throws(MercurialError) { return try TimingFunction.parse(s) } catch { throw reader.fail(node, error.message) }
        },
        write: { .string($0.description) }, leaf: { _ in nil })

    static let center = SchemaValue.point(-1e6...1e6, "a point [x, y] in canvas pixels, e.g. [240, 80]").optional(what: "a \"center\"")

    static let extent = SchemaValue<Transition.Extent>(
        kind: "rectangle", range: -1e6...1e6, rangeDescription: "[x, y, width, height] in canvas pixels",
        read: { node, name, reader throws(MercurialError) in
            guard case .array(let items) = node.value, items.count == 4 else {
                throw reader.fail(node, "\"\(name)\" must be a rectangle [x, y, width, height] in canvas pixels, e.g. [0, 0, 480, 160]")
            }
            return Transition.Extent(x: try reader.number(items[0], name, in: -1e6...1e6), y: try reader.number(items[1], name, in: -1e6...1e6),
                                     width: try reader.number(items[2], "\(name) width", in: 1...1e6),
                                     height: try reader.number(items[3], "\(name) height", in: 1...1e6))
        },
        write: { .list([.number($0.x), .number($0.y), .number($0.width), .number($0.height)]) }).optional(what: "an \"extent\"")

    /// The keys every transition takes: its type (chosen before the rest is read), duration and timing.
    static func transitionSchema(_ type: String, _ blank: Transition, _ inputs: [SchemaField<TitleSequence.TransitionStep>])
        -> (type: String, schema: Schema<TitleSequence.TransitionStep>) {
        (type, Schema(TitleSequence.TransitionStep(blank, duration: 1), [
            SchemaField("type", \.typeName, .choice([type], parse: { $0 }, name: { $0 }, what: "\"\(type)\""),
                        help: "dissolve, flash, swipe or ripple"),
        ] + inputs + [
            SchemaField("duration", \.duration, .number(Timeline.durationRange), help: "seconds"),
            SchemaField("timing", \.timing, timing, help: "the transition's easing"),
        ]))
    }

    /// Each transition type and its keys.
    public static let transitions: [(type: String, schema: Schema<TitleSequence.TransitionStep>)] = [
        transitionSchema("dissolve", .dissolve, []),
        transitionSchema("flash", .flash(Transition.Flash()), [
            SchemaField("center", \.flash.center, center, help: "where the flash starts; left out: the canvas's centre"),
            SchemaField("extent", \.flash.extent, extent, help: "the rectangle it covers; left out: the canvas"),
            SchemaField("color", \.flash.color, .color, help: "the flash's colour"),
            SchemaField("maxStriationRadius", \.flash.maxStriationRadius, .number(0...10), help: "CIFlashTransition's inputMaxStriationRadius"),
            SchemaField("striationStrength", \.flash.striationStrength, .number(0...3), help: "CIFlashTransition's inputStriationStrength"),
            SchemaField("striationContrast", \.flash.striationContrast, .number(0...5), help: "CIFlashTransition's inputStriationContrast"),
            SchemaField("fadeThreshold", \.flash.fadeThreshold, .number(0...1), help: "CIFlashTransition's inputFadeThreshold"),
        ]),
        transitionSchema("swipe", .swipe(Transition.Swipe()), [
            SchemaField("extent", \.swipe.extent, extent, help: "the rectangle it covers; left out: the canvas"),
            SchemaField("color", \.swipe.color, .color, help: "the swipe's colour"),
            SchemaField("angle", \.swipe.angle, .number(-2 * Double.pi...2 * Double.pi), help: "its direction in radians"),
            SchemaField("width", \.swipe.width, .number(0.1...800), help: "the swipe's width in pixels"),
            SchemaField("opacity", \.swipe.opacity, .number(0...1), help: "the swipe's opacity"),
        ]),
        transitionSchema("ripple", .ripple(Transition.Ripple()), [
            SchemaField("center", \.ripple.center, center, help: "where the ripple starts; left out: the canvas's centre"),
            SchemaField("extent", \.ripple.extent, extent, help: "the rectangle it covers; left out: the canvas"),
            SchemaField("width", \.ripple.width, .number(1...1000), help: "the ripple's width in pixels"),
            SchemaField("scale", \.ripple.scale, .number(-50...50), help: "the ripple's strength"),
        ]),
    ]

    /// Reads a transition object: its `type` picks the keys it takes.
    static func transition(_ node: JSONNode, _ name: String, _ reader: SceneAnimation.Reader) throws(MercurialError) -> TitleSequence.TransitionStep {
        try typed(node, name, reader, transitions, noun: "transition",
                  example: "{\"type\": \"dissolve\", \"duration\": seconds, …}")
    }

    /// Reads an object whose `type` (one of `schemas`' types) picks the keys it takes; `noun` names the kind in messages.
    static func typed<Root>(_ node: JSONNode, _ name: String, _ reader: SceneAnimation.Reader,
                            _ schemas: [(type: String, schema: Schema<Root>)], noun: String,
                            example: String) throws(MercurialError) -> Root {
        guard case .object(let members) = node.value else {
            throw reader.fail(node, "\"\(name)\" must be an object \(example), not \(node.value.typeName)")
        }
        let types = schemas.map(\.type)
        guard let typeMember = members.first(where: { $0.key == "type" }) else {
            throw reader.fail(node, "\"\(name)\" needs a \"type\": \(types.joined(separator: ", "))")
        }
        guard case .string(let type) = typeMember.value.value else {
            throw reader.fail(typeMember.value, "\"\(name).type\" must be a string: \(types.joined(separator: ", "))")
        }
        guard let schema = schemas.first(where: { $0.type == type })?.schema else {
            let hint = closestMatch(to: type, in: types).map { "did you mean \"\($0)\"? " } ?? ""
            throw reader.fail(typeMember.value, "unknown \(noun) type \"\(shortQuote(type))\"; \(hint)known types: \(types.joined(separator: ", "))")
        }
        var value = schema.defaultValue
        try schema.read(node, name, onto: &value, reader)
        return value
    }

    /// A transition as a sequence step's `transition` object, every input given.
    static func write(_ step: TitleSequence.TransitionStep) -> JSONValue {
        transitions.first { $0.type == step.typeName }.map { $0.schema.write(step) } ?? .null
    }

    // MARK: - in and out

    /// The keys every `in` or `out` takes: its type (chosen before the rest is read), duration, delay and timing.
    static func entranceSchema(_ kind: Entrance.Kind, _ inputs: [SchemaField<Entrance>])
        -> (type: String, schema: Schema<Entrance>) {
        (kind.rawValue, Schema(Entrance(kind), [
            SchemaField("type", \.typeName, .choice([kind.rawValue], parse: { $0 }, name: { $0 }, what: "\"\(kind.rawValue)\""),
                        help: "fade, slide, scale or reveal; out takes the same keys and plays them backwards at the end"),
            SchemaField("duration", \.duration, .time(Timeline.durationRange), help: "how long it takes (each letter's, for a reveal): seconds, frames (\"15f\") or timecode"),
            SchemaField("delay", \.delay, .time(0...3600), help: "how long after the start (in) or before the last frame (out): seconds, frames (\"15f\") or timecode"),
            SchemaField("timing", \.timing, timing, help: "the easing; out plays it backwards"),
        ] + inputs))
    }

    /// Each `in`/`out` preset and its keys.
    public static let entrances: [(type: String, schema: Schema<Entrance>)] = [
        entranceSchema(.fade, []),
        entranceSchema(.slide, [
            SchemaField("side", \.side, .choice(Entrance.Side.allCases.map(\.rawValue), parse: { Entrance.Side(rawValue: $0) },
                                               name: { $0.rawValue }, what: "\"left\", \"right\", \"top\" or \"bottom\""),
                        help: "the side it comes in from (in) or leaves to (out)"),
            SchemaField("distance", \.slideDistance, SchemaValue.number(0...100_000).optional(what: "a \"distance\""),
                        help: "how far it slides, in pixels; left out: far enough that it starts (in) or ends (out) wholly off the canvas, styles and all"),
        ]),
        entranceSchema(.scale, [
            SchemaField("factor", \.factor, .number(0...16), help: "its size at the start (in) or end (out), times its own"),
        ]),
        entranceSchema(.reveal, [
            SchemaField("style", \.style, .choice(Entrance.Style.allCases.map(\.rawValue), parse: { Entrance.Style(rawValue: $0) },
                                                 name: { $0.rawValue }, what: "\"fade\", \"rise\" or \"drop\""),
                        help: "each letter fades in, rises into place or drops into it"),
            SchemaField("stagger", \.stagger, .number(0...60), help: "seconds between one letter's start and the next's"),
            SchemaField("distance", \.distance, .number(0...100_000), help: "how far a letter rises or drops, in pixels"),
        ]),
    ]

    /// A scene's `in` or `out` block.
    public static let entrance = SchemaValue<Entrance>(
        SchemaDescription(kind: "object", range: nil, rangeDescription: "{\"type\": \(entrances.map { "\"\($0.type)\"" }.joined(separator: " | ")), …}",
                          children: { path in entrances.flatMap { type, schema in schema.rows(under: "\(path)(\(type)).") } }),
        read: { node, name, reader throws(MercurialError) in
            try typed(node, name, reader, entrances, noun: "in/out", example: "{\"type\": \"fade\", \"duration\": seconds, …}")
        },
        write: { e in entrances.first { $0.type == e.kind.rawValue }.map { $0.schema.write(e) } },
        leaf: { _ in nil })

    /// A scene's or a layer's `in` or `out`: one move, or a list of moves that run together
    /// (`[{"type": "slide", …}, {"type": "fade", …}]`), each with its own duration and delay.
    public static let moves = SchemaValue<[Entrance]>(
        SchemaDescription(kind: "object", range: nil,
                          rangeDescription: entrance.description.rangeDescription + " or a list of them, which run together",
                          children: entrance.description.children),
        read: { node, name, reader throws(MercurialError) in
            guard case .array(let items) = node.value else { return [try entrance.read(node, name, reader)] }
            guard (1...maximumMoves).contains(items.count) else {
                throw reader.fail(node, "\"\(name)\" has \(items.count) moves; give 1 to \(maximumMoves) (they run together)")
            }
            var moves: [Entrance] = []
            for (index, item) in items.enumerated() { moves.append(try entrance.read(item, "\(name)[\(index)]", reader)) }
            return moves
        },
        write: { moves in
            moves.isEmpty ? nil : moves.count == 1 ? entrance.write(moves[0])
                : .array(moves.compactMap { entrance.write($0).map { JSONNode(value: $0, location: .none) } })
        },
        leaf: { _ in nil })

    /// The most moves one `in` or `out` may list.
    public static let maximumMoves = 8

    // MARK: - layers

    /// A layer's own keys; the rest of a layer are a scene's keys (a `material` first), read over the scene's top level.
    public static let layer = Schema(TitleLayer(settings: RenderSettings()), [
        SchemaField("name", \.name, SchemaValue.string.optional(what: "a \"name\""), help: "the layer's name, which another layer's below names"),
        SchemaField("below", \.below, SchemaValue.string.optional(what: "a \"below\""),
                    help: "the name of the layer this one sits under; left out: placed on its own, by its anchor"),
        SchemaField("gap", \.gap, .number(-10_000...10_000), help: "pixels between the ink of the layer above and this one's"),
        SchemaField("in", \.entrances, moves, help: "how this layer comes in, after the scene's start (with the scene's own in, if any): a move or a list of moves that run together"),
        SchemaField("out", \.exits, moves, help: "how this layer goes out, before the scene's last frame: a move or a list of moves that run together"),
    ])

    // MARK: - fallback fonts

    /// One of a recipe's `fallbackFonts`.
    public static let fallbackFont = Schema(FallbackFont(name: "", file: "", index: 0, sha256: ""), [
        SchemaField("name", \.name, .string, help: "the face's name"),
        SchemaField("file", \.file, .string, help: "the font file"),
        SchemaField("index", \.index, .integer(0...65535), help: "the face's index in a collection (.ttc)"),
        SchemaField("sha256", \.sha256, .string, help: "the SHA-256 of the file the title was made with"),
    ], finish: { font, node, _, name, reader throws(MercurialError) in
        guard !font.file.isEmpty else { throw reader.fail(node, "\"\(name)\" has no \"file\"; give the font file's path") }
    })
}

extension Entrance {
    /// The type's name as a file gives it (chosen before the keys are read: see `SceneSchema.typed`).
    var typeName: String {
        get { kind.rawValue }
        set {}
    }
}

extension TitleSequence.TransitionStep {
    /// The type's name as a file gives it.
    var typeName: String {
        get {
            switch transition {
            case .dissolve: return "dissolve"
            case .flash: return "flash"
            case .swipe: return "swipe"
            case .ripple: return "ripple"
            }
        }
        set {}   // the type is chosen before the keys are read (see `SceneSchema.transition`)
    }

    /// The inputs of each type: those of the transition when it is of that type, else the defaults.
    var flash: Transition.Flash {
        get { if case .flash(let f) = transition { return f } else { return Transition.Flash() } }
        set { transition = .flash(newValue) }
    }
    var swipe: Transition.Swipe {
        get { if case .swipe(let s) = transition { return s } else { return Transition.Swipe() } }
        set { transition = .swipe(newValue) }
    }
    var ripple: Transition.Ripple {
        get { if case .ripple(let r) = transition { return r } else { return Transition.Ripple() } }
        set { transition = .ripple(newValue) }
    }
}
