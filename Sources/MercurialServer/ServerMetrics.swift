import Foundation
import Synchronization

/// What `/metrics` reports, in Prometheus's text format: requests by status, render
/// times as a histogram, cache hits and misses; the queue's depth and the cache's size
/// are read when scraped.
final class ServerMetrics: Sendable {
    /// Render-time buckets' upper bounds, in seconds.
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct Counts {
        var statuses: [Int: Int] = [:]
        var bucketCounts = [Int](repeating: 0, count: ServerMetrics.buckets.count)
        var renders = 0
        var renderSeconds = 0.0
        var memoryHits = 0, diskHits = 0, misses = 0, notModified = 0
    }
    private let counts = Mutex(Counts())

    func answered(_ status: Int) { counts.withLock { $0.statuses[status, default: 0] += 1 } }

    func rendered(seconds: Double) {
        counts.withLock { c in
            c.renders += 1
            c.renderSeconds += seconds
            for (i, bound) in Self.buckets.enumerated() where seconds <= bound { c.bucketCounts[i] += 1 }
        }
    }

    enum Hit { case memory, disk, miss, notModified }
    func cache(_ hit: Hit) {
        counts.withLock { c in
            switch hit {
            case .memory: c.memoryHits += 1
            case .disk: c.diskHits += 1
            case .miss: c.misses += 1
            case .notModified: c.notModified += 1
            }
        }
    }

    func text(queueDepth: Int, busy: Int, cachedCards: Int, cachedBytes: Int) -> String {
        let c = counts.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP mercurial_requests_total HTTP answers by status code.")
        lines.append("# TYPE mercurial_requests_total counter")
        for (status, n) in c.statuses.sorted(by: { $0.key < $1.key }) { lines.append("mercurial_requests_total{code=\"\(status)\"} \(n)") }
        lines.append("# HELP mercurial_render_seconds Time to render and encode a card.")
        lines.append("# TYPE mercurial_render_seconds histogram")
        for (i, bound) in Self.buckets.enumerated() { lines.append("mercurial_render_seconds_bucket{le=\"\(bound)\"} \(c.bucketCounts[i])") }
        lines.append("mercurial_render_seconds_bucket{le=\"+Inf\"} \(c.renders)")
        lines.append("mercurial_render_seconds_sum \(c.renderSeconds)")
        lines.append("mercurial_render_seconds_count \(c.renders)")
        lines.append("# HELP mercurial_cache_total Card lookups: hits in memory or on disk, misses (rendered), and 304s.")
        lines.append("# TYPE mercurial_cache_total counter")
        lines.append("mercurial_cache_total{result=\"memory\"} \(c.memoryHits)")
        lines.append("mercurial_cache_total{result=\"disk\"} \(c.diskHits)")
        lines.append("mercurial_cache_total{result=\"miss\"} \(c.misses)")
        lines.append("mercurial_cache_total{result=\"not_modified\"} \(c.notModified)")
        lines.append("# HELP mercurial_queue_depth Requests waiting for a render worker.")
        lines.append("# TYPE mercurial_queue_depth gauge")
        lines.append("mercurial_queue_depth \(queueDepth)")
        lines.append("# HELP mercurial_renders_running Renders running now.")
        lines.append("# TYPE mercurial_renders_running gauge")
        lines.append("mercurial_renders_running \(busy)")
        lines.append("# HELP mercurial_cache_cards Cards kept in memory, and their bytes.")
        lines.append("# TYPE mercurial_cache_cards gauge")
        lines.append("mercurial_cache_cards \(cachedCards)")
        lines.append("# TYPE mercurial_cache_bytes gauge")
        lines.append("mercurial_cache_bytes \(cachedBytes)")
        return lines.joined(separator: "\n") + "\n"
    }
}
