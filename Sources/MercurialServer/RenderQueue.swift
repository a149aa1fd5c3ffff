import MercurialKit
import NIOPosix

/// The renders a server runs at once: `workers` on threads of their own (a render is
/// CPU work that would otherwise hold one of Swift's few cooperative threads, which
/// answer cached cards meanwhile), at most `waiting` more queued, and a refusal
/// (`Overloaded`, answered 429) for any beyond.
actor RenderQueue {
    struct Overloaded: Error {}

    let workers: Int
    let waiting: Int
    private let pool: NIOThreadPool
    private var running = 0
    private var queue: [CheckedContinuation<Void, Never>] = []

    init(workers: Int, waiting: Int) {
        self.workers = workers
        self.waiting = waiting
        pool = NIOThreadPool(numberOfThreads: workers)
        pool.start()
    }

    /// Requests queued for a worker.
    var depth: Int { queue.count }
    /// Renders running.
    var busy: Int { running }

    /// Runs `work` on a worker once one is free; throws `Overloaded` at once when the queue is full.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws(MercurialError) -> T) async throws -> T {
        if running < workers {
            running += 1
        } else {
            guard queue.count < waiting else { throw Overloaded() }
            // `finished` hands its slot straight to the first waiter.
            await withCheckedContinuation { queue.append($0) }
        }
        defer { finished() }
        let result = try await pool.runIfActive { () -> Result<T, MercurialError> in
            Result { () throws(MercurialError) in try work() }
        }
        return try result.get()
    }

    private func finished() {
        if queue.isEmpty {
            running -= 1
        } else {
            queue.removeFirst().resume()
        }
    }

    func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
