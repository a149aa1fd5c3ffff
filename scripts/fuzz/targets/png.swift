// libFuzzer target `png`: a PNG used as a mask (--mask) and as a shading
// image (--shading-image).
//
// PNGFile.decode (libpng's simplified API), then on success what the renderer
// does with the image short of the slow stages: TitleRenderer.coverage(of:),
// the mask's ink bounds and the crop to them, and ShadingLookup with a few
// lookups. Errors are expected; crashes, leaks and hangs are findings.
//
// Before decoding, every complete chunk's CRC is set right (see withChunkCRCsFixed),
// so that mutated chunks reach libpng's parsers instead of its CRC check.
// MERCURIAL_FUZZ_DUMP=FILE writes the bytes actually decoded to FILE.

@testable import MercurialKit

import CPNGWriter
#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzSample()
    let bytes = withChunkCRCsFixed(Array(UnsafeBufferPointer(start: data, count: size)))
    if let dump = getenv("MERCURIAL_FUZZ_DUMP") {
        bytes.withUnsafeBufferPointer { writeFuzzInput($0.baseAddress!, $0.count, to: String(cString: dump)) }
    }
    let image: Image<RGBA8>
    do {
        image = try PNGFile.decode(bytes, name: "fuzz.png", role: "mask")
    } catch {
        fuzzFeedback(feedbackValue("error", withoutUnknownChunkName(error.message)))
        return 0
    }
    // The encoders: the picture written back, alone and in a taller, wider canvas of
    // one fill (repeated rows, which the fast encoder splices), must make a zlib stream
    // that inflates strictly to every row and decodes to the same pixels.
    if image.width * image.height <= 1 << 16 {
        let fill = image.pixels[image.pixels.count / 2]
        let canvases = [CanvasRegion(image, fill: .clear),
                        CanvasRegion(width: image.width + 3, height: image.height + 40, content: image, originX: 2, originY: 21, fill: fill)]
        for canvas in canvases {
            for compression in PNGFile.Compression.allCases {
                guard let png = try? PNGSink(compression: compression).encode(canvas) else {
                    fatalError("the \(compression) encoder failed on a \(canvas.width)×\(canvas.height) canvas")
                }
                let inflated = PNGFile.strictlyInflatedImageData(png)?.count
                guard inflated == canvas.height * (canvas.width * 4 + 1) else {
                    fatalError("the \(compression) encoder's stream for \(canvas.width)×\(canvas.height) inflates to \(inflated.map(String.init) ?? "an error")")
                }
                guard let back = try? PNGFile.decode(png, name: "re-encoded", role: "fuzz"),
                      back.width == canvas.width, back.height == canvas.height,
                      (0..<canvas.height).allSatisfy({ y in
                          (0..<canvas.width).allSatisfy { x in
                              let inside = x >= 2 && y >= 21 && x < 2 + image.width && y < 21 + image.height
                              let expected = canvas.width == image.width ? image[x, y] : inside ? image[x - 2, y - 21] : fill
                              return back[x, y] == expected
                          }
                      }) else {
                    fatalError("the \(compression) encoder changed the pixels of a \(canvas.width)×\(canvas.height) canvas")
                }
            }
        }
    }
    // As a mask.
    let mask = TitleRenderer.coverage(of: image)
    let ink = mask.inkBounds(threshold: 0)
    if let ink {
        let margin = 14
        let x0 = max(ink.minX - margin, 0), y0 = max(ink.minY - margin, 0)
        _ = mask.cropped(x: x0, y: y0, width: min(ink.maxX + margin, mask.width - 1) - x0 + 1,
                         height: min(ink.maxY + margin, mask.height - 1) - y0 + 1)
    }
    // As a shading image.
    let shading = ShadingLookup(image)
    for (nx, ny) in [(Float(0), Float(0)), (1, 0), (0, -1), (-0.7, 0.7), (0.99, 0.99)] {
        _ = shading.color(normalX: nx, normalY: ny)
    }
    fuzzFeedback(feedbackValue("image", sizeClass(image.width), sizeClass(image.height),
                               image.pixels.contains { $0.a < 255 } ? "alpha" : "opaque",
                               ink == nil ? "blank" : "ink"))
    return 0
}

/// libpng starts a chunk's error with the chunk's name, in which a damaged file
/// has any 4 bytes: keep the names of real chunk types only, so that every
/// random name is not a new "path" to the fuzzer.
func withoutUnknownChunkName(_ message: String) -> String {
    guard let open = message.firstIndex(of: "("),
          let colon = message[open...].firstRange(of: ": ") else { return message }
    let name = message[message.index(after: open)..<colon.lowerBound]
    var general = message
    general.replaceSubrange(message.index(after: open)..<colon.lowerBound, with: "chunk")
    return knownChunks.contains(String(name)) ? message : general
}

let knownChunks: Set<String> = [
    "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "cICP", "mDCV",
    "cLLI", "tEXt", "zTXt", "iTXt", "bKGD", "hIST", "pHYs", "sPLT", "eXIf", "tIME", "oFFs", "pCAL",
    "sCAL", "acTL", "fcTL", "fdAT",
]

/// `bytes` with the CRC of every complete chunk after the signature recomputed.
func withChunkCRCsFixed(_ bytes: [UInt8]) -> [UInt8] {
    var out = bytes
    var offset = 8
    while offset + 12 <= out.count {
        let length = Int(out[offset]) << 24 | Int(out[offset + 1]) << 16 | Int(out[offset + 2]) << 8 | Int(out[offset + 3])
        let end = offset + 8 + length   // where the CRC starts
        guard length <= 0x7fff_ffff, end + 4 <= out.count else { break }
        let crc = out.withUnsafeBufferPointer { mercurial_crc32(0, $0.baseAddress! + offset + 4, 4 + length) }
        out[end] = UInt8(crc >> 24)
        out[end + 1] = UInt8((crc >> 16) & 0xff)
        out[end + 2] = UInt8((crc >> 8) & 0xff)
        out[end + 3] = UInt8(crc & 0xff)
        offset = end + 4
    }
    return out
}
