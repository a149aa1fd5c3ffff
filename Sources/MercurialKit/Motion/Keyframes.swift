/// Values that can be keyframed: anything with a straight-line blend.
public protocol Interpolatable: Sendable, Equatable {
    /// The value a fraction `t` of the way from `self` to `other` (t may overshoot 0…1
    /// when a timing function does).
    func interpolated(to other: Self, by t: Double) -> Self
    /// The value as an angle on a circle of `period`: taken into 0 ..< period.
    func wrapped(around period: Double) -> Self
}

extension Interpolatable {
    public func wrapped(around period: Double) -> Self { self }
}

extension Double: Interpolatable {
    public func interpolated(to other: Double, by t: Double) -> Double { self + (other - self) * t }

    public func wrapped(around period: Double) -> Double {
        let v = truncatingRemainder(dividingBy: period)
        return v < 0 ? v + period : v
    }
}

extension RGBColor: Interpolatable {
    public func interpolated(to other: RGBColor, by t: Double) -> RGBColor {
        let f = Float(t)
        return RGBColor(r: r + (other.r - r) * f, g: g + (other.g - g) * f, b: b + (other.b - b) * f)
    }
}

extension ParameterValue: Interpolatable {
    public func interpolated(to other: ParameterValue, by t: Double) -> ParameterValue {
        switch (self, other) {
        case let (.number(a), .number(b)): return .number(a.interpolated(to: b, by: t))
        case let (.color(a), .color(b)): return .color(a.interpolated(to: b, by: t))
        default: return t < 1 ? self : other   // kinds are checked when a track is read
        }
    }

    public func wrapped(around period: Double) -> ParameterValue {
        if case .number(let v) = self { return .number(v.wrapped(around: period)) }
        return self
    }
}

/// One keyframe: at `time` seconds the value is `value`; `timing` shapes the way to
/// the next keyframe (as CAKeyframeAnimation's `timingFunctions[i]` does).
public struct Keyframe<Value: Interpolatable>: Sendable, Equatable {
    public var time: Double
    public var value: Value
    public var timing: TimingFunction

    public init(time: Double, value: Value, timing: TimingFunction = .linear) {
        self.time = time
        self.value = value
        self.timing = timing
    }
}

/// A value over time: held at the first keyframe's value before it, at the last
/// keyframe's after it, and blended between neighbours through their timing.
public struct Keyframes<Value: Interpolatable>: Sendable, Equatable {
    public private(set) var frames: [Keyframe<Value>]
    /// When set, values are turns on a circle of this period (a hue: 1), as After Effects'
    /// rotation: blended as written (0 → 2 goes round twice, 0.9 → 1.1 through 0, 0 → 0.999
    /// almost once round) and taken into 0 ..< period where they are used.
    public var period: Double?

    /// `frames` must be non-empty and in strictly increasing time.
    public init(_ frames: [Keyframe<Value>], period: Double? = nil) {
        precondition(!frames.isEmpty, "A track needs at least one keyframe")
        precondition(zip(frames, frames.dropFirst()).allSatisfy { $0.time < $1.time },
                     "Keyframes must be in strictly increasing time: \(frames.map(\.time))")
        self.frames = frames
        self.period = period
    }

    public func value(at time: Double) -> Value {
        let value = unwrappedValue(at: time)
        return period.map { value.wrapped(around: $0) } ?? value
    }

    private func unwrappedValue(at time: Double) -> Value {
        guard let first = frames.first, let last = frames.last else { preconditionFailure("no keyframes") }
        if time <= first.time { return first.value }
        if time >= last.time { return last.value }
        // The segment that holds `time` (few keyframes: a linear scan is fine).
        var i = 0
        while frames[i + 1].time <= time { i += 1 }
        let a = frames[i], b = frames[i + 1]
        let progress = a.timing.progress((time - a.time) / (b.time - a.time))
        return a.value.interpolated(to: b.value, by: progress)
    }
}

/// A constant or a keyframed value.
public enum Animated<Value: Interpolatable>: Sendable, Equatable {
    case constant(Value)
    case keyframes(Keyframes<Value>)

    public func value(at time: Double) -> Value {
        switch self {
        case .constant(let v): return v
        case .keyframes(let k): return k.value(at: time)
        }
    }

    public var isConstant: Bool { if case .constant = self { return true } else { return false } }
}
