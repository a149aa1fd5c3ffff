/// The tool's version: the one place it is written. `mercurial --version` prints it
/// and the Makefile reads it from this file (the line with `string = "…"`).
public enum MercurialVersion {
    public static let string = "0.3.0"
}
