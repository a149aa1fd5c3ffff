import MercurialKit

/// `GET /api/state`: the parameter table with the values the controls show (the members of
/// `mercurial params --json`: `parameters`, `nested`), and `editor`: the session's state and
/// what the menus offer.
struct EditorState: Encodable, Sendable {
    /// The table as `mercurial params --json` writes it; its members are the reply's own.
    var table: JSONValue
    var editor: Info

    struct Info: Encodable, Sendable {
        var revision: Int
        var material: String
        /// The keys the scene file sets (the page marks their controls).
        var overridden: [String]
        /// The scene's keys no layer takes, with their warnings.
        var unused: [Unused]
        var timeline: TimelineInfo
        var materials: [String]
        var fonts: [String]
        var families: [String]
        /// The variation axes of the font the page edits (a slider for each); empty for a static one.
        var fontAxes: [FontDescription.Axis]
        var scene: String
        /// Why the file on disk and the unsaved edits differ, if it changed meanwhile.
        var conflict: OrNull<String>
        /// Whether there are edits since the scene was last read or saved.
        var unsaved: Bool
        var error: OrNull<String>
        /// The nested blocks' values (the point lights the page draws on the preview), as the scene file writes them.
        var blocks: JSONValue
        /// The scene file as the editor holds it.
        var document: JSONValue
        /// The scene's text as inline markup when it is styled runs (null: plain text, or runs markup
        /// cannot write, `textRunsFixed`, which the page does not let the text box change).
        var textRuns: OrNull<String>
        var textRunsFixed: Bool
        /// The layer whose values these are (`?layer=N`); null: the scene's.
        var layer: OrNull<Int>
        var layers: [Layer]
        /// The keys only the scene gives (the animation, in and out…): a layer's edits of them go to the scene.
        var sceneWide: [String]
    }

    /// A layer as the page lists it and selects it by a click on its ink.
    struct Layer: Encodable, Sendable {
        var name: String
        var text: String
        /// [x, y, width, height] on the canvas; null when the scene cannot be placed.
        var box: [Int]?
    }

    struct Unused: Encodable, Sendable {
        var key: String
        var message: String
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONValue.MemberKey.self)
        if case .object(let members) = table {
            for member in members where member.key != "editor" {
                try container.encode(member.value.value, forKey: JSONValue.MemberKey(member.key))
            }
        }
        try container.encode(editor, forKey: JSONValue.MemberKey("editor"))
    }
}

/// The animation as the page's timeline shows it (`{}` without one): length, rate, the playhead,
/// each track's keyframe times and its value at the playhead; for a sequence, its spans.
struct TimelineInfo: Encodable, Sendable {
    var duration: Double? = nil
    var fps: Double? = nil
    var frames: Int? = nil
    var loop: Bool? = nil
    var playhead: OrNull<Int>? = nil
    var tracks: [String: [Double]]? = nil
    /// Each track's value at the playhead, as JSON text (the controls of a layer's keys show it there).
    var at: [String: String]? = nil
    var sequence: [Span]? = nil

    /// A title's hold, or a transition, from `start` to `end` seconds.
    struct Span: Encodable, Sendable {
        var kind: String
        var label: String
        var start: Double
        var end: Double
    }
}
