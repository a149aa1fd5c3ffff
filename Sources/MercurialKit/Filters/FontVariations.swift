import CFreeType
import CHarfBuzz
import FoundationEssentials

/// A variable font's axis set to a design value: `wght` 650, `slnt` −8.
public struct FontVariation: Sendable, Equatable {
    /// The axis's OpenType tag: one to four printable ASCII characters.
    public var tag: String
    public var value: Double

    public init(tag: String, value: Double) {
        self.tag = tag
        self.value = value
    }

    /// The design values an axis can be given in a scene; the font's own range is checked at render.
    public static let range: ClosedRange<Double> = -32768...32767

    public static func isTag(_ tag: String) -> Bool {
        (1...4).contains(tag.utf8.count) && tag.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

}

extension [FontVariation] {
    /// Sets axis `tag` to `value`: the last entry for it, or a new one at the end.
    mutating func set(_ tag: String, to value: Double) {
        if let i = lastIndex(where: { $0.tag == tag }) { self[i].value = value } else { append(FontVariation(tag: tag, value: value)) }
    }
}

/// One axis of a variable font, in design units.
struct FontAxis: Equatable {
    var tag: String
    var minimum: Double, defaultValue: Double, maximum: Double

    var description: String { "\(tag) \(formatNumber(minimum))…\(formatNumber(maximum))" }
}

/// OpenType features in HarfBuzz's syntax: `smcp`, `-liga`, `+kern`, `ss01=2`, `aalt[3:5]=2`.
enum FontFeatures {
    /// The most features a title may ask for.
    static let maximumCount = 64

    /// `text` as HarfBuzz reads it, or nil when it is no feature.
    static func parse(_ text: String) -> hb_feature_t? {
        guard !text.isEmpty, text.utf8.count <= 64, text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        var feature = hb_feature_t()
        return hb_feature_from_string(text, -1, &feature) != 0 ? feature : nil
    }

    /// A tag as OpenType stores it (`GSUB`, `wght`): four bytes, padded with spaces.
    static func tag(_ text: String) -> hb_tag_t {
        (text + "    ").utf8.prefix(4).reduce(0) { $0 << 8 | hb_tag_t($1) }
    }

    static func tagText(_ tag: hb_tag_t) -> String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: tag >> $0) }, as: UTF8.self)
            .trimmingWhitespace()
    }
}

extension FontFace {
    /// The face's variation axes (none for a static font).
    var axes: [FontAxis] {
        guard let face = openFace, face.pointee.face_flags & FT_Long(FT_FACE_FLAG_MULTIPLE_MASTERS) != 0 else { return [] }
        var master: UnsafeMutablePointer<FT_MM_Var>?
        guard FT_Get_MM_Var(face, &master) == 0, let master else { return [] }
        defer { FT_Done_MM_Var(openLibrary, master) }
        return (0..<Int(master.pointee.num_axis)).map { i in
            let axis = master.pointee.axis[i]
            return FontAxis(tag: FontFeatures.tagText(hb_tag_t(axis.tag)), minimum: Double(axis.minimum) / 65536,
                            defaultValue: Double(axis.def) / 65536, maximum: Double(axis.maximum) / 65536)
        }
    }

    /// Sets the face's axes: those `variations` names to their values, the rest to their defaults.
    /// For the chosen font (`strict`), an axis it lacks or a value outside its range is an error;
    /// a fallback face takes the axes it has and ignores the rest.
    func vary(_ variations: [FontVariation], strict: Bool) throws(MercurialError) {
        guard !variations.isEmpty, let face = openFace else { return }
        let axes = self.axes
        if strict {
            let file = PathText.lastComponent(path)
            guard !axes.isEmpty else {
                throw MercurialError("font '\(file)' is not a variable font, so \"variations\" cannot change it; use a variable font such as Inter (fonts-inter-variable) or leave out \"variations\"")
            }
            for variation in variations {
                guard let axis = axes.first(where: { $0.tag == variation.tag }) else {
                    throw MercurialError("font '\(file)' has no variation axis '\(variation.tag)'\(closestMatch(to: variation.tag, in: axes.map(\.tag)).map { " (did you mean '\($0)'?)" } ?? ""); its axes are \(axes.map(\.description).joined(separator: ", "))")
                }
                guard (axis.minimum...axis.maximum).contains(variation.value) else {
                    throw MercurialError("variations.\(variation.tag) is \(formatNumber(variation.value)), outside the range \(formatNumber(axis.minimum))…\(formatNumber(axis.maximum)) of font '\(file)'; give a value in it")
                }
            }
        }
        guard !axes.isEmpty else { return }
        var coordinates = axes.map { axis -> FT_Fixed in
            let value = variations.last(where: { $0.tag == axis.tag })?.value ?? axis.defaultValue
            return FT_Fixed((min(max(value, axis.minimum), axis.maximum) * 65536).rounded())
        }
        let error = FT_Set_Var_Design_Coordinates(face, FT_UInt(coordinates.count), &coordinates)
        guard error == 0 else {
            throw MercurialError("font '\(path)' refused its variations (\(Self.describe(error))); use another font or leave out \"variations\"")
        }
    }

    /// The OpenType features the face's GSUB and GPOS tables offer.
    var featureTags: Set<String> {
        guard let face = openFace, let hbFace = hb_ft_face_create_referenced(face) else { return [] }
        defer { hb_face_destroy(hbFace) }
        var tags: Set<String> = []
        for table in ["GSUB", "GPOS"] {
            let tableTag = FontFeatures.tag(table)
            var count: UInt32 = 256
            var found = [hb_tag_t](repeating: 0, count: 256)
            _ = hb_ot_layout_table_get_feature_tags(hbFace, tableTag, 0, &count, &found)
            for tag in found.prefix(Int(count)) { tags.insert(FontFeatures.tagText(tag)) }
        }
        return tags
    }
}

/// What a font offers a title: its name, variation axes, OpenType features, and whether it
/// is a colour bitmap face (`mercurial fonts FONT`).
public struct FontDescription: Sendable, Equatable {
    public var name: String
    public var file: String
    /// One variation axis: its tag and design range.
    public struct Axis: Sendable, Equatable, Encodable {
        public var tag: String
        public var minimum: Double, defaultValue: Double, maximum: Double
        /// `wght 100…900 (default 400)`.
        public var text: String { "\(tag) \(formatNumber(minimum))…\(formatNumber(maximum)) (default \(formatNumber(defaultValue)))" }
    }
    /// The axes; empty for a static font.
    public var axes: [Axis]
    /// The tags GSUB and GPOS list, sorted.
    public var features: [String]
    public var colorBitmaps: Bool

    /// The font `font` names (a bundled name, a file or a fontconfig name), described.
    public static func of(_ font: String) throws(MercurialError) -> FontDescription {
        let path = try FontLibrary.resolve(font)
        let face = try FontFace(path: path)
        return FontDescription(name: face.name, file: path, axes: axes(of: face),
                               features: face.featureTags.sorted(), colorBitmaps: face.isColorBitmap)
    }

    /// Only the axes of the font `font` names (what the editor's sliders need, on every state it sends).
    public static func axes(of font: String) throws(MercurialError) -> [Axis] {
        axes(of: try FontFace(path: try FontLibrary.resolve(font)))
    }

    private static func axes(of face: FontFace) -> [Axis] {
        face.axes.map { Axis(tag: $0.tag, minimum: $0.minimum, defaultValue: $0.defaultValue, maximum: $0.maximum) }
    }
}
