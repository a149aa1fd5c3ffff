import Foundation
import Testing
@testable import MercurialKit
#if canImport(Glibc)
import Glibc
import MercurialTestSupport
#endif

/// `make install` into a temporary DESTDIR, the installed binary run from another
/// folder, then `make uninstall`.
///
/// The release build `make install` does by default would take minutes here, so the
/// test installs the debug binary the other end-to-end tests use (`BIN=`); the
/// completions and the man page are generated from it exactly as from a release
/// binary. The man page needs ArgumentParser's `generate-manual` tool, which make
/// builds in the debug configuration of the tests' own build folder, where its
/// ArgumentParser is already compiled (about 10 to 30 s, once; `--ignore-lock`,
/// since `swift test` can hold that folder's lock while the tests run).
@Suite("make install") struct InstallTests {
    @Test func installsIntoADestdirRunsFromAnotherFolderAndUninstallsExactly() async throws {
        let make = try Tool.find("make", hint: "install it (scripts/install-deps.sh does)")
        let swift = try Tool.find("swift", hint: "put the Swift toolchain on PATH")
        let binary = try CLI.binary()
        // The tests' build folder: <scratch>/<triple>/debug holds the test bundle.
        let scratch = CLI.productsDirectory().resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent()

        try await CLI.withTemporaryDirectory { tmp in
            let destdir = tmp.appendingPathComponent("dest")
            let prefix = "/usr"
            let root = destdir.appendingPathComponent("usr")
            let elsewhere = tmp.appendingPathComponent("elsewhere")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            // A file that was there before: uninstall must leave it (and its folders).
            let foreign = root.appendingPathComponent("share/man/man1/other-tool.1")
            try FileManager.default.createDirectory(at: foreign.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data("other tool\n".utf8).write(to: foreign)

            let makeArguments = [
                "-C", CLI.packageRoot.path,
                "BIN=\(binary.path)", "CONFIGURATION=debug", "SWIFT=\(swift)",
                // `swift test` may hold the build folder's lock while the tests run; the
                // tool's build touches nothing the tests use.
                "SWIFT_BUILD_FLAGS=--scratch-path \(scratch.path) --ignore-lock",
                "STAGE=\(tmp.appendingPathComponent("stage").path)",
                "DESTDIR=\(destdir.path)", "PREFIX=\(prefix)",
            ]
            // Niced, so that compiling the manual generator does not slow the tests that time
            // the binary alongside. Not SCHED_IDLE: that got no CPU at all while the other tests
            // kept both cores busy, and timed out on a loaded machine (seen with two busy loops).
            // It waits for the rest of the suite at worst, hence the long deadline.
            let install = try await Tool.run("/usr/bin/nice", ["-n", "19", make, "install"] + makeArguments,
                                             in: tmp, timeout: .seconds(480))
            try #require(install.status == 0 && !install.timedOut, "make install failed: \(install)")

            // What install wrote, and nothing missing or empty.
            let installed = root.appendingPathComponent("bin/mercurial")
            #expect(FileManager.default.isExecutableFile(atPath: installed.path))
            // The live editor's server, which `mercurial edit` runs from its own folder.
            #expect(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("bin/mercurial-edit-server").path))
            // And the card server, which `mercurial serve` runs.
            #expect(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("bin/mercurial-serve-server").path))
            let expectedFiles = [
                "share/bash-completion/completions/mercurial",
                "share/zsh/site-functions/_mercurial",
                "share/fish/vendor_completions.d/mercurial.fish",
                "share/man/man1/mercurial.1",
                "share/mercurial/fonts/fonts.json",
                "share/mercurial/materials/mercurial.json",
                "share/mercurial/materials/README.md",
                "share/mercurial/install-manifest.txt",
            ]
            for file in expectedFiles {
                let text = (try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)) ?? ""
                #expect(!text.isEmpty, "\(file) is missing or empty")
            }
            for font in try FontLibrary.bundled() {
                #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("share/mercurial/fonts/\(font.file)").path),
                        "bundled font \(font.file) was not installed")
            }
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("share/mercurial/materials/previews").path),
                    "the material previews are not meant to be installed")
            let bash = try String(contentsOf: root.appendingPathComponent("share/bash-completion/completions/mercurial"), encoding: .utf8)
            #expect(bash.contains("complete ") && bash.contains("mercurial"))
            let zsh = try String(contentsOf: root.appendingPathComponent("share/zsh/site-functions/_mercurial"), encoding: .utf8)
            #expect(zsh.hasPrefix("#compdef mercurial"))
            let fish = try String(contentsOf: root.appendingPathComponent("share/fish/vendor_completions.d/mercurial.fish"), encoding: .utf8)
            #expect(fish.contains("complete -c 'mercurial'"))

            // The man page: ArgumentParser's, every subcommand in it, and the help's
            // non-ASCII characters spelled in ASCII rather than dropped.
            let manual = try String(contentsOf: root.appendingPathComponent("share/man/man1/mercurial.1"), encoding: .utf8)
            let generated = manual.contains("Generated by swift-argument-parser") && manual.contains(".Dt MERCURIAL 1")
            #expect(generated, "the man page is not ArgumentParser's: \(manual.prefix(200))")
            let blankLine = manual.contains("\n\n")
            #expect(!blankLine, "the man page has a blank line, which mdoc warns about")
            let nonASCII = manual.unicodeScalars.filter { !$0.isASCII }
            #expect(nonASCII.isEmpty, "the man page has non-ASCII characters: \(String(String.UnicodeScalarView(nonASCII)))")
            let dump = try await Tool.run(installed.path, ["--experimental-dump-help"], in: elsewhere)
            let help = try Self.helpStrings(dump.stdout)
            for subcommand in help.subcommands {
                let listed = manual.contains(".It Em \(subcommand)")
                #expect(listed, "the man page lacks the subcommand \(subcommand)")
            }
            // Help lines with non-ASCII characters (all of them spelled below), as the
            // man page should have them; quotes and backslashes are escaped there.
            let ascii: [(String, String)] = [("…", "..."), ("×", "x"), ("–", "-"), ("—", "--"), ("→", "->")]
            let spelled = help.abstracts
                .filter { line in
                    !line.unicodeScalars.allSatisfy(\.isASCII) && !line.contains("\\") && !line.contains("\"")
                        && line.allSatisfy { character in character.isASCII || ascii.contains { $0.0 == String(character) } }
                }
                .map { line in ascii.reduce(line) { $0.replacingOccurrences(of: $1.0, with: $1.1) } }
            if help.abstracts.contains(where: { !$0.unicodeScalars.allSatisfy(\.isASCII) }) {
                #expect(!spelled.isEmpty, "no help line with only known non-ASCII characters to check the man page against")
            }
            for line in spelled {
                let kept = manual.contains(line)
                #expect(kept, "the man page lost '\(line)'")
            }
            // A help line that begins with '.' or "'" is text, not a request that troff
            // would drop (every macro of the generator is a capital after the dot).
            let requests = manual.split(separator: "\n").filter { line in
                line.hasPrefix("'") || line.hasPrefix(".") && !line.hasPrefix(".\\\"")
                    && !(line.dropFirst().first.map { $0.isASCII && $0.isUppercase } ?? false)
            }
            #expect(requests.isEmpty, "help lines taken as troff requests: \(requests)")
            #expect(manual.contains("\\&.png is an APNG"), "watch's help line about .png is lost")
            for section in [".Sh \"SCENE FILE\"", ".Sh ENVIRONMENT", ".It Ev MERCURIAL_DATA", ".Sh FILES"] {
                #expect(manual.contains(section), "the man page lacks \(section)")
            }
            // man shows it without a warning ("macro 'png' not defined", "Empty input line").
            let shown = try await Tool.run(try Tool.find("man", hint: "apt-get install man-db"),
                                           ["-l", root.appendingPathComponent("share/man/man1/mercurial.1").path],
                                           in: elsewhere, environment: ["MANPAGER": "cat", "MANWIDTH": "80"])
            #expect(shown.status == 0 && shown.stderr.isEmpty && shown.stdout.contains("MERCURIAL_DATA"), "\(shown)")

            // The installed binary, started from another folder, with nothing pointing
            // it at the source tree: its version, and its data from share/mercurial.
            let noOverride: [String: String?] = ["MERCURIAL_DATA": nil]
            let version = try await Tool.run(installed.path, ["--version"], in: elsewhere, environment: noOverride)
            #expect(version.status == 0 && version.stdout == MercurialVersion.string + "\n", "\(version)")
            // A material only the installed folder has shows that folder is the one in use
            // (the binary would otherwise fall back to the source tree it was built from).
            let marker = root.appendingPathComponent("share/mercurial/materials/zz-install-marker.json")
            try FileManager.default.copyItem(at: root.appendingPathComponent("share/mercurial/materials/gold.json"), to: marker)
            let materials = try await Tool.run(installed.path, ["materials"], in: elsewhere, environment: noOverride)
            #expect(materials.status == 0 && materials.stdout.contains("zz-install-marker"), "\(materials)")
            let render = try await Tool.run(installed.path, ["render", "Installed", "--font", "serif",
                                                             "--material", "zz-install-marker", "-o", "t.png"],
                                            in: elsewhere, environment: noOverride)
            #expect(render.status == 0 && render.stderr.isEmpty, "\(render)")
            let image = try CLI.readPNG(elsewhere.appendingPathComponent("t.png"))
            #expect(image.width > 100 && image.height > 20)
            let opaque = image.pixels.filter { $0.a == 255 }
            #expect(opaque.count > 1000 && Set(opaque.map(\.r)).count > 20, "the title has too few shaded pixels")

            // Uninstall: everything install wrote goes, the folders it created too; the
            // file that was there before stays, and so does the marker it did not write.
            let uninstall = try await Tool.run(make, ["uninstall"] + makeArguments, in: tmp, timeout: .seconds(60))
            #expect(uninstall.status == 0, "make uninstall failed: \(uninstall)")
            let left = Tool.files(under: destdir).map { String($0.dropFirst(destdir.path.count)) }
            #expect(left == ["/usr/share/man/man1/other-tool.1", "/usr/share/mercurial/materials/zz-install-marker.json"],
                    "uninstall left or removed the wrong files")
            for folder in ["usr/bin", "usr/share/bash-completion", "usr/share/zsh", "usr/share/fish",
                           "usr/share/mercurial/fonts"] {
                #expect(!FileManager.default.fileExists(atPath: destdir.appendingPathComponent(folder).path),
                        "uninstall left the folder \(folder)")
            }
        }
    }

    /// The subcommand names and every `abstract` in `--experimental-dump-help`.
    static func helpStrings(_ json: String) throws -> (subcommands: [String], abstracts: [String]) {
        let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let command = try #require(root?["command"] as? [String: Any], "no command in the help dump")
        let subcommands = (command["subcommands"] as? [[String: Any]] ?? []).compactMap { $0["commandName"] as? String }
        var abstracts: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, child) in object {
                    if key == "abstract", let text = child as? String { abstracts.append(text) } else { walk(child) }
                }
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(command)
        try #require(subcommands.contains("render") && !abstracts.isEmpty, "the help dump has no subcommands: \(json.prefix(200))")
        return (subcommands, abstracts)
    }
}

/// Runs programs other than `mercurial` under test (make, the installed copy) in their
/// own process group, with a deadline, and kills the whole group afterwards, so a
/// timed-out `make` leaves no `swift build` behind.
private enum Tool {
    struct Result: CustomStringConvertible {
        var status: Int32
        var signal: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
        var description: String {
            "[\(signal == 0 ? "exit \(status)" : "signal \(signal)")\(timedOut ? ", TIMED OUT" : "")] "
                + "stdout: \(stdout.suffix(2000).debugDescription) stderr: \(stderr.suffix(4000).debugDescription)"
        }
    }

    struct NotFound: Error, CustomStringConvertible { var description: String }

    static func find(_ name: String, hint: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw NotFound(description: "'\(name)' is not on PATH (\(path)); \(hint)")
    }

    static func run(_ executable: String, _ arguments: [String], in directory: URL,
                    environment: [String: String?] = [:], timeout: Duration = .seconds(20),
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> Result {
        var env = ProcessInfo.processInfo.environment
        // A make started by `make test` must not join that make's job server.
        for key in ["MAKEFLAGS", "MFLAGS", "MAKELEVEL"] { env[key] = nil }
        for (key, value) in environment { env[key] = value }
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("mercurial-tool-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(atPath: logs.path + ".out")
            try? FileManager.default.removeItem(atPath: logs.path + ".err")
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logs.path + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, logs.path + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        // sh changes folder then execs the command, which keeps the process id.
        let command = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory.path, executable] + arguments
        let argv = command.map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw NotFound(description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }

        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        var timedOut = false
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                timedOut = true
                kill(-pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        kill(-pid, SIGKILL)  // anything the command left running in its group

        let result = Result(
            status: (status >> 8) & 0xff, signal: status & 0x7f,
            stdout: (try? String(contentsOfFile: logs.path + ".out", encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: logs.path + ".err", encoding: .utf8)) ?? "",
            timedOut: timedOut)
        if timedOut {
            Issue.record("\(executable) \(arguments) did not finish within \(timeout) and was killed: \(result)",
                         sourceLocation: sourceLocation)
        }
        return result
    }

    /// Every file and symbolic link under `folder`, as sorted absolute paths.
    static func files(under folder: URL) -> [String] {
        var found: [String] = []
        if let walker = FileManager.default.enumerator(atPath: folder.path) {
            while let relative = walker.nextObject() as? String {
                let path = folder.path + "/" + relative
                var isDirectory: ObjCBool = false
                let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
                if isLink || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue) {
                    found.append(path)
                }
            }
        }
        return found.sorted()
    }
}
