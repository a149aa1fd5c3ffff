import Foundation
import Testing
@testable import MercurialKit

/// The library links FoundationEssentials only; what it took from Foundation before is
/// in EssentialText.swift, and here it is held to Foundation's own answers (the tests
/// link Foundation).
@Suite struct EssentialTextTests {
    static let texts = ["", " ", "\t", "  a b  ", "\ta\t", "\u{00A0}x\u{2003}", "\u{3000}東京\u{3000}", " \n x \n ",
                        "\r\n y \u{85}", "\u{2028}z\u{2029}", "é\u{301} ", "no-space", " \u{200B}x", "\u{0B}v\u{0C}"]

    @Test(arguments: texts) func trimmingWhitespaceIsFoundations(_ text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(Substring(text).trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
    }

    @Test(arguments: texts) func trimmingWhitespaceAndNewlinesIsFoundations(_ text: String) {
        #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(arguments: [ "a/b", "/a/b.png", "/a/b/", "a//b", "./x.tar.gz", ".hidden", "dir/.hidden",
                      "f-%04d.png", "/usr/bin/mercurial", "/mercurial", "x.", "a.b/c"])
    func pathPartsAreNSStrings(_ path: String) {
        let ns = path as NSString
        #expect(PathText.lastComponent(path) == ns.lastPathComponent)
        #expect(PathText.pathExtension(path) == ns.pathExtension)
        #expect(PathText.deletingLastComponent(path) == ns.deletingLastPathComponent)
    }

    /// The root, a bare name and the empty path, which swift-corelibs' NSString gets wrong
    /// ("//" has no last component there, and taking a bare name's off traps).
    @Test func theRootABareNameAndNothing() {
        #expect(PathText.lastComponent("") == "" && PathText.deletingLastComponent("") == "")
        for bare in ["a", "a/"] {
            #expect(PathText.lastComponent(bare) == "a" && PathText.deletingLastComponent(bare) == "")
        }
        for root in ["/", "//"] {
            #expect(PathText.lastComponent(root) == "/" && PathText.deletingLastComponent(root) == "/")
            #expect(PathText.pathExtension(root) == "")
        }
    }

    @Test func cFormatIsPrintfs() {
        #expect(String(cFormat: "%.1f", 2.25) == String(format: "%.1f", 2.25))
        #expect(String(cFormat: "%g", 0.000125) == "0.000125")
        #expect(String(cFormat: "%g", 1e21) == "1e+21")
        #expect(String(cFormat: "%04X", UInt32(0xE9)) == "00E9")
        #expect(String(cFormat: "%02d:%02d:%02d", Int32(7), Int32(5), Int32(59)) == "07:05:59")
        #expect(String(cFormat: "%.2f s (%.1f titles/s)", 1.005, 199.96) == "1.00 s (200.0 titles/s)")
        // Longer than the first buffer.
        let long = String(cFormat: "%0300d", 42)
        #expect(long.count == 300 && long.hasSuffix("42") && long.hasPrefix("000"))
    }
}
