import ArgumentParser
import Dispatch
import Foundation
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
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
        // The server is a program of its own (see Sources/mercurial-edit-server), beside this one.
        let server = Self.serverPath()
        guard access(server, X_OK) == 0 else {
            throw MercurialError("the editor's server '\(UserPath(checked: server))' is missing; install mercurial again (make install), or build it with swift build")
        }
        let arguments = [server, scene ?? Self.freeSceneName(), String(port), open ? "1" : "0"]
        var argv = arguments.map { strdup($0) } + [nil]
        execv(server, &argv)
        throw MercurialError("cannot start the editor's server '\(UserPath(checked: server))' (\(String(cString: strerror(errno)))); install mercurial again")
    }

    /// mercurial-edit-server in this program's folder.
    static func serverPath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let me = n > 0 ? String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        let folder = me.contains("/") ? String(me[..<me.lastIndex(of: "/")!]) : "."
        return folder + "/mercurial-edit-server"
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
