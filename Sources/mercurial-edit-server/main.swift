// The live editor's server, run by `mercurial edit` (which parses and checks the
// command line, then replaces itself with this program). It is a program of its
// own so that its server library, Hummingbird on SwiftNIO, and their dependencies
// are linked into this binary only, not into every other command.
//
//   mercurial-edit-server SCENE PORT OPEN     (OPEN: 1 to hand the URL to xdg-open, else 0)
import Dispatch
import Foundation
import MercurialEditor
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    Console.error("error: " + message)
    exit(1)
}

func openInBrowser(_ url: String) {
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

Console.prepareStandardStreams()
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3, let port = UInt16(arguments[1]), ["0", "1"].contains(arguments[2]) else {
    fail("mercurial-edit-server is started by 'mercurial edit'; run that instead")
}
let open = arguments[2] == "1"
do {
    let session = try EditorSession(scenePath: arguments[0])
    let server = try EditorServer(session: session, port: port)
    // Stopping the editor is its normal end: exit 0, no temporary file left.
    SignalCleanup.install(exitStatus: 0)
    Task {
        do {
            try await server.run()
        } catch {
            fail((error as? MercurialError)?.message ?? "\(error)")
        }
    }
    Task {
        do {
            try await session.start()
            let port = try await server.waitUntilListening()
            let url = server.url(port: port)
            Console.output("mercurial edit: \(url)")
            if open { openInBrowser(url) }
        } catch {
            fail((error as? MercurialError)?.message ?? "\(error)")
        }
    }
    dispatchMain()
} catch {
    fail(error.message)
}
