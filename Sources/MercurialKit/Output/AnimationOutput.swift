import CPNGWriter
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where an animation's frames go, chosen by the output's name.
public enum AnimationFormat: Sendable, Equatable, CustomStringConvertible {
    /// VP9 with alpha (libvpx-vp9, yuva420p) through ffmpeg.
    case webm
    /// ProRes 4444 with alpha, or QuickTime Animation (qtrle), through ffmpeg.
    case mov(MovCodec)
    /// H.264, opaque (on the background colour, black when there is none), through ffmpeg.
    case mp4
    /// An animated PNG, written here.
    case apng
    /// One PNG per frame; the pattern holds one `%d` or `%0Nd`.
    case pngSequence(pattern: String)
    /// Frames are rendered and dropped (for measuring).
    case null

    /// ProRes 4444 (with alpha), 4444 XQ (with alpha, the highest rate), 422 HQ (opaque), or QuickTime Animation.
    public enum MovCodec: String, Sendable, CaseIterable {
        case prores, qtrle
        case prores4444xq = "prores-4444xq"
        case prores422hq = "prores-422hq"
    }

    /// Whether the form keeps the alpha channel (H.264 and ProRes 422 HQ do not: their frames go on the background).
    public var hasAlpha: Bool {
        switch self {
        case .mp4, .mov(.prores422hq): return false
        default: return true
        }
    }

    public var description: String {
        switch self {
        case .webm: return "WebM (VP9 with alpha)"
        case .mov(.prores): return "QuickTime (ProRes 4444 with alpha)"
        case .mov(.prores4444xq): return "QuickTime (ProRes 4444 XQ with alpha)"
        case .mov(.prores422hq): return "QuickTime (ProRes 422 HQ, opaque)"
        case .mov(.qtrle): return "QuickTime (Animation, with alpha)"
        case .mp4: return "MP4 (H.264)"
        case .apng: return "APNG"
        case .pngSequence: return "PNG sequence"
        case .null: return "nothing (null sink)"
        }
    }

    /// The format for an output path, or an error naming the forms that exist.
    public static func forPath(_ path: String, movCodec: MovCodec = .prores) throws(MercurialError) -> AnimationFormat {
        if path == "/dev/null" || path == "null:" { return .null }
        let name = PathText.lastComponent(path)
        if name.contains("%") {
            guard name.lowercased().hasSuffix(".png") else {
                throw MercurialError("output '\(shortQuote(path))' is a pattern but not of .png files; use e.g. frames/title-%04d.png")
            }
            guard frameNumberFormat(name) != nil else {
                throw MercurialError("output pattern '\(shortQuote(path))' must hold exactly one %d or %0Nd (e.g. title-%04d.png) and no other %")
            }
            return .pngSequence(pattern: path)
        }
        switch PathText.pathExtension(name).lowercased() {
        case "webm": return .webm
        case "mov": return .mov(movCodec)
        case "mp4", "m4v": return .mp4
        case "png", "apng": return .apng
        default:
            throw MercurialError("output '\(shortQuote(path))' has no known form; end it in .webm, .mov, .mp4, .png (APNG) or give a pattern such as frames/title-%04d.png")
        }
    }

    /// For `title-%04d.png`: the text before, the width (0: none) and the text after.
    static func frameNumberFormat(_ name: String) -> (prefix: String, width: Int, suffix: String)? {
        guard let percent = name.firstIndex(of: "%") else { return nil }
        var i = name.index(after: percent)
        var digits = ""
        while i < name.endIndex, name[i].isASCII, name[i].isNumber { digits.append(name[i]); i = name.index(after: i) }
        guard i < name.endIndex, name[i] == "d" else { return nil }
        let suffix = String(name[name.index(after: i)...])
        guard !suffix.contains("%"), digits.count <= 2 else { return nil }
        return (String(name[..<percent]), Int(digits) ?? 0, suffix)
    }
}

extension AnimationFormat {
    /// A QuickTime file (ProRes or Animation).
    public var isMov: Bool { if case .mov = self { true } else { false } }

    /// A sink writing `frameCount` frames of `width` × `height` at `fps` (as `FrameRate`
    /// makes it a fraction) to `path`. `quality`: WebM's and MP4's, 0…100 (`FFmpegSink.crf`).
    /// `recipe`: the scene, carried in an APNG's iTXt chunk or a video's `comment` tag.
    /// `timecode`: the first frame's, written into a .mov (a QuickTime timecode track).
    public func sink(path: String, width: Int, height: Int, fps: Double, frameCount: Int,
                     loop: Bool, quality: Double = Timeline.defaultQuality, timecode: Timecode? = nil,
                     recipe: String? = nil) throws(MercurialError) -> any RowSink {
        switch self {
        case .null: return NullSink()
        case .apng:
            return try APNGSink(path: path, width: width, height: height, fps: fps, frameCount: frameCount, loop: loop,
                                recipe: recipe)
        case .pngSequence(let pattern): return try PNGSequenceSink(pattern: pattern, width: width, height: height)
        case .webm, .mov, .mp4:
            try FFmpegSink.checkEvenSize(self, width: width, height: height)
            return try FFmpegSink(format: self, path: path, width: width, height: height, rate: FrameRate(fps),
                                  quality: quality, timecode: timecode, recipe: recipe)
        }
    }
}

// MARK: - APNG

/// An animated PNG, which Debian's libpng cannot write: each frame's image data is
/// deflated on every core (Paeth-filtered, see `PNGFile.imageData`) and framed as
/// the APNG chunks acTL, fcTL and fdAT. Frames stream to the file; one is held at a time.
final class APNGSink: RowSink {
    private let file: OutputFile.Stream
    private let width: Int, height: Int
    private let delay: (numerator: UInt16, denominator: UInt16)
    private var sequence: UInt32 = 0
    private var written = 0
    private let frameCount: Int
    private var assembler: FrameAssembler

    init(path: String, width: Int, height: Int, fps: Double, frameCount: Int, loop: Bool,
         recipe: String?) throws(MercurialError) {
        file = try OutputFile.Stream(path)
        self.width = width
        self.height = height
        self.frameCount = frameCount
        assembler = FrameAssembler(width: width, height: height)
        // The frame delay as a fraction of a second with 16-bit terms: exact for every rate
        // but those over 65535 frames a thousand seconds (119.88's 1001/120000 is the nearest fraction).
        let frame = FrameRate(fps).frameDuration(largestTerm: Int(UInt16.max))
        delay = (UInt16(frame.numerator), UInt16(frame.denominator))
        var head: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        Self.appendChunk("IHDR", Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height)) + [8, 6, 0, 0, 0], to: &head)
        Self.appendChunk("acTL", Self.bigEndian(UInt32(frameCount)) + Self.bigEndian(loop ? 0 : 1), to: &head)
        if let recipe { head += try SceneRecipe.chunk(recipe) }   // after acTL, which must come first
        try file.write(head)
    }

    func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError) {
        try assembler.take(rows) { rows throws(MercurialError) in try writeFrame(rows) }
    }

    func endFrame() throws(MercurialError) { assembler.endFrame() }

    private func writeFrame(_ rows: [UnsafePointer<UInt8>]) throws(MercurialError) {
        let data = try PNGFile.imageData(width: width, height: height, rows: rows, picture: true)
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 64)
        // fcTL: sequence, size, offset 0, delay, dispose none, blend source.
        var control = Self.bigEndian(sequence) + Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height))
        control += Self.bigEndian(0) + Self.bigEndian(0)
        control += [UInt8(delay.numerator >> 8), UInt8(delay.numerator & 0xff), UInt8(delay.denominator >> 8),
                    UInt8(delay.denominator & 0xff), 0, 0]
        Self.appendChunk("fcTL", control, to: &out)
        sequence += 1
        if written == 0 {
            Self.appendChunk("IDAT", data, to: &out)   // the first frame is also the still image
        } else {
            Self.appendChunk("fdAT", Self.bigEndian(sequence) + data, to: &out)
            sequence += 1
        }
        written += 1
        try file.write(out)
    }

    func finish() throws(MercurialError) {
        precondition(written == frameCount, "\(written) frames written of \(frameCount)")
        var tail: [UInt8] = []
        Self.appendChunk("IEND", [], to: &tail)
        try file.write(tail)
        try file.commit()
    }

    func discard() { file.discard() }

    static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        png.append(contentsOf: bigEndian(UInt32(data.count)))
        let typeAndData = Array(type.utf8) + data
        png.append(contentsOf: typeAndData)
        let crc = typeAndData.withUnsafeBufferPointer { mercurial_crc32(0, $0.baseAddress, $0.count) }
        png.append(contentsOf: bigEndian(crc))
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)]
    }
}

// MARK: - PNG sequence

final class PNGSequenceSink: RowSink {
    private let directory: String
    private var assembler: FrameAssembler
    private let format: (prefix: String, width: Int, suffix: String)
    private var written: [String] = []

    init(pattern: String, width: Int, height: Int) throws(MercurialError) {
        assembler = FrameAssembler(width: width, height: height)
        directory = UserPath(checked: pattern).directory
        guard let format = AnimationFormat.frameNumberFormat(PathText.lastComponent(pattern)) else {
            throw MercurialError("output pattern '\(shortQuote(pattern))' must hold one %d or %0Nd")
        }
        self.format = format
        try OutputFile.validate(path(for: 0))
    }

    func path(for index: Int) -> String {
        var number = String(index)
        if number.count < format.width { number = String(repeating: "0", count: format.width - number.count) + number }
        return "\(directory)/\(format.prefix)\(number)\(format.suffix)"
    }

    func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError) {
        let (width, height) = (assembler.width, assembler.height)
        try assembler.take(rows) { rows throws(MercurialError) in
            let path = path(for: written.count)
            try OutputFile.write(try PNGFile.encodePicture(width: width, height: height, rows: rows), to: path)
            written.append(path)
        }
    }

    func endFrame() throws(MercurialError) { assembler.endFrame() }

    func finish() throws(MercurialError) {}

    /// Removes the frames written so far.
    func discard() {
        for path in written { unlink(path) }
        written.removeAll()
    }
}

// MARK: - Video through ffmpeg

/// Pipes raw straight-alpha RGBA frames into Debian's `ffmpeg`, which encodes
/// them into a temporary file beside the output; the file is renamed into place
/// when ffmpeg succeeds and what it wrote is the container asked for.
final class FFmpegSink: RowSink {
    private let process: ChildProcess
    /// The write end of ffmpeg's standard input, the frames' pipe.
    private let input: Int32
    private var inputOpen = true
    /// ffmpeg's standard error.
    private let log: ScratchFile
    /// The recipe as an FFMETADATA file: on the command line it would be one argument,
    /// and Linux refuses an argument over 128 KB (MAX_ARG_STRLEN).
    private let metadata: ScratchFile?
    private let file: OutputFile.Stream
    private let format: AnimationFormat
    private let path: String
    private let ffmpeg: String
    private let rowBytes: Int
    private let height: Int
    /// Rows of the current frame written so far.
    private var rowsWritten = 0

    static func ffmpegPath() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/ffmpeg"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// ffmpeg's arguments after the inputs: the colour conversion and tags, the codec of
    /// each form, and the settings that bound the encoder's memory (figures in `maximumPixels`).
    static func codecArguments(_ format: AnimationFormat, pixels: Int,
                               quality: Double = Timeline.defaultQuality) -> [String] {
        switch format {
        case .webm:
            // In realtime mode without alt-ref frames the lag buffers change no byte of the
            // output, but libvpx allocates 25 frames of them (per plane set: alpha is a second encoder).
            return colour(to: "yuva420p")
                + ["-c:v", "libvpx-vp9", "-b:v", "0", "-crf", String(crf(format, quality: quality)), "-deadline", "realtime",
                   "-cpu-used", "8", "-row-mt", "1", "-auto-alt-ref", "0", "-lag-in-frames", "0", "-f", "webm"]
        case .mov(.prores), .mov(.prores4444xq), .mov(.prores422hq):
            // QuickTime's own comment atom has a 16-bit length; metadata tags (mdta) hold any size.
            // Over 4K UHD one thread: each frame thread holds a 10-bit 4:4:4:4 frame and its packet
            // (about 290 MB at 7680×4320); below, ffmpeg's threads, which encode 1.6 times as fast.
            // 422 HQ has no alpha: its frames come composed on the background (`hasAlpha`).
            let (pixelFormat, profile) = format == .mov(.prores422hq) ? ("yuv422p10le", "hq")
                : format == .mov(.prores4444xq) ? ("yuva444p10le", "4444xq") : ("yuva444p10le", "4444")
            return colour(to: pixelFormat) + ["-c:v", "prores_ks", "-profile:v", profile, "-q:v", "1"]
                + (pixels > 3840 * 2160 ? ["-threads", "1"] : []) + ["-movflags", "+use_metadata_tags", "-f", "mov"]
        case .mov(.qtrle):
            // RGB as rendered: BT.709 primaries and transfer, an RGB matrix (QuickTime's colr atom has no range).
            return ["-vf", "format=argb,setparams=color_primaries=bt709:color_trc=bt709:colorspace=gbr:range=pc",
                    "-c:v", "qtrle", "-movflags", "+use_metadata_tags", "-f", "mov"]
        case .mp4:
            // x264 holds a frame per frame thread, per lookahead frame and per B-frame.
            return colour(to: "yuv420p")
                + ["-c:v", "libx264", "-preset", "veryfast", "-crf", String(crf(format, quality: quality)),
                   "-threads", "1", "-rc-lookahead", "5", "-bf", "0", "-movflags", "+faststart", "-f", "mp4"]
        default:
            return []
        }
    }

    /// Full-range RGB to limited-range BT.709 YUV in `pixelFormat`, tagged so (primaries,
    /// transfer, matrix, range), as every HD editor assumes. ffmpeg's own `scale` (swscale)
    /// converts, not `zscale`: it is in every ffmpeg build (zscale needs libzimg), converts
    /// the alpha plane in the same step, and a ProRes frame decoded as BT.709 comes back
    /// within 0.02 levels of the PNG; `setparams` puts the tags on the frames, from which
    /// the encoder and the container take them (ffmpeg 5.1's `-colorspace` and its kin are
    /// overridden by the untagged frames).
    static func colour(to pixelFormat: String) -> [String] {
        ["-vf", "scale=out_color_matrix=bt709:out_range=tv,format=\(pixelFormat),"
            + "setparams=color_primaries=bt709:color_trc=bt709:colorspace=bt709:range=tv"]
    }

    /// The constant rate factor for `quality` (0…100): 50 is each encoder's CRF of old
    /// (VP9 32, H.264 18), and it runs linearly from there to the worst at 0 (VP9 63,
    /// H.264 51) and the best at 100 (VP9 0; H.264 1, as its 0 is lossless, which needs a
    /// profile few players decode).
    static func crf(_ format: AnimationFormat, quality: Double) -> Int {
        let (best, middle, worst): (Double, Double, Double) = format == .webm ? (0, 32, 63) : (1, 18, 51)
        let q = min(max(quality, 0), 100)
        let crf = q >= 50 ? middle - (middle - best) * (q - 50) / 50 : middle + (worst - middle) * (50 - q) / 50
        return Int(crf.rounded())
    }

    /// The most pixels a frame may have for ffmpeg to encode it in about 1 GB, and that
    /// encoder's cost a pixel, measured (ffmpeg 5.1, Debian 12) with the settings above:
    /// VP9 with alpha 0.48 GB at 1920×1080; with `environment`'s fixed mmap threshold
    /// 0.84 GB at 2880×1620, 1.05 GB at 3264×1836, 1.40 GB at 3840×2160 and 1.49 GB at
    /// 4096×2160 (30 frames; 1.69 GB at 3840×2160 without it). No libvpx setting brings
    /// 3840×2160 near 1 GB: libvpx 1.12 allocates and clears, per encoder and whatever the
    /// options (threads, row-mt, tile-columns, frame-parallel, aq-mode: within 1 %; lag is 0), a
    /// token buffer of 48 bytes a pixel (400 MB at 3840×2160), 25 frames of motion statistics
    /// and about ten bordered frames, some 630 MB there; alpha is a second such encoder.
    /// ProRes 4444 0.96 GB and H.264 1.02 GB at 5952×3348, 1.5 and 1.6 GB at 7680×4320;
    /// QuickTime Animation 0.92 GB at 7680×4320.
    /// WebM is held to 4096×2160 (DCI 4K, 4K UHD within it), which takes about 1.5 GB: what
    /// libvpx needs for a 4K master with alpha.
    static func maximumPixels(_ format: AnimationFormat) -> (pixels: Int, bytesPerPixel: Int, example: String, gigabytes: Double)? {
        switch format {
        case .webm: return (4096 * 2160, 170, "4096×2160", 1.5)
        case .mov(.prores), .mov(.prores4444xq), .mov(.prores422hq), .mp4: return (20_000_000, 50, "5952×3348", 1)
        default: return nil
        }
    }

    /// Frames over this many pixels have WebM's ffmpeg run with glibc's mmap threshold
    /// fixed (`environment`); at 1920×1080 that would save 48 MB but cost 11 % more CPU.
    static let fixedMmapThresholdPixels = 1920 * 1080

    /// The environment ffmpeg runs with, or nil to inherit this process's. glibc raises its
    /// mmap threshold to the size of each large block freed (up to 32 MB), so after the first
    /// frame ffmpeg's frame-sized packets and pictures come from the heap, which fragments
    /// (a 3840×2160 RGBA frame is 33 MB); fixed at 128 KB (`MALLOC_MMAP_THRESHOLD_`, which also
    /// turns the raising off) each is mapped and given back. Only for WebM over
    /// `fixedMmapThresholdPixels`, and not when the caller has set the threshold.
    static func environment(_ format: AnimationFormat, pixels: Int, inherited: [String: String]) -> [String: String]? {
        guard format == .webm, pixels > fixedMmapThresholdPixels, inherited["MALLOC_MMAP_THRESHOLD_"] == nil else {
            return nil
        }
        var environment = inherited
        environment["MALLOC_MMAP_THRESHOLD_"] = "131072"
        return environment
    }

    /// Refuses a frame size whose encoding would take ffmpeg well over its budget (1 GB; WebM's 1.5).
    static func checkMemory(_ format: AnimationFormat, width: Int, height: Int) throws(MercurialError) {
        guard let limit = maximumPixels(format), width * height > limit.pixels else { return }
        let gigabytes = Double(width * height * limit.bytesPerPixel) / 1e9
        let other = format == .webm ? ".mov (ProRes 4444, up to 20 M pixels)" : ".mov with --codec qtrle (any frame size)"
        throw MercurialError.limit("\(format) at \(width)×\(height) would take ffmpeg about \(String(cFormat: "%.1f", gigabytes)) GB; it may have at most \(limit.pixels / 1_000_000) M pixels (e.g. \(limit.example)) to stay near \(formatNumber(limit.gigabytes)) GB: use a smaller canvas, \(other) or .png (APNG)")
    }

    /// Refuses an odd width or height for H.264, whose 4:2:0 colour is stored per 2×2 block
    /// (libx264 fails on one with an opaque "Error while opening encoder").
    static func checkEvenSize(_ format: AnimationFormat, width: Int, height: Int) throws(MercurialError) {
        guard format == .mp4, !width.isMultiple(of: 2) || !height.isMultiple(of: 2) else { return }
        let even = "\(width + width % 2)×\(height + height % 2)"
        throw MercurialError("\(format) stores colour at half resolution (4:2:0), so its frames need an even width and height, and these are \(width)×\(height); give the scene an even \"width\" and \"height\" (e.g. \(even)), or write .webm or .mov")
    }

    /// An FFMETADATA file giving the output's `comment`: `=`, `;`, `#`, `\` and a
    /// newline are escaped with a backslash.
    static func metadataFile(comment: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(comment.utf8.count + 64)
        for character in comment.unicodeScalars {
            if "=;#\\\n".unicodeScalars.contains(character) { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(character)
        }
        return ";FFMETADATA1\ncomment=" + escaped + "\n"
    }

    init(format: AnimationFormat, path: String, width: Int, height: Int, rate: FrameRate,
         quality: Double = Timeline.defaultQuality, timecode: Timecode? = nil, recipe: String?) throws(MercurialError) {
        try Self.checkMemory(format, width: width, height: height)
        guard let ffmpeg = Self.ffmpegPath() else {
            throw MercurialError.resource("ffmpeg is not installed, and \(format) needs it; install Debian's package: apt-get install ffmpeg (or write .png for an APNG)")
        }
        self.ffmpeg = ffmpeg
        self.format = format
        self.path = path
        file = try OutputFile.Stream(path, namedTemporary: true)
        guard let temporary = file.temporaryPath else {
            file.discard()
            throw MercurialError("\(format) needs a file to write (its container is finished with seeks); give -o a file name such as title\(format == .webm ? ".webm" : format == .mp4 ? ".mp4" : ".mov")")
        }
        rowBytes = width * 4
        self.height = height
        // On failure from here, the scratch files and the output's temporary remove themselves as they go.
        let stem = "mercurial-ffmpeg-\(getpid())-\(UUID().uuidString)"
        log = try ScratchFile(name: stem + ".log")
        var metadataArguments: [String] = []
        if let recipe {
            let scratch = try ScratchFile(name: stem + ".txt")
            var bytes = Array(Self.metadataFile(comment: recipe).utf8)
            let written = bytes.withUnsafeMutableBytes { raw in
                Result { () throws(MercurialError) in
                    try OutputFile.writeAll(UnsafeRawBufferPointer(raw), to: scratch.fd, what: "the video's metadata")
                }
            }
            try written.get()
            metadata = scratch
            // Input 1 has no streams; its global tags become the output's.
            metadataArguments = ["-f", "ffmetadata", "-i", scratch.path, "-map", "0:v", "-map_metadata", "1"]
        } else {
            metadata = nil
        }
        let environment = Self.environment(format, pixels: width * height, inherited: ProcessInfo.processInfo.environment)
        let arguments = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                             "-f", "rawvideo", "-pix_fmt", "rgba", "-s", "\(width)x\(height)", "-r", rate.description,
                             // With a second input, ffmpeg reads each in a thread, queueing 8 frames by default.
                             "-thread_queue_size", "1", "-i", "pipe:0"] + metadataArguments + Self.codecArguments(format, pixels: width * height, quality: quality)
            // QuickTime's timecode track (tmcd) starts at the first frame's timecode.
            + (format.isMov ? ["-timecode", (timecode ?? Timecode.start(at: rate)).description] : []) + [temporary]
        signal(SIGPIPE, SIG_IGN)   // a dying ffmpeg is an EPIPE to report, not a signal
        do throws(ChildProcess.SpawnFailure) {
            process = try ChildProcess(executable: ffmpeg, arguments: arguments, environment: environment, standardError: log.fd)
        } catch {
            Self.removeFiles(file, log, metadata)
            throw MercurialError.resource("cannot start ffmpeg at \(ffmpeg) (\(String(cString: strerror(error.code)))); check the installation")
        }
        input = process.input
        // Writes wait in poll, not in write, so that a stop request is seen within its timeout.
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
    }

    /// Closes our end of ffmpeg's input: it then reads to the end and finishes.
    private func closeInput() {
        guard inputOpen else { return }
        inputOpen = false
        close(input)
    }

    /// Why the write stopped: ffmpeg stopped reading, or the job was stopped (`Cancellation.current`).
    private enum Interruption { case ffmpegGone, stopped(MercurialError) }

    func append(rows: [UnsafePointer<UInt8>]) throws(MercurialError) {
        precondition(rowsWritten + rows.count <= height, "\(rowsWritten + rows.count) rows for a \(height)-row frame")
        // Rows that follow one another in memory go to the pipe in one run.
        var start = 0
        while start < rows.count {
            var end = start + 1
            while end < rows.count && rows[end] == rows[end - 1] + rowBytes { end += 1 }
            try send(UnsafeRawBufferPointer(start: rows[start], count: (end - start) * rowBytes))
            start = end
        }
        rowsWritten += rows.count
    }

    func endFrame() throws(MercurialError) {
        precondition(rowsWritten == height, "\(rowsWritten) of \(height) rows before the end of a frame")
        rowsWritten = 0
    }

    private func send(_ raw: UnsafeRawBufferPointer) throws(MercurialError) {
        let fd = input
        let cancellation = Cancellation.current
        let interruption = { () -> Interruption? in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n; continue }
                let code = n < 0 ? errno : EIO
                guard code == EAGAIN || code == EINTR else { return .ffmpegGone }
                // A stalled ffmpeg keeps the pipe full; a stop (a signal) between this check
                // and the poll is seen when the poll times out.
                if let stop = cancellation.stopError { return .stopped(stop) }
                var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiting, 1, 100)
            }
            return nil
        }()
        switch interruption {
        case nil:
            return
        case .stopped(let stop):
            discard()
            throw stop
        case .ffmpegGone:
            closeInput()
            if let stop = waitForExit() {
                discard()
                throw stop
            }
            let failure = failure()
            discard()
            throw failure
        }
    }

    func finish() throws(MercurialError) {
        closeInput()
        if let stop = waitForExit() {
            discard()
            throw stop
        }
        // ffmpeg 5.1 exits 0 when it cannot finish the file ("Error writing trailer of …:
        // File too large"), so its log is read too.
        guard process.termination == .exit(0),
              !(ffmpegError().map(Self.isWriteFailure) ?? false) else {
            let failure = failure()
            discard()
            throw failure
        }
        if let temporary = file.temporaryPath, let problem = Self.containerProblem(at: temporary, format: format) {
            discard()
            throw MercurialError.resource("ffmpeg at '\(UserPath(checked: ffmpeg))' reported success but \(problem); check that it is Debian's ffmpeg (apt-get install --reinstall ffmpeg)")
        }
        removeFiles(keepingOutput: true)
        try file.commit()
    }

    func discard() {
        closeInput()
        if process.isRunning {
            // Nothing it writes is kept, so there is no trailer to wait for.
            kill(process.pid, SIGKILL)
            process.waitUntilExit()
        }
        removeFiles()
    }

    /// Removes the log and the metadata file, and the output unless it is to be kept.
    private func removeFiles(keepingOutput: Bool = false) {
        Self.removeFiles(keepingOutput ? nil : file, log, metadata)
    }

    /// The same before the sink is whole (ffmpeg did not start): `output` nil keeps it.
    private static func removeFiles(_ output: OutputFile.Stream?, _ log: ScratchFile, _ metadata: ScratchFile?) {
        output?.discard()
        log.remove()
        metadata?.remove()
    }

    /// Waits for ffmpeg to exit; nil once it has, else the error of the stop that came
    /// first (`Cancellation.current`; ffmpeg's exit status is then not known).
    private func waitForExit() -> MercurialError? {
        let cancellation = Cancellation.current
        while process.isRunning {
            if let stop = cancellation.stopError { return stop }
            usleep(10_000)
        }
        return nil
    }

    /// The error for an ffmpeg that failed: a full file-size limit (`ulimit -f`) is
    /// named as such; otherwise ffmpeg's last error line.
    private func failure() -> MercurialError {
        let line = ffmpegError()
        let tooLarge = process.termination == .signal(SIGXFSZ)
            || line?.contains("File too large") == true
        if tooLarge { return OutputFile.writeError(EFBIG, "'\(UserPath(checked: path))'") }
        if line?.contains("No space left") == true { return OutputFile.writeError(ENOSPC, "'\(UserPath(checked: path))'") }
        if case .signal(let number) = process.termination {
            return MercurialError.resource("ffmpeg failed: it was killed by signal \(number)\(line.map { " (\($0))" } ?? "")")
        }
        let status = if case .exit(let code) = process.termination { code } else { Int32(-1) }
        return MercurialError.resource("ffmpeg failed: \(line ?? "it stopped reading frames (exit status \(status))")")
    }

    /// Whether ffmpeg's error line says the output could not be written whole.
    static func isWriteFailure(_ line: String) -> Bool {
        ["Error writing trailer", "Error closing file", "File too large", "No space left"].contains { line.contains($0) }
    }

    /// Why the file at `path` is not the container of `format`, or nil if it starts as one:
    /// an EBML header for WebM, a QuickTime atom for MOV and MP4.
    static func containerProblem(at path: String, format: AnimationFormat) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return "its output is missing (\(String(cString: strerror(errno))))" }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 12)
        let count = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, 12) }
        guard count > 0 else { return "its output is empty" }
        let valid: Bool
        switch format {
        case .webm:
            valid = count >= 4 && head[0..<4] == [0x1A, 0x45, 0xDF, 0xA3]
        default:
            let atoms: Set<String> = ["ftyp", "moov", "mdat", "wide", "free", "skip"]
            valid = count >= 8 && atoms.contains(String(decoding: head[4..<8], as: UTF8.self))
        }
        return valid ? nil : "its output is not \(format)"
    }

    /// ffmpeg's last error line, escaped, or nil.
    private func ffmpegError() -> String? {
        let text = String(decoding: log.tail(65_536), as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        return lines.last.map { line in
            var out = ""
            for scalar in line.unicodeScalars.prefix(300) {
                out += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
            }
            return out
        }
    }

    deinit {
        if process.isRunning { discard() }
        closeInput()
    }
}

/// A private file in the temporary folder for a child process: unnamed where the file
/// system allows (`O_TMPFILE`), so that nothing is left however this process ends, and
/// opened by the child through `/proc/PID/fd/N`; else named (mode 0600) and removed by
/// `remove()` or at the end of its life.
final class ScratchFile {
    let fd: Int32
    /// A path that opens the file while this process lives.
    let path: String
    private let named: Bool
    private var removed = false

    init(name: String) throws(MercurialError) {
        let folder = FileManager.default.temporaryDirectory.path
        var fd = open(folder, OutputFile.oTmpFile | O_RDWR | O_CLOEXEC, 0o600)
        if fd >= 0 {
            path = "/proc/\(getpid())/fd/\(fd)"
            named = false
        } else {
            path = folder + "/" + name
            fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else {
                throw MercurialError.resource("cannot create a temporary file in '\(UserPath(checked: folder))' (\(String(cString: strerror(errno)))); set TMPDIR to a writable folder")
            }
            named = true
        }
        self.fd = fd
    }

    /// The file's last `limit` bytes.
    func tail(_ limit: Int) -> [UInt8] {
        guard !removed else { return [] }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return [] }
        let start = max(0, Int(info.st_size) - limit)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) - start)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(start)) }
        return Array(bytes.prefix(max(0, count)))
    }

    func remove() {
        guard !removed else { return }
        removed = true
        close(fd)
        if named { unlink(path) }
    }

    deinit { remove() }
}
