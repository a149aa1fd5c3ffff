/// A length of time as an editor writes it: seconds (`5`, `"5s"`, `"2.5s"`), frames
/// (`"150f"`) or SMPTE timecode (`"00:00:05:00"`; with a `;` before the frames,
/// drop-frame, at 29.97 and 59.94 only). Frames and timecode become seconds at a frame
/// rate, as many frames as they count: `"00:00:05:00"` at 29.97 is 150 frames,
/// 150 × 1001/30000 = 5.005 s.
public enum TimeValue: Sendable, Equatable {
    case seconds(Double)
    case frames(Int)
    case timecode(Timecode)

    /// What a time may be written as, for messages.
    public static let forms = "seconds (5, \"5s\"), frames (\"150f\") or timecode (\"00:00:05:00\"; \"00:00:05;00\" drop-frame)"

    public static func parse(_ text: String) throws(MercurialError) -> TimeValue {
        let t = text.trimmingWhitespace()
        if t.hasSuffix("f"), let frames = Int(t.dropLast()), frames >= 0 { return .frames(frames) }
        if t.hasSuffix("s"), let seconds = Double(t.dropLast()), seconds.isFinite, seconds >= 0 { return .seconds(seconds) }
        if let seconds = Double(t), seconds.isFinite, seconds >= 0 { return .seconds(seconds) }
        if let timecode = Timecode(t) { return .timecode(timecode) }
        throw MercurialError("'\(shortQuote(text))' is no time; give \(forms)")
    }

    /// The seconds this time lasts at `rate` (frames and timecode: that many frames' worth).
    public func seconds(at rate: FrameRate) throws(MercurialError) -> Double {
        switch self {
        case .seconds(let s): return s
        case .frames(let n): return rate.time(ofFrame: n)
        case .timecode(let tc): return rate.time(ofFrame: try tc.frame(at: rate))
        }
    }
}

/// SMPTE timecode, HH:MM:SS:FF (or with `;` before the frames, drop-frame), counted at the
/// rate's nominal whole rate (30 for 29.97, 24 for 23.976).
public struct Timecode: Sendable, Equatable, CustomStringConvertible {
    public var hours: Int, minutes: Int, seconds: Int, frames: Int
    public var dropFrame: Bool

    public init(hours: Int, minutes: Int, seconds: Int, frames: Int, dropFrame: Bool) {
        (self.hours, self.minutes, self.seconds, self.frames, self.dropFrame) = (hours, minutes, seconds, frames, dropFrame)
    }

    /// `HH:MM:SS:FF` or `HH:MM:SS;FF` (also with `;` or `.` between all fields, as some tools write drop-frame).
    public init?(_ text: String) {
        let fields = text.split(omittingEmptySubsequences: false) { $0 == ":" || $0 == ";" || $0 == "." }
        guard fields.count == 4, fields.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) }),
              let h = Int(fields[0]), let m = Int(fields[1]), let s = Int(fields[2]), let f = Int(fields[3]),
              h >= 0, h < 24, m >= 0, m < 60, s >= 0, s < 60, f >= 0 else { return nil }
        let separator = text[fields[2].endIndex]
        self.init(hours: h, minutes: m, seconds: s, frames: f, dropFrame: separator != ":")
    }

    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(hours)):\(two(minutes)):\(two(seconds))\(dropFrame ? ";" : ":")\(two(frames))"
    }

    /// The whole rate timecode counts frames at: 30 for 29.97, 60 for 59.94, 24 for 23.976.
    static func nominal(_ rate: FrameRate) -> Int { max(Int(rate.fps.rounded()), 1) }

    /// Frames dropped from the count each minute but every tenth: 2 at 29.97, 4 at 59.94; nil where there is no drop-frame count.
    static func dropped(_ rate: FrameRate) -> Int? {
        rate.denominator == 1001 && rate.numerator % 30000 == 0 ? rate.numerator / 15000 : nil
    }

    /// 00:00:00:00 at `rate`, drop-frame (00:00:00;00) at 29.97 and 59.94 as broadcast counts them.
    public static func start(at rate: FrameRate) -> Timecode {
        Timecode(hours: 0, minutes: 0, seconds: 0, frames: 0, dropFrame: dropped(rate) != nil)
    }

    /// The frame this timecode names at `rate`, from 00:00:00:00.
    public func frame(at rate: FrameRate) throws(MercurialError) -> Int {
        let base = Self.nominal(rate)
        guard frames < base else {
            throw MercurialError("timecode \(self) has frame \(frames), but at \(formatNumber(rate.fps)) fps a second has frames 00 to \(base - 1)")
        }
        let count = ((hours * 60 + minutes) * 60 + seconds) * base + frames
        guard dropFrame else { return count }
        guard let drop = Self.dropped(rate) else {
            throw MercurialError("timecode \(self) is drop-frame (';'), which only 29.97 and 59.94 fps count; write it with ':'")
        }
        // Drop-frame skips the first `drop` frame numbers of every minute but every tenth.
        guard seconds > 0 || frames >= drop || minutes % 10 == 0 else {
            throw MercurialError("timecode \(self) does not exist: drop-frame skips frames 00 to \(drop - 1 < 10 ? "0" : "")\(drop - 1) at the start of each minute but every tenth")
        }
        let totalMinutes = hours * 60 + minutes
        return count - drop * (totalMinutes - totalMinutes / 10)
    }

    /// The timecode of `frame` at `rate`: drop-frame at 29.97 and 59.94 when `dropFrame`.
    public init(frame: Int, rate: FrameRate, dropFrame: Bool) {
        let base = Self.nominal(rate)
        var n = max(frame, 0)
        let drop = dropFrame ? Self.dropped(rate) : nil
        if let drop {
            // Frame numbers, with the skipped ones put back (SMPTE 12M).
            let perTenMinutes = base * 600 - drop * 9, perMinute = base * 60 - drop
            let tens = n / perTenMinutes, rest = n % perTenMinutes
            n += drop * 9 * tens + (rest > drop ? drop * ((rest - drop) / perMinute) : 0)
        }
        let frames = n % base, totalSeconds = n / base
        self.init(hours: (totalSeconds / 3600) % 24, minutes: (totalSeconds / 60) % 60, seconds: totalSeconds % 60,
                  frames: frames, dropFrame: drop != nil)
    }
}
