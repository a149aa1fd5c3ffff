// libFuzzer target `editor`: a message from the live editor's page, as the server
// decodes it (`EditorMessage`, the same code a POST /api/set body and a socket's
// text message go through): the JSON object, an acknowledgement `{"have": F}`, or
// changes `{"changes": [{"key", "value"}, …], "tag"}` / `{"key", "value"}`; each
// decoded change is then parsed as its parameter's value, as the session does before
// applying it. Errors are expected; crashes, leaks and hangs are findings. The
// session (an actor that renders) and the HTTP/WebSocket layers (SwiftNIO) are not
// compiled in: the server's own limits (frame and message sizes, head deadlines)
// are tested against the running server in EditorLimitTests.

@testable import MercurialKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzSample()
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch EditorMessage.members(bytes) {
    case .failure(let invalid):
        if fuzzVerbose { print("fuzz: invalid:", invalid.message) }
    case .success(let members):
        if let have = EditorMessage.have(members) {
            if fuzzVerbose { print("fuzz: have:", have) }
            return 0
        }
        switch EditorMessage.changes(members) {
        case .failure(let invalid):
            if fuzzVerbose { print("fuzz: invalid:", invalid.message) }
        case .success(let (changes, tag)):
            var settings = RenderSettings()
            for change in changes {
                do {
                    let parameter = try ParameterGroup.parameter(forKey: change.key)
                    let value = try parameter.parse(change.value, culprit: "\(parameter.key) = '\(change.value)'")
                    if case .text = value, parameter.kind == .path || parameter.kind == .font { continue }
                    try settings.set(parameter, to: value)
                } catch {
                    if fuzzVerbose { print("fuzz: change \(change.key): error:", error.message) }
                }
            }
            _ = tag
        }
    }
    return 0
}
