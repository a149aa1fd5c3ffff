import ArgumentParser
import Dispatch
import FoundationEssentials
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a scene live in the browser: every parameter as a control, the title re-rendered as you move it.",
        discussion: """
        Serves a page on 127.0.0.1 only and prints its URL with a session token. The
        page has a control for every parameter, the shading sphere with draggable
        lights, undo and redo, "Save scene" (the scene file, written atomically) and
        "Export PNG" (the full-size title beside it). Edits to the scene file or the
        files it uses on disk show at once, as in watch mode. Without SCENE the page
        starts from the default material and saves to scene.json (or scene-2.json, …
        if that exists). Ctrl-C stops.

        Example: mercurial edit scene.json --open
        """
    )

    @Argument(help: "The scene file (JSON) to edit; created by the first save if it does not exist.")
    var scene: String?

    @Option(help: ArgumentHelp("The loopback port to listen on; 0 picks a free one.", valueName: "port"))
    var port: Int = 8470   // EditorServer.defaultPort (a test checks they agree)

    @Flag(help: "Open the page with xdg-open.")
    var open = false

    func run() throws {
        guard (0...65535).contains(port) else {
            throw MercurialError("--port \(port) is out of range 0…65535; give a port in that range, or 0 for a free one")
        }
        // The server is a program of its own (see Sources/mercurial-edit-server).
        let server = try Self.server(besideBinaryIn: Self.binaryFolder())
        let arguments = [server, scene ?? Self.freeSceneName(), String(port), open ? "1" : "0"]
        var argv = arguments.map { strdup($0) } + [nil]
        execv(server, &argv)
        throw MercurialError("cannot start the editor's server '\(UserPath(checked: server))' (\(String(cString: strerror(errno)))); install mercurial again")
    }

    /// The folder this program runs from (/proc/self/exe, its symbolic links resolved).
    static func binaryFolder() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let me = n > 0 ? String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        return UserPath(checked: me).directory
    }

    static let serverName = "mercurial-edit-server"

    /// The configurations of a SwiftPM build folder (<scratch>/<triple>/release or debug).
    static let configurations = ["release", "debug"]

    /// Where `edit` looks for its server, in order: beside this program (an install, or
    /// a build that made both), then, when this program is in a SwiftPM build folder, the
    /// other configuration's folder beside it (`swift run -c release mercurial` builds
    /// only `mercurial`; a plain `swift build` makes a debug server).
    static func serverCandidates(besideBinaryIn folder: String, named serverName: String = serverName) -> [String] {
        let path = UserPath(checked: folder)
        var candidates = [folder + "/" + serverName]
        if configurations.contains(path.lastComponent) {
            for other in configurations where other != path.lastComponent {
                candidates.append(path.directory + "/" + other + "/" + serverName)
            }
        }
        return candidates
    }

    /// The first candidate that is executable; else an error that says how to get one:
    /// in a build folder, the exact `swift build` that makes it; installed, install again.
    /// `serverName` is the program to find (`mercurial-edit-server`, `mercurial-serve-server`), `role` what to call it.
    static func server(besideBinaryIn folder: String, named serverName: String = serverName, role: String = "the editor's server",
                       isExecutable: (String) -> Bool = { access($0, X_OK) == 0 }) throws(MercurialError) -> String {
        let candidates = serverCandidates(besideBinaryIn: folder, named: serverName)
        if let found = candidates.first(where: isExecutable) { return found }
        let path = UserPath(checked: folder)
        guard configurations.contains(path.lastComponent) else {
            throw MercurialError("\(role) '\(UserPath(checked: candidates[0]))' is missing; install mercurial again (make install, or its .deb)")
        }
        let folders = candidates.map { "'\(UserPath(checked: UserPath(checked: $0).directory))'" }
        // <root>/.build/<triple>/<configuration>: the build runs in <root>.
        let scratch = UserPath(checked: UserPath(checked: path.directory).directory)
        let place = scratch.lastComponent == ".build" ? "in '\(UserPath(checked: scratch.directory))'" : "in the source tree"
        throw MercurialError("\(role) \(serverName) is not built (not in \(folders.joined(separator: " nor "))); "
            + "build it with 'swift build -c \(path.lastComponent) --product \(serverName)' \(place)")
    }

    /// scene.json, or scene-2.json, … : the first that does not exist.
    static func freeSceneName() -> String {
        var info = stat()
        var n = 1
        while true {
            let name = n == 1 ? "scene.json" : "scene-\(n).json"
            if lstat(name, &info) != 0 { return name }
            n += 1
        }
    }
}
