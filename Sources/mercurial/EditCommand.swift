import ArgumentParser
import Dispatch
import Foundation
import MercurialEditor
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
    var port: Int = Int(EditorServer.defaultPort)

    @Flag(help: "Open the page with xdg-open.")
    var open = false

    func run() throws {
        guard (0...65535).contains(port) else {
            throw MercurialError("--port \(port) is out of range 0…65535; give a port in that range, or 0 for a free one")
        }
        let session = try EditorSession(scenePath: scene ?? Self.freeSceneName())
        let server = try EditorServer(session: session, port: UInt16(port))
        // Stopping the editor is its normal end: exit 0, no temporary file left.
        SignalCleanup.install(exitStatus: 0)
        let open = self.open
        Task {
            do {
                try await server.run()
            } catch {
                fail((error as? MercurialError)?.message ?? "\(error)", status: 1)
            }
        }
        Task {
            do {
                try await session.start()
                let port = try await server.waitUntilListening()
                let url = server.url(port: port)
                Console.output("mercurial edit: \(url)")
                if open { Self.openInBrowser(url) }
            } catch {
                fail((error as? MercurialError)?.message ?? "\(error)", status: 1)
            }
        }
        dispatchMain()
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

    static func openInBrowser(_ url: String) {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/xdg-open" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            Console.error("warning: xdg-open is not installed, so --open cannot open the page; open the URL above yourself")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            Console.error("warning: cannot run xdg-open (\(error.localizedDescription)); open \(url) yourself")
        }
    }
}
