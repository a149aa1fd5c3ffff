// libFuzzer target `png`: a PNG used as a mask (--mask) and as a shading
// image (--shading-image).
//
// PNGFile.decode (libpng's simplified API), then on success what the renderer
// does with the image short of the slow stages: TitleRenderer.coverage(of:),
// the mask's ink bounds and the crop to them, and ShadingLookup with a few
// lookups. Errors are expected; crashes, leaks and hangs are findings.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let image: Image<RGBA8>
    do {
        image = try PNGFile.decode(bytes, name: "fuzz.png", role: "mask")
    } catch {
        _ = error.message
        return 0
    }
    // As a mask.
    let mask = TitleRenderer.coverage(of: image)
    if let ink = mask.inkBounds(threshold: 0) {
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
    return 0
}
