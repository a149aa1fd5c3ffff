// The card server, run by `mercurial serve` (which checks the command line, then
// replaces itself with this program, passing the same options). A program of its
// own so that Hummingbird, SwiftNIO and their dependencies are linked into this
// binary only, not into every other command.
import Dispatch
import Foundation
import MercurialKit
import MercurialServer
import ServeOptions

Console.prepareStandardStreams()
let options: ServeOptions
do {
    options = try ServeOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    // ArgumentParser's first line, without its "Error: " (mercurial serve checked the options already).
    let first = ServeOptions.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
    Console.error("error: " + (first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first) + " (see 'mercurial serve --help')")
    exit(64)
}
do {
    let server = try CardServer(options: options)
    try await server.run { url in Console.output("mercurial serve: \(url)") }
    exit(0)
} catch {
    Console.error("error: " + error.message)
    exit(error.kind.exitStatus)
}
