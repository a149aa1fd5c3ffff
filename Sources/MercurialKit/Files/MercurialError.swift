import Foundation

/// An error caused by the user's input: a bad value, file or path.
///
/// `message` names the culprit and the fix; the command line prints it as
/// `error: <message>` on one line and exits with status 1.
public struct MercurialError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Something worth telling the user that does not stop the render
/// (printed as `warning: <message>`).
public struct MercurialWarning: Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// A font without glyphs for some characters: its file name and those characters
    /// (batch gathers them over its rows).
    public var missingGlyphs: MissingGlyphs?
    public init(_ message: String) { self.message = message }

    public struct MissingGlyphs: Sendable, Equatable {
        public var font: String
        public var characters: [Character]
    }

    /// The message for `font`'s lack of `characters`, which are left blank.
    public static func missing(_ characters: [Character], font: String) -> MercurialWarning {
        var warning = MercurialWarning("font '\(font)' has no glyph for \(characters.map(describe).joined(separator: ", ")); they are left blank")
        warning.missingGlyphs = MissingGlyphs(font: font, characters: characters)
        return warning
    }

    /// `'é' (U+00E9)`.
    public static func describe(_ character: Character) -> String {
        let code = character.unicodeScalars.first.map { String(format: "%04X", $0.value) } ?? "?"
        return "'\(String(character).escapedForTerminal)' (U+\(code))"
    }
    public var description: String { message }
}
