import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Why a title could not be made: `message` names the culprit and the fix, and `kind`
/// says whose it is, so that each front end answers from the kind, never from the text:
/// the command line prints `error: <message>` on one line and exits with the kind's
/// status; the editor's server answers with the kind's HTTP status.
public struct MercurialError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// The user's input: a value, key, file or path to fix.
        case input
        /// Over one of the documented limits (pixels, memory, rows, a budget): the same
        /// input, made smaller, goes through.
        case limit
        /// The system: no space left, a write that failed, a tool that is missing or failed.
        /// The same input may go through on another run or machine.
        case resource
        /// A fault of this program.
        case `internal`

        /// The command line's exit status: 1, 3, 4 and 70 (sysexits' EX_SOFTWARE); 64
        /// (EX_USAGE) is a command line that does not parse.
        public var exitStatus: Int32 {
            switch self {
            case .input: 1
            case .limit: 3
            case .resource: 4
            case .internal: 70
            }
        }

        /// The HTTP status of a refused request: 422 for what the request asked for (too
        /// much of it included), 503 for the machine, 500 for a fault.
        public var httpStatus: Int {
            switch self {
            case .input, .limit: 422
            case .resource: 503
            case .internal: 500
            }
        }
    }

    public var kind: Kind
    public var message: String
    public init(_ message: String, kind: Kind = .input) {
        self.message = message
        self.kind = kind
    }
    /// An error from the system call that failed with `code`: the machine's (no space, an
    /// I/O error, no descriptors or memory left) or else the path the user gave.
    public init(_ message: String, errno code: Int32) {
        let machine: Set<Int32> = [ENOSPC, EDQUOT, EIO, EMFILE, ENFILE, ENOMEM, EFBIG, EPIPE, EAGAIN, EBUSY, ETXTBSY]
        self.init(message, kind: machine.contains(code) ? .resource : .input)
    }

    /// Over a documented limit.
    public static func limit(_ message: String) -> MercurialError { MercurialError(message, kind: .limit) }
    /// The system's doing: no space, a failed write, a missing or failing tool.
    public static func resource(_ message: String) -> MercurialError { MercurialError(message, kind: .resource) }
    /// A fault of this program.
    public static func `internal`(_ message: String) -> MercurialError { MercurialError(message, kind: .internal) }

    /// The same error, its message led by `context` (`layer 2: …`, `scene.json:3:5: …`).
    public func within(_ context: String) -> MercurialError {
        MercurialError(context + ": " + message, kind: kind)
    }

    /// The same error without the place `.none` (0:0) after `file`: a value held in memory,
    /// set since the file was read, has no line in it (`scene.json:0:0: …` → `scene.json: …`).
    public func withoutPlace(in file: String) -> MercurialError {
        MercurialError(message.replacing("\(file):\(SourcePosition.none): ", with: "\(file): "), kind: kind)
    }

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
        let code = character.unicodeScalars.first.map { String(cFormat: "%04X", $0.value) } ?? "?"
        return "'\(String(character).escapedForTerminal)' (U+\(code))"
    }
    public var description: String { message }
}
