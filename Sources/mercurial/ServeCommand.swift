import ArgumentParser
import FoundationEssentials
import MercurialKit
import ServeOptions
#if canImport(Glibc)
import Glibc
#endif

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve titles over HTTP: cards for the web, rendered on demand and cached.",
        discussion: """
        POST /v1/render takes a scene as JSON (the schema of scene files);
        GET /v1/render takes scene keys as query parameters (text, size,
        material, layers[0].text, ...), for <meta property="og:image"> tags.
        The format is ?format=png|jpg|webp or the Accept header. Every card is
        named by its SHA-256 (its ETag), served again at /v1/cards/SHA.EXT and
        cached for a year. Fonts and materials are named, never given as paths.
        GET /healthz; GET /metrics (Prometheus). SIGTERM or Ctrl-C stops taking
        connections and finishes the renders under way. See docs/serve.md.

        Example: mercurial serve --port 0
        """
    )

    @OptionGroup var options: ServeOptions

    func run() throws {
        try options.check()
        if let key = options.key { _ = try CardSignature.readKey(key) }
        // The server is a program of its own, as edit's is (see Sources/mercurial-serve-server).
        let server = try Edit.server(besideBinaryIn: Edit.binaryFolder(), named: Self.serverName, role: "the card server")
        var argv = ([server] + CommandLine.arguments.drop { $0 != "serve" }.dropFirst()).map { strdup($0) } + [nil]
        execv(server, &argv)
        throw MercurialError("cannot start the card server '\(UserPath(checked: server))' (\(String(cString: strerror(errno)))); install mercurial again")
    }

    static let serverName = "mercurial-serve-server"
}

struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a card's query for a server started with --key.",
        discussion: """
        Prints the query in its canonical form (decoded, sorted by key, each byte but
        A-Z a-z 0-9 - . _ ~ percent-encoded) followed by &sig=, the HMAC-SHA256 of that
        form under the key. Append it to /v1/render?.

        Example: mercurial sign --key card.key 'text=Hello world&size=80&format=jpg'
        """
    )

    @Option(help: ArgumentHelp("The file holding the server's signing key.", valueName: "file"))
    var key: String

    @Argument(help: ArgumentHelp("The query: key=value pairs joined by &, encoded or not.", valueName: "query"))
    var query: String

    func run() throws {
        let secret = try CardSignature.readKey(key)
        let parameters = try CardSignature.parameters(query.hasPrefix("?") ? String(query.dropFirst()) : query)
        let canonical = try CardSignature.canonical(parameters)
        let signature = try CardSignature.sign(parameters, key: secret)
        Console.output((canonical.isEmpty ? "" : canonical + "&") + "sig=" + signature, escaping: false)
    }
}
