import Foundation
import Testing
import MercurialKit
@testable import mercurial
import MercurialTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Where `mercurial edit` finds its server: beside itself, else in the other
/// configuration's folder of a SwiftPM build (the README's quick start builds only one
/// of the two programs, or the other configuration), else an error with the exact
/// command that builds it.
@Suite struct EditServerLookupTests {
    static let triple = ".build/x86_64-unknown-linux-gnu"

    /// Makes `relative` under `root` an executable file (a shell script that writes its
    /// arguments to `ran.txt` in the folder it runs in).
    static func makeServer(_ relative: String, under root: URL, executable: Bool = true) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("#!/bin/sh\necho \"$0 $*\" >ran.txt\n".utf8).write(to: url)
        chmod(url.path, executable ? 0o755 : 0o644)
    }

    @Test func besideTheBinaryThenTheOtherConfiguration() async throws {
        try await CLI.withTemporaryDirectory { root in
            let release = root.appendingPathComponent("\(Self.triple)/release").path
            let debug = root.appendingPathComponent("\(Self.triple)/debug").path
            try FileManager.default.createDirectory(atPath: release, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: debug, withIntermediateDirectories: true)

            // Only the debug one (a plain `swift build`): the release binary runs it, and
            // a file that is not executable does not count.
            try Self.makeServer("\(Self.triple)/release/mercurial-edit-server", under: root, executable: false)
            try Self.makeServer("\(Self.triple)/debug/mercurial-edit-server", under: root)
            #expect(try Edit.server(besideBinaryIn: release) == debug + "/mercurial-edit-server")
            #expect(try Edit.server(besideBinaryIn: debug) == debug + "/mercurial-edit-server")

            // Both: each binary runs its own configuration's.
            try Self.makeServer("\(Self.triple)/release/mercurial-edit-server", under: root)
            #expect(try Edit.server(besideBinaryIn: release) == release + "/mercurial-edit-server")
            #expect(try Edit.server(besideBinaryIn: debug) == debug + "/mercurial-edit-server")

            // Only the release one: the debug binary runs it.
            try FileManager.default.removeItem(atPath: debug + "/mercurial-edit-server")
            #expect(try Edit.server(besideBinaryIn: debug) == release + "/mercurial-edit-server")
        }
    }

    @Test func noServerSaysTheCommandThatBuildsIt() async throws {
        try await CLI.withTemporaryDirectory { root in
            let release = root.appendingPathComponent("\(Self.triple)/release").path
            try FileManager.default.createDirectory(atPath: release, withIntermediateDirectories: true)
            let error = #expect(throws: MercurialError.self) { try Edit.server(besideBinaryIn: release) }
            let message = error?.message ?? ""
            #expect(message.contains("build it with 'swift build -c release --product mercurial-edit-server' in '\(root.path)'"), "\(message)")
            #expect(message.contains("'\(release)' nor '\(root.path)/\(Self.triple)/debug'"), "\(message)")

            // Installed (no build configuration): only beside it, and install again.
            let bin = root.appendingPathComponent("usr/bin").path
            try Self.makeServer("usr/debug/mercurial-edit-server", under: root)
            let installed = #expect(throws: MercurialError.self) { try Edit.server(besideBinaryIn: bin) }
            #expect(installed?.message == "the editor's server '\(bin)/mercurial-edit-server' is missing; install mercurial again (make install, or its .deb)")
        }
    }

    /// The built binary, copied into a release folder with the server only in the
    /// debug folder beside it, starts that server (found from /proc/self/exe); with no
    /// server at all it fails with the one-line error and builds nothing.
    @Test func editRunsTheOtherConfigurationsServer() async throws {
        try await CLI.withTemporaryDirectory { root in
            let release = root.appendingPathComponent("\(Self.triple)/release")
            try FileManager.default.createDirectory(at: release, withIntermediateDirectories: true)
            let copy = release.appendingPathComponent("mercurial")
            // Copied by cp, in a process of its own: a copy written by this process (tens of MB)
            // could have its open file inherited by a process another test starts meanwhile,
            // and running the copy then failed with "Text file busy" (ETXTBSY).
            let copied = try await CLI.shell("cp \"$M\" '\(copy.path)'", in: root)
            try #require(copied.status == 0, "\(copied)")

            let missing = try await CLI.run(["edit", "scene.json", "--port", "0"], in: root, executable: copy)
            #expect(missing.status != 0)
            #expect(missing.stderr.hasPrefix("error: the editor's server mercurial-edit-server is not built")
                    && missing.stderr.contains("'swift build -c release --product mercurial-edit-server' in '\(root.path)'")
                    && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")

            try Self.makeServer("\(Self.triple)/debug/mercurial-edit-server", under: root)
            let started = try await CLI.run(["edit", "scene.json", "--port", "0"], in: root, executable: copy)
            #expect(started.status == 0, "\(started)")
            let ran = try String(contentsOf: root.appendingPathComponent("ran.txt"), encoding: .utf8)
            #expect(ran == "\(root.path)/\(Self.triple)/debug/mercurial-edit-server scene.json 0 0\n")
        }
    }
}
