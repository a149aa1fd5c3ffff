import ArgumentParser
import FoundationEssentials
import MercurialKit

/// `mercurial serve`'s options, declared once: the command line shows and checks them,
/// then hands them, as given, to the server program (`mercurial-serve-server`), which
/// reads them with this same declaration.
public struct ServeOptions: ParsableArguments, Sendable {
    public static let defaultPort = 8480

    @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one (the first line printed names it).", valueName: "port"))
    public var port: Int = ServeOptions.defaultPort

    @Option(help: ArgumentHelp("The address to listen on: 127.0.0.1 (this machine only), or 0.0.0.0 behind a proxy or CDN.", valueName: "address"))
    public var host: String = "127.0.0.1"

    @Option(help: ArgumentHelp("A folder that keeps every card rendered, across restarts (created if missing); without it cards are kept in memory only.", valueName: "dir"))
    public var cache: String?

    @Option(help: ArgumentHelp("A file holding the signing key (16 bytes or more, e.g. 'openssl rand -hex 32 > key'): every render request must then carry its signature, 'sig' (see 'mercurial sign').", valueName: "file"))
    public var key: String?

    @Option(help: ArgumentHelp("Seconds a render may take, queue included, before the answer is 503.", valueName: "seconds"))
    public var deadline: Double = 2

    @Option(help: ArgumentHelp("Renders run at once (default: the number of cores).", valueName: "n"))
    public var workers: Int?

    @Option(help: ArgumentHelp("Requests that may wait for a worker; beyond them the answer is 429 with Retry-After (default: 8 per worker).", valueName: "n"))
    public var queue: Int?

    @Option(name: .customLong("memory-cache"), help: ArgumentHelp("Megabytes of cards kept in memory, least recently used dropped first.", valueName: "MB"))
    public var memoryCache: Int = 128

    @Option(name: .customLong("read-deadline"), help: ArgumentHelp("Seconds a client has to send a whole request (head and body), and that an idle connection is kept.", valueName: "seconds"))
    public var readDeadline: Double = 10

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections open at once; more wait in the listen queue.", valueName: "n"))
    public var maxConnections: Int = 1024

    @Flag(help: "Put the recipe (the resolved scene, with the font's path on this machine) into PNG cards; off by default.")
    public var recipe = false

    public init() {}

    /// The workers, and the queue, with their defaults.
    public var workerCount: Int { workers ?? ProcessInfo.processInfo.activeProcessorCount }
    public var queueLength: Int { queue ?? 8 * workerCount }

    /// One refusal for the first option out of range.
    public func check() throws(MercurialError) {
        func refuse(_ message: String) -> MercurialError { MercurialError(message) }
        guard (0...65535).contains(port) else { throw refuse("--port \(port) is out of range 0…65535; give a port in that range, or 0 for a free one") }
        guard deadline > 0, deadline <= 600 else { throw refuse("--deadline \(deadline) is out of range; give seconds above 0, at most 600") }
        guard readDeadline > 0, readDeadline <= 600 else { throw refuse("--read-deadline \(readDeadline) is out of range; give seconds above 0, at most 600") }
        if let workers, !(1...256).contains(workers) { throw refuse("--workers \(workers) is out of range 1…256") }
        if let queue, !(0...100_000).contains(queue) { throw refuse("--queue \(queue) is out of range 0…100000") }
        guard (1...65536).contains(memoryCache) else { throw refuse("--memory-cache \(memoryCache) is out of range 1…65536 (megabytes)") }
        guard (1...1_000_000).contains(maxConnections) else { throw refuse("--max-connections \(maxConnections) is out of range 1…1000000") }
        guard !host.isEmpty, !host.contains("/") else { throw refuse("--host '\(host.escapedForTerminal)' is not an address; give e.g. 127.0.0.1 or 0.0.0.0") }
    }
}
