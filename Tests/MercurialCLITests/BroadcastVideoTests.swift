import Foundation
import Testing
@testable import MercurialKit
import MercurialTestSupport

/// Video an HD editor takes as it is (issue 21, item 5): BT.709 conversion and tags, exact
/// NTSC rates, and `--quality` for the lossy codecs; checked with ffprobe and ffmpeg.
@Suite(.serialized) struct BroadcastVideoTests {
    static let deadline: Duration = .seconds(120)

    /// Gold over a gradient (every channel matters) at 29.97 frames a second.
    static let scene = """
    {"text": "Gold", "material": "gold", "size": 60, "width": 320, "height": 120,
     "backgroundGradient": {"colors": ["#1a0f3a", "#b4541a", "#f2c14e"], "startPoint": [0, 0], "endPoint": [1, 1]},
     "animation": {"duration": 0.2, "fps": 29.97, "tracks": {"light1.x": [{"t": 0, "value": -8}, {"t": 0.2, "value": 8}]}}}
    """

    func animate(_ output: String, _ extra: [String] = [], in dir: URL) async throws {
        try Data(Self.scene.utf8).write(to: dir.appendingPathComponent("s.json"))
        let r = try await CLI.run(["animate", "s.json", "-o", output, "-q"] + extra, in: dir, timeout: Self.deadline)
        #expect(r.termination == .exit && r.status == 0 && r.stderr.isEmpty, "\(r)")
    }

    @Test(arguments: ["t.mov", "t.webm", "t.mp4"])
    func videoIsTaggedBT709AtAnExactRate(_ name: String) async throws {
        try await CLI.withTemporaryDirectory { dir in
            try await animate(name, in: dir)
            let info = try probe(dir.appendingPathComponent(name).path)
            #expect(info["color_primaries"] == "bt709" && info["color_transfer"] == "bt709" && info["color_space"] == "bt709"
                    && info["color_range"] == "tv", "\(info)")
            #expect(info["r_frame_rate"] == "30000/1001" && info["nb_read_frames"] == "6", "\(info)")
        }
    }

    /// `--fps` and `--duration` in timecode: 150 frames at 30000/1001, and a start timecode in the
    /// .mov (drop-frame by default at 29.97; `--timecode` sets it); bad flags are one error line.
    @Test func fpsDurationAndTimecodeFromTheCommandLine() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(#"{"text": "TC", "size": 30, "width": 160, "height": 64}"#.utf8).write(to: dir.appendingPathComponent("s.json"))
            let r = try await CLI.run(["animate", "s.json", "--fps", "29.97", "--duration", "00:00:05:00", "-o", "t.mov", "-q"],
                                      in: dir, timeout: Self.deadline)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
            let info = try probe(dir.appendingPathComponent("t.mov").path)
            #expect(info["nb_read_frames"] == "150" && info["r_frame_rate"] == "30000/1001", "\(info)")
            #expect(try timecodes(dir.appendingPathComponent("t.mov").path).contains("00:00:00;00"))
            let pal = try await CLI.run(["animate", "s.json", "--fps", "25", "--duration", "10f", "--timecode", "01:00:00:00",
                                         "-o", "p.mov", "-q"], in: dir, timeout: Self.deadline)
            #expect(pal.status == 0, "\(pal)")
            #expect(try probe(dir.appendingPathComponent("p.mov").path)["nb_read_frames"] == "10")
            #expect(try timecodes(dir.appendingPathComponent("p.mov").path).contains("01:00:00:00"))
            for (flags, says) in [(["--duration", "5x"], "error: --duration: '5x' is no time"),
                                  (["--duration", "1s", "--timecode", "25:00"], "error: --timecode '25:00' is no timecode"),
                                  (["--duration", "1s", "--fps", "29.971234567"], "error: --fps 29.971234567 has more digits"),
                                  (["--duration", "1s", "--fps", "25", "--timecode", "00:00:00;00"], "only 29.97 and 59.94")] {
                let bad = try await CLI.run(["animate", "s.json", "-o", "b.mov"] + flags, in: dir, timeout: Self.deadline)
                #expect(bad.status != 0 && bad.stderrLines.count == 1 && bad.stderr.contains(says), "\(flags): \(bad)")
                #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("b.mov").path))
            }
        }
    }

    /// `--prores`: 4444 XQ keeps the alpha at the highest rate, 422 HQ is opaque (on black with no
    /// background); `--alpha premultiplied` writes each colour times its alpha (checked exactly on
    /// lossless QuickTime Animation against the PNG frame), and is refused for a form without alpha.
    @Test func proResProfilesAndPremultipliedAlpha() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(#"{"text": "Ab", "material": "gold", "size": 40, "width": 128, "height": 64, "animation": {"duration": 0.1}}"#.utf8)
                .write(to: dir.appendingPathComponent("s.json"))
            for (profile, name, pixelFormat) in [("4444xq", "XQ", "yuva444p12le"), ("422hq", "HQ", "yuv422p10le")] {
                let r = try await CLI.run(["animate", "s.json", "--prores", profile, "-o", "\(profile).mov", "-q"], in: dir, timeout: Self.deadline)
                #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
                let info = try probe(dir.appendingPathComponent("\(profile).mov").path)
                #expect(info["profile"] == name && info["pix_fmt"] == pixelFormat, "\(profile): \(info)")
            }
            for (extra, name) in [(["--alpha", "premultiplied"], "p.mov"), ([], "s.mov")] {
                let r = try await CLI.run(["animate", "s.json", "--codec", "qtrle", "-o", name, "-q"] + extra, in: dir, timeout: Self.deadline)
                #expect(r.status == 0, "\(r)")
            }
            let png = try await CLI.run(["animate", "s.json", "-o", "f-%d.png", "-q"], in: dir, timeout: Self.deadline)
            #expect(png.status == 0)
            let frame = try CLI.readPNG(dir.appendingPathComponent("f-0.png"))
            let premultiplied = try decodedFirstFrame(dir.appendingPathComponent("p.mov").path, filter: "null")
            let straight = try decodedFirstFrame(dir.appendingPathComponent("s.mov").path, filter: "null")
            try #require(premultiplied.count == frame.width * frame.height * 4 && straight.count == premultiplied.count)
            var (edges, differing) = (0, 0)
            for (i, p) in frame.pixels.enumerated() {
                let a = UInt32(p.a)
                let expected = [p.r, p.g, p.b].map { UInt8((UInt32($0) * a + 127) / 255) } + [p.a]
                if Array(premultiplied[(4 * i)..<(4 * i + 4)]) != expected { differing += 1 }
                if p.a > 0 && p.a < 255 { edges += 1 }
            }
            #expect(differing == 0, "\(differing) pixels are not the PNG's colour times its alpha")
            #expect(edges > 50 && straight != premultiplied, "\(edges) edge pixels")
            let bad = try await CLI.run(["animate", "s.json", "--alpha", "premultiplied", "-o", "b.mp4"], in: dir, timeout: Self.deadline)
            #expect(bad.status != 0 && bad.stderrLines == ["error: MP4 (H.264) has no alpha, so premultiplied alpha changes nothing; leave out --alpha premultiplied, or write .mov (ProRes 4444), .webm or .png"], "\(bad)")
        }
    }

    /// QuickTime Animation stays RGB: BT.709 primaries and transfer, an RGB matrix.
    @Test func qtrleIsTaggedAsRGB() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try await animate("t.mov", ["--codec", "qtrle"], in: dir)
            let info = try probe(dir.appendingPathComponent("t.mov").path)
            #expect(info["codec_name"] == "qtrle" && info["color_primaries"] == "bt709" && info["color_transfer"] == "bt709"
                    && info["color_space"] == "gbr" && info["r_frame_rate"] == "30000/1001", "\(info)")
        }
    }

    /// A ProRes frame decoded as BT.709 (limited range) gives back the PNG frame: a mean
    /// difference under 1 level a channel (0.02 measured; 5.7, 3.0 and 4.0 with ffmpeg's
    /// default BT.601 conversion).
    @Test func proResDecodedAsBT709MatchesThePNG() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try await animate("t.mov", in: dir)
            try await animate("f-%d.png", in: dir)
            let png = try CLI.readPNG(dir.appendingPathComponent("f-0.png"))
            let video = try decodedFirstFrame(dir.appendingPathComponent("t.mov").path,
                                              filter: "scale=in_color_matrix=bt709:in_range=tv")
            try #require(video.count == png.width * png.height * 4, "decoded \(video.count) bytes")
            var sums = [Double](repeating: 0, count: 4)
            for (i, pixel) in png.pixels.enumerated() {
                let expected = [pixel.r, pixel.g, pixel.b, pixel.a]
                for c in 0..<4 { sums[c] += abs(Double(video[i * 4 + c]) - Double(expected[c])) }
            }
            let means = sums.map { $0 / Double(png.pixels.count) }
            #expect(means.allSatisfy { $0 < 1 }, "mean difference R, G, B, A: \(means)")
        }
    }

    /// An APNG at 29.97 waits 1001/30000 s a frame.
    @Test func apngDelayIsExact() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try await animate("t.png", in: dir)
            let bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent("t.png")))
            let controls = PNGFile.chunks(of: bytes).chunks.filter { $0.type == "fcTL" }
            try #require(controls.count == 6)
            for control in controls {
                let data = Array(control.data)
                let numerator = Int(data[20]) << 8 | Int(data[21]), denominator = Int(data[22]) << 8 | Int(data[23])
                #expect(numerator == 1001 && denominator == 30000, "\(numerator)/\(denominator)")
            }
        }
    }

    /// Higher quality, larger file; no flag is quality 50, the old output.
    @Test(arguments: ["webm", "mp4"])
    func qualityChangesTheSizeMonotonically(_ ext: String) async throws {
        try await CLI.withTemporaryDirectory { dir in
            var sizes: [Int] = []
            for quality in [10, 50, 90] {
                try await animate("q\(quality).\(ext)", ["--quality", String(quality)], in: dir)
                sizes.append(try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("q\(quality).\(ext)").path)[.size] as? Int ?? 0)
            }
            #expect(sizes[0] > 0 && sizes[0] < sizes[1] && sizes[1] < sizes[2], "\(ext) at quality 10, 50, 90: \(sizes)")
            try await animate("default.\(ext)", in: dir)
            let plain = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("default.\(ext)").path)[.size] as? Int
            #expect(plain == sizes[1], "no --quality is quality 50")
        }
    }

    /// `--quality` on a lossless form is a warning, not silence.
    @Test func qualityOnProResWarns() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(Self.scene.utf8).write(to: dir.appendingPathComponent("s.json"))
            let r = try await CLI.run(["animate", "s.json", "-o", "t.mov", "-q", "--quality", "80"], in: dir, timeout: Self.deadline)
            #expect(r.status == 0 && r.stderr.hasPrefix("warning: --quality sets the quality of .webm and .mp4"), "\(r)")
        }
    }
}
