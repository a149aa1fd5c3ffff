/// How a title comes in at the start of its animation (`in`) or goes out at its
/// end (`out`): a preset with a duration, a delay and a timing function. `out`
/// plays its preset backwards, ending `delay` seconds before the animation's last frame, so
/// the same block written as `out` mirrors it as `in` (a slide in from the left
/// leaves to the left; a rise, mirrored, sinks away).
public struct Entrance: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The opacity from 0.
        case fade
        /// From `distance` pixels off towards `side`.
        case slide
        /// The size from `factor` times.
        case scale
        /// Letter by letter, `stagger` seconds apart, each as `style` says.
        case reveal
    }

    public enum Side: String, Sendable, CaseIterable { case left, right, top, bottom }

    /// How each letter of a reveal appears: fading in, rising `distance` pixels into place, or dropping into it.
    public enum Style: String, Sendable, CaseIterable { case fade, rise, drop }

    public var kind: Kind
    /// Seconds the preset takes (each letter's, for a reveal).
    public var duration: Double = 0.5
    /// Seconds after the start (in) or before the last frame (out).
    public var delay: Double = 0
    public var timing: TimingFunction = .easeOut
    public var side: Side = .left
    /// A slide's pixels, or a rise's or drop's.
    public var distance: Double
    /// A scale's size at the start (in) or end (out), times the title's.
    public var factor: Double = 0
    /// Seconds between one letter's start and the next's.
    public var stagger: Double = 0.05
    public var style: Style = .fade

    public init(_ kind: Kind) {
        self.kind = kind
        distance = kind == .reveal ? 24 : 100
    }

    /// The letters' share of a reveal's time: the last of `letters` starts `stagger` × (letters − 1) after the first.
    func seconds(letters: Int) -> Double {
        delay + duration + (kind == .reveal ? stagger * Double(max(letters - 1, 0)) : 0)
    }
}

/// The `in` and `out` of an animation `duration` seconds long, expanded into tracks
/// that are applied on top of the scene's own values (its tracks included): a
/// factor of `opacity` and `zoom`, pixels added to `shiftX` and `shiftY`. A reveal
/// is a clock its letters read (`LetterReveal.Frame`), since how long it lasts
/// depends on how many letters the title has.
public struct InOut: Sendable, Equatable {
    public let entrance: Entrance?
    public let exit: Entrance?
    public let duration: Double
    /// When `out` ends (less its delay): the animation's last frame, so that a fade out's
    /// last frame is clear as a fade in's first is.
    public let lastFrame: Double
    let opacity: Keyframes<Double>?
    let shiftX: Keyframes<Double>?
    let shiftY: Keyframes<Double>?
    let zoom: Keyframes<Double>?

    /// Throws when `entrance` and `exit` together (or one alone) take longer than the
    /// animation: the title would never be wholly shown, and the two would overlap.
    /// `lastFrame`: the time of the animation's last frame (nil: its end).
    public init(entrance: Entrance?, exit: Entrance?, duration: Double, lastFrame: Double? = nil,
                letters: Int = 1) throws(MercurialError) {
        self.entrance = entrance
        self.exit = exit
        self.duration = duration
        self.lastFrame = lastFrame ?? duration
        let lastFrame = self.lastFrame
        try Self.checkFits(entrance: entrance, exit: exit, duration: duration, letters: letters)
        func track(_ affects: (Entrance) -> Double?, rest: Double) -> Keyframes<Double>? {
            var frames: [Keyframe<Double>] = []
            if let entrance, let from = affects(entrance) {
                frames.append(Keyframe(time: entrance.delay, value: from, timing: entrance.timing))
                frames.append(Keyframe(time: entrance.delay + entrance.duration, value: rest))
            }
            if let exit, let to = affects(exit) {
                let end = lastFrame - exit.delay, start = end - exit.duration
                // Played backwards: the curve turned end for end.
                let (x1, y1, x2, y2) = exit.timing.controlPoints
                let timing = TimingFunction.cubicBezier(1 - x2, 1 - y2, 1 - x1, 1 - y1)
                if let last = frames.last, last.time >= start { frames.removeLast() }
                frames.append(Keyframe(time: start, value: rest, timing: timing))
                frames.append(Keyframe(time: end, value: to))
            }
            return frames.isEmpty ? nil : Keyframes(frames)
        }
        opacity = track({ $0.kind == .fade ? 0 : nil }, rest: 1)
        zoom = track({ $0.kind == .scale ? $0.factor : nil }, rest: 1)
        shiftX = track({ e in
            guard e.kind == .slide else { return nil }
            return e.side == .left ? -e.distance : e.side == .right ? e.distance : nil
        }, rest: 0)
        shiftY = track({ e in
            guard e.kind == .slide else { return nil }
            return e.side == .top ? -e.distance : e.side == .bottom ? e.distance : nil
        }, rest: 0)
    }

    static func checkFits(entrance: Entrance?, exit: Entrance?, duration: Double, letters: Int) throws(MercurialError) {
        let parts = [("in", entrance), ("out", exit)].compactMap { name, e in e.map { (name, $0) } }
        let total = parts.reduce(0) { $0 + $1.1.seconds(letters: letters) }
        guard total > duration + 1e-9 else { return }
        let each = parts.map { name, e in
            let stagger = e.kind == .reveal && letters > 1 ? " + \(letters - 1) × \(formatNumber(e.stagger)) s stagger" : ""
            return "\"\(name)\" takes \(formatNumber(e.delay)) s delay + \(formatNumber(e.duration)) s\(stagger)"
        }
        throw MercurialError("\(each.joined(separator: " and ")): \(formatNumber((total * 1000).rounded() / 1000)) s, longer than the animation's \(formatNumber(duration)) s, so the title would never be wholly shown; shorten them or lengthen \"animation.duration\"")
    }

    /// Whether a reveal is among them (its letters need a text).
    public var reveals: Bool { entrance?.kind == .reveal || exit?.kind == .reveal }

    /// The scene at `time` with these applied over its own values.
    func apply(to settings: inout RenderSettings, at time: Double) {
        if let opacity { settings.opacity *= min(max(opacity.value(at: time), 0), 1) }
        if let zoom { settings.zoom = min(max(settings.zoom * zoom.value(at: time), 0), 16) }
        if let shiftX { settings.shiftX += shiftX.value(at: time) }
        if let shiftY { settings.shiftY += shiftY.value(at: time) }
        if reveals {
            settings.look.reveal = LetterReveal.Frame(entrance: entrance?.kind == .reveal ? entrance : nil,
                                                      exit: exit?.kind == .reveal ? exit : nil,
                                                      time: time, end: lastFrame)
        }
    }
}

/// Letters that appear one after another.
public enum LetterReveal {
    /// A reveal at one time: each letter's alpha and vertical offset.
    public struct Frame: Sendable, Equatable {
        let entrance: Entrance?
        let exit: Entrance?
        let time: Double
        /// When the exit ends (less its delay).
        let end: Double

        /// Letter `index`'s alpha (0…1) and how far it sits below its place, in pixels.
        func letter(_ index: Int) -> (alpha: Double, dy: Double) {
            var alpha = 1.0, dy = 0.0
            for (phase, elapsed) in [(entrance, time), (exit, end - time)] {
                guard let phase else { continue }
                let start = phase.delay + phase.stagger * Double(index)
                let p = phase.timing.progress((elapsed - start) / phase.duration)
                alpha *= min(max(p, 0), 1)
                switch phase.style {
                case .fade: break
                case .rise: dy += phase.distance * (1 - p)
                case .drop: dy -= phase.distance * (1 - p)
                }
            }
            // An overshooting curve may throw a letter far; a canvas is at most 16384 px high.
            return (alpha, dy.isNaN ? 0 : min(max(dy, -65536), 65536))
        }

        /// Whether every one of `letters` is wholly shown in its place (the title as a still has it).
        func isSettled(letters: Int) -> Bool {
            (0..<letters).allSatisfy { letter($0) == (1, 0) }
        }
    }
}
