// libFuzzer target `card`: a request to `mercurial serve`, as the server reads it.
//
// The input's first line is a query string, read as GET /v1/render reads it
// (CardSignature.parameters: percent-decoding; the canonical form a signature
// covers; CardRequest(query:): the material, canvas and layers first, every other
// key as --set; the names-only rules), the rest a POST body read as a scene
// (CardRequest(json:)). Each card's identity is computed and its canvas planned
// (TitleRenderer.plannedSize, the server's pixel check). Errors are expected;
// crashes, leaks, hangs and memory blow-ups are findings. Nothing is rendered.

@testable import MercurialKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzSample()
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let newline = bytes.firstIndex(of: 10) ?? bytes.count
    let query = String(decoding: bytes[..<newline], as: UTF8.self)
    let body = newline < bytes.count ? Array(bytes[(newline + 1)...]) : []
    let encoding = StillEncoding(format: .png)
    do {
        let parameters = try CardSignature.parameters(query)
        _ = try CardSignature.sign(parameters, key: Array("0123456789abcdef".utf8))
        let card = try CardRequest(query: parameters, encoding: encoding)
        _ = card.identity(withRecipe: false)
        if card.settings.layers.isEmpty { _ = try TitleRenderer.plannedSize(card.settings) }
    } catch {
        if fuzzVerbose { print("fuzz: query error:", error.message) }
    }
    guard !body.isEmpty else { return 0 }
    do {
        let card = try CardRequest(json: body, encoding: encoding)
        _ = card.identity(withRecipe: true)
        if card.settings.layers.isEmpty { _ = try TitleRenderer.plannedSize(card.settings) }
    } catch {
        if fuzzVerbose { print("fuzz: body error:", error.message) }
    }
    return 0
}
