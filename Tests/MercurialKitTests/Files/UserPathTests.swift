import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

@Suite struct UserPathTests {
    @Test(arguments: [
        ("a", ".", "a"), ("é", ".", "é"), ("/a", "/", "a"), ("a/", ".", "a"), ("a/b", "a", "b"),
        ("a/b/", "a", "b"), ("a//b", "a", "b"), ("/", "/", "/"), ("//", "/", "/"), ("./a", ".", "a"),
        ("../a", "..", "a"), ("/x/y/z.png", "/x/y", "z.png"), ("-", ".", "-"),
    ])
    func directoryAndLastComponent(_ path: String, _ directory: String, _ last: String) throws {
        let p = try UserPath(path, role: "test")
        #expect(p.directory == directory, "directory of \(path)")
        #expect(p.lastComponent == last, "last component of \(path)")
    }

    @Test func pathsInAFileAreRelativeToItsFolder() {
        #expect(UserPath(checked: "m.png").relative(to: "t").string == "m.png")
        #expect(UserPath(checked: "m.png").relative(to: "s/t").string == "s/m.png")
        #expect(UserPath(checked: "m.png").relative(to: "/t").string == "/m.png")
        #expect(UserPath(checked: "/abs.png").relative(to: "s/t").string == "/abs.png")
        #expect(UserPath(checked: "../m").relative(to: "a/b/s.json").string == "a/b/../m")
    }

    @Test func absolutePathsAreSpelledOneWay() {
        #expect(UserPath(checked: "/a/./b//c/../d").absolute == "/a/b/d")
        #expect(UserPath(checked: "/..").absolute == "/")
        #expect(UserPath(checked: "x").absolute == FileManager.default.currentDirectoryPath + "/x")
    }

    @Test func emptyAndNULPathsAreRefused() {
        #expect(throws: MercurialError.self) { try UserPath("", role: "mask") }
        let error = #expect(throws: MercurialError.self) { try UserPath("disc.png\u{0}.evil", role: "mask") }
        #expect(error?.message.contains(#"'disc.png\u{0}.evil' contains a NUL byte"#) == true)
    }

    @Test func pathGuessing() {
        for path in ["a/b", "x.ttf", "X.OTF", "m.json", "./gold", ".hidden", "logo.png"] {
            #expect(UserPath.looksLikePath(path), "\(path)")
        }
        for name in ["gold", "rounded", "DejaVu Sans:bold"] {
            #expect(!UserPath.looksLikePath(name), "\(name)")
        }
    }

    @Test func controlCharactersAreEscaped() {
        #expect("plain é ✈".escapedForTerminal == "plain é ✈")
        #expect("\u{1B}]0;PWNED\u{7}".escapedForTerminal == #"\u{1B}]0;PWNED\u{7}"#)
        #expect("a\rb\nc\td".escapedForTerminal == #"a\rb\nc\td"#)
        #expect("\u{9B}\u{7F}\u{202E}\u{2028}".escapedForTerminal == #"\u{9B}\u{7F}\u{202E}\u{2028}"#)
    }

    @Test func symlinkChainsAreFollowed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("userpath-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(symlink("b", dir.appendingPathComponent("a").path) == 0)
        #expect(symlink("sub/../c", dir.appendingPathComponent("b").path) == 0)
        #expect(symlink("l2", dir.appendingPathComponent("l1").path) == 0)
        #expect(symlink("l1", dir.appendingPathComponent("l2").path) == 0)
        let a = UserPath(checked: dir.path + "/a")
        #expect(a.symlinkChain() == [dir.path + "/a", dir.path + "/b", dir.path + "/sub/../c"])
        #expect(a.followingLinks()?.string == dir.path + "/sub/../c")
        #expect(UserPath(checked: dir.path + "/l1").followingLinks() == nil, "a loop")
    }
}
