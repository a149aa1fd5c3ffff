import Foundation
import MercurialKit
#if canImport(Glibc)
import Glibc
#endif

/// The renders of the session's states and the frames kept for the pages.
extension EditorSession {
    typealias Rendered = Result<(image: Image<RGBA8>, ms: Double), MercurialError>

    /// Renders a snapshot off the actor (it uses every core).
    static func render(_ snapshot: Snapshot, renderCache: RenderCache) -> Rendered {
        var lap = ContinuousClock.now
        func ms() -> Double {
            let now = ContinuousClock.now
            defer { lap = now }
            let elapsed = lap.duration(to: now)
            return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        }
        do {
            // The page draws the raw pixels: on loopback the 8 MB of a 1080p frame travel in
            // a few milliseconds, while a PNG took 20–30 ms to deflate here and about 100
            // to fetch and decode in a headless Chromium.
            if let index = snapshot.playhead, let sequence = snapshot.sequence {
                let title = try renderCache.frame(index, of: sequence, key: snapshot.animationKey)
                return .success((title, ms()))
            }
            if let index = snapshot.playhead, let timeline = snapshot.timeline {
                let title = try renderCache.frame(index, of: timeline, base: snapshot.settings, key: snapshot.animationKey)
                return .success((title, ms()))
            }
            let title = try renderCache.frame(for: snapshot.settings)
            return .success((title, ms()))
        } catch {
            return .failure(error)
        }
    }

    func finished(_ snapshot: Snapshot, _ result: Rendered) {
        switch result {
        case .success(let r):
            frameCounter += 1
            lastError = nil
            if let shown = frame {
                // A page may still show one of the last few frames; deltas are made from it.
                earlierFrames.append(shown)
                // The new frame counts against the budget as well: at 8K it fills it, so no
                // earlier frame or spare canvas is kept beside it (each was 133 MB more).
                let bytes = max(1, shown.width * shown.height * 4)
                let keep = min(3, Self.keptBytes / bytes - 1)
                while earlierFrames.count > max(0, keep) {
                    // Its canvas is drawn into again (see `RenderCache.recycle`).
                    let old = earlierFrames.removeFirst()
                    // A frame of the animation shows other settings than its base: not drawn into.
                    if old.playhead == nil {
                        renderCache.recycle(old.image, showing: old.settings,
                                            room: Self.keptBytes - (earlierFrames.count + 1) * bytes)
                    }
                }
            }
            if Self.residentBytes() > pressureBytes {
                // Under pressure: deltas are then made from the whole frame, and a frame drawn afresh.
                earlierFrames.removeAll()
                renderCache.dropSpares()
            }
            let made = EditorFrame(number: frameCounter, revision: snapshot.revision, tag: snapshot.tag, image: r.image,
                                   settings: snapshot.settings,
                                   width: r.image.width, height: r.image.height, milliseconds: r.ms,
                                   playhead: snapshot.playhead, pointLights: Self.pointLights(in: snapshot))
            frame = made
            wakeFrameWaiters()
            broadcast(event: "frame", frameInfo(made))
        case .failure(let error):
            lastError = error.message
            broadcast(event: "render-error", RenderErrorEvent(message: error.message, revision: snapshot.revision,
                                                              tag: OrNull(snapshot.tag)))
        }
    }

    /// Where the point lights are in the animation's frame that `snapshot` shows (the page
    /// puts their handles there), or nil off the timeline. The animators' settings alone,
    /// without a render: a few microseconds a frame.
    static func pointLights(in snapshot: Snapshot) -> [[Double]]? {
        guard let index = snapshot.playhead, snapshot.sequence == nil, let timeline = snapshot.timeline,
              !snapshot.settings.pointLights.isEmpty else { return nil }
        return timeline.settings(at: timeline.time(ofFrame: index), base: snapshot.settings).pointLights.map { [$0.x, $0.y] }
    }

    /// This process's resident size, from /proc/self/statm (0 when it cannot be read).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .ascii) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// What a page is told of a frame: its number, the state it shows, size and render time.
    nonisolated func frameInfo(_ frame: EditorFrame) -> FrameInfo {
        FrameInfo(n: frame.number, revision: frame.revision, tag: OrNull(frame.tag), frame: OrNull(frame.playhead),
                  width: frame.width, height: frame.height, ms: (frame.milliseconds * 10).rounded() / 10,
                  pointLights: frame.pointLights)
    }

    /// The newest frame and, when the page's frame `have` is still kept and of the
    /// same size, that frame: the base of the delta the page is sent.
    public func frame(andBase have: Int) -> (frame: EditorFrame, base: EditorFrame?)? {
        guard let frame else { return nil }
        let base = have == frame.number ? frame : earlierFrames.last { $0.number == have }
        return (frame, base.flatMap { $0.width == frame.width && $0.height == frame.height ? $0 : nil })
    }

    /// The shading sphere's PNG for `scene` (made again only when the scene changes).
    public nonisolated func spherePNG(for scene: ShadingScene) throws(MercurialError) -> [UInt8] {
        try renderCache.png(for: scene)
    }
}
