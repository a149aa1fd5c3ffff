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
    /// A rise's or drop's pixels.
    public var distance: Double
    /// A slide's pixels; nil: as far as takes the title (a layer) wholly off the canvas, styles and all.
    public var slideDistance: Double? = nil
    /// A scale's size at the start (in) or end (out), times the title's.
    public var factor: Double = 0
    /// Seconds between one letter's start and the next's.
    public var stagger: Double = 0.05
    public var style: Style = .fade

    public init(_ kind: Kind) {
        self.kind = kind
        distance = 24
    }

    /// The letters' share of a reveal's time: the last of `letters` starts `stagger` × (letters − 1) after the first.
    func seconds(letters: Int) -> Double {
        delay + duration + (kind == .reveal ? stagger * Double(max(letters - 1, 0)) : 0)
    }
}

/// The `in` and `out` of an animation `duration` seconds long (of the whole scene, or of
/// one layer), expanded into tracks that are applied on top of the scene's own values
/// (its tracks included): factors of `opacity` and `zoom`, pixels added to `shiftX` and
/// `shiftY`, and shares of the distance that takes the title wholly off the canvas added
/// to `clearX` and `clearY` (a slide with no `distance`). Each of `in` and `out` is a
/// list of moves that run together (a slide and a fade): each move is its own track, and
/// the factors multiply and the distances add. A reveal is a clock its letters read
/// (`LetterReveal.Frame`), since how long it lasts depends on how many letters the title has.
public struct InOut: Sendable, Equatable {
    public let entrances: [Entrance]
    public let exits: [Entrance]
    public let duration: Double
    /// When `out` ends (less its delay): the animation's last frame, so that a fade out's
    /// last frame is clear as a fade in's first is.
    public let lastFrame: Double
    let opacity: [Keyframes<Double>]
    let shiftX: [Keyframes<Double>]
    let shiftY: [Keyframes<Double>]
    let clearX: [Keyframes<Double>]
    let clearY: [Keyframes<Double>]
    let zoom: [Keyframes<Double>]

    /// The first move of `in` (of `out`): the one a command line's `--in` replaces.
    public var entrance: Entrance? { entrances.first }
    public var exit: Entrance? { exits.first }

    public init(entrance: Entrance?, exit: Entrance?, duration: Double, lastFrame: Double? = nil,
                letters: Int = 1) throws(MercurialError) {
        try self.init(entrances: entrance.map { [$0] } ?? [], exits: exit.map { [$0] } ?? [], duration: duration,
                      lastFrame: lastFrame, letters: letters)
    }

    /// Throws when `in` and `out` together (or one alone) take longer than the animation:
    /// the title would never be wholly shown, and the two would overlap; and for two reveals in one list.
    /// `lastFrame`: the time of the animation's last frame (nil: its end).
    public init(entrances: [Entrance], exits: [Entrance], duration: Double, lastFrame: Double? = nil,
                letters: Int = 1) throws(MercurialError) {
        self.entrances = entrances
        self.exits = exits
        self.duration = duration
        self.lastFrame = lastFrame ?? duration
        let lastFrame = self.lastFrame
        for (name, moves) in [("in", entrances), ("out", exits)] where moves.filter({ $0.kind == .reveal }).count > 1 {
            throw MercurialError("\"\(name)\" has \(moves.filter { $0.kind == .reveal }.count) reveals; its letters can appear one way at a time: keep one")
        }
        try Self.checkFits(entrances: entrances, exits: exits, duration: duration, letters: letters)
        // A move's track: from its value at the start to the value at rest (in), or from rest to its value at the end (out).
        func tracks(_ affects: (Entrance) -> Double?, rest: Double) -> [Keyframes<Double>] {
            let ins = entrances.compactMap { entrance in affects(entrance).map { from in
                Keyframes([Keyframe(time: entrance.delay, value: from, timing: entrance.timing),
                           Keyframe(time: entrance.delay + entrance.duration, value: rest)])
            } }
            let outs = exits.compactMap { exit in affects(exit).map { to in
                let end = lastFrame - exit.delay, start = end - exit.duration
                // Played backwards: the curve turned end for end.
                let (x1, y1, x2, y2) = exit.timing.controlPoints
                let timing = TimingFunction.cubicBezier(1 - x2, 1 - y2, 1 - x1, 1 - y1)
                return Keyframes([Keyframe(time: start, value: rest, timing: timing), Keyframe(time: end, value: to)])
            } }
            return ins + outs
        }
        opacity = tracks({ $0.kind == .fade ? 0 : nil }, rest: 1)
        zoom = tracks({ $0.kind == .scale ? $0.factor : nil }, rest: 1)
        func slide(_ e: Entrance, clears: Bool, _ negative: Entrance.Side, _ positive: Entrance.Side) -> Double? {
            guard e.kind == .slide, (e.slideDistance == nil) == clears else { return nil }
            let d = e.slideDistance ?? 1
            return e.side == negative ? -d : e.side == positive ? d : nil
        }
        shiftX = tracks({ slide($0, clears: false, .left, .right) }, rest: 0)
        shiftY = tracks({ slide($0, clears: false, .top, .bottom) }, rest: 0)
        clearX = tracks({ slide($0, clears: true, .left, .right) }, rest: 0)
        clearY = tracks({ slide($0, clears: true, .top, .bottom) }, rest: 0)
    }

    /// The longest move of `in` and of `out` together must fit the animation.
    static func checkFits(entrances: [Entrance], exits: [Entrance], duration: Double, letters: Int) throws(MercurialError) {
        let parts = [("in", entrances), ("out", exits)].compactMap { name, moves in
            moves.max { $0.seconds(letters: letters) < $1.seconds(letters: letters) }.map { (name, $0) }
        }
        let total = parts.reduce(0) { $0 + $1.1.seconds(letters: letters) }
        guard total > duration + 1e-9 else { return }
        let each = parts.map { name, e in
            let stagger = e.kind == .reveal && letters > 1 ? " + \(letters - 1) × \(formatNumber(e.stagger)) s stagger" : ""
            return "\"\(name)\" takes \(formatNumber(e.delay)) s delay + \(formatNumber(e.duration)) s\(stagger)"
        }
        throw MercurialError("\(each.joined(separator: " and ")): \(formatNumber((total * 1000).rounded() / 1000)) s, longer than the animation's \(formatNumber(duration)) s, so the title would never be wholly shown; shorten them or lengthen \"animation.duration\"")
    }

    /// The reveal of `in` and of `out`, if any.
    var revealEntrance: Entrance? { entrances.first { $0.kind == .reveal } }
    var revealExit: Entrance? { exits.first { $0.kind == .reveal } }

    /// Whether a reveal is among them (its letters need a text).
    public var reveals: Bool { revealEntrance != nil || revealExit != nil }

    /// The scene at `time` with these applied over its own values.
    func apply(to settings: inout RenderSettings, at time: Double) {
        for track in opacity { settings.opacity *= min(max(track.value(at: time), 0), 1) }
        for track in zoom { settings.zoom = min(max(settings.zoom * track.value(at: time), 0), 16) }
        for track in shiftX { settings.shiftX += track.value(at: time) }
        for track in shiftY { settings.shiftY += track.value(at: time) }
        for track in clearX { settings.look.clearX += track.value(at: time) }
        for track in clearY { settings.look.clearY += track.value(at: time) }
        if reveals {
            settings.look.reveal = LetterReveal.Frame(entrance: revealEntrance, exit: revealExit, time: time, end: lastFrame)
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
