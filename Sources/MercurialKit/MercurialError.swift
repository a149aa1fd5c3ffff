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
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
