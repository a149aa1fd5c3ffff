// libFuzzer target `batch`: a batch file, as `mercurial batch` reads one.
//
// The input's first byte chooses the form (even: CSV, odd: JSON Lines); the rest
// is written to a scratch file and read with BatchFile (the header's columns,
// the counting pass, then each row streamed: CSV records with quotes across lines,
// a byte-order mark, invalid UTF-8 refused by line; JSON Lines' scene objects),
// each row applied to the base settings as batch does (`settings(for:base:)`),
// checked with TitleRenderer.validate, and named from a template that uses the
// row, a parameter and every column that is not one. Errors are expected;
// crashes, leaks and hangs are findings. Nothing is rendered.

@testable import MercurialKit

let batchCSV = fuzzScratchFolder + "/batch.csv"
let batchJSONL = fuzzScratchFolder + "/batch.jsonl"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzSample()
    guard size > 0 else { return 0 }
    let path = data[0] % 2 == 0 ? batchCSV : batchJSONL
    writeFuzzInput(data + 1, size - 1, to: path)
    do {
        let file = try BatchFile(path: path)
        let others = file.columns.filter { !$0.isParameter }.map { "{\($0.name)}" }.joined()
        let template = "{row}-{text}" + others
        let rows = try file.rows()
        while let row = try rows.next() {
            do {
                let settings = try file.settings(for: row, base: RenderSettings())
                try TitleRenderer.validate(settings)
                _ = BatchFile.name(template, row: row.index, rows: file.rowCount, settings: settings,
                                   other: file.otherColumns(of: row))
            } catch {
                if fuzzVerbose { print("fuzz: row \(row.line): error:", error.message) }
            }
        }
    } catch {
        if fuzzVerbose { print("fuzz: error:", error.message) }
    }
    return 0
}
