import Foundation
import Testing
@testable import MercurialKit

/// One error type with a kind, from which the front ends take their statuses (issue 32, item 7).
@Suite struct MercurialErrorTests {
    /// Each kind has its own exit status, none of them 0 or ArgumentParser's 64, and an HTTP status
    /// of the 4xx class for what the request asked for, the 5xx class otherwise.
    @Test func eachKindHasItsOwnStatuses() {
        let statuses = MercurialError.Kind.allCases.map(\.exitStatus)
        #expect(Set(statuses).count == statuses.count && !statuses.contains(0) && !statuses.contains(64))
        #expect(MercurialError.Kind.allCases.filter { (400..<500).contains($0.httpStatus) } == [.input, .limit])
        #expect(MercurialError.Kind.allCases.filter { (500..<600).contains($0.httpStatus) } == [.resource, .internal])
    }

    /// Context put in front of a message keeps the kind: a limit met inside a layer or a scene file
    /// is still a limit.
    @Test func contextKeepsTheKind() {
        let inner = MercurialError.limit("at most 64 M values")
        let outer = inner.within("layer 2").within("scene.json:3:5")
        #expect(outer.kind == .limit && outer.message == "scene.json:3:5: layer 2: at most 64 M values")
    }

    /// A failed system call is the machine's when it ran out of something, else the path's.
    @Test func anErrnoSaysWhose() {
        for code in [ENOSPC, EDQUOT, EIO, EMFILE, ENOMEM, EPIPE] {
            #expect(MercurialError("x", errno: code).kind == .resource, "\(code)")
        }
        for code in [ENOENT, ENOTDIR, EACCES, EISDIR, ELOOP, ENAMETOOLONG] {
            #expect(MercurialError("x", errno: code).kind == .input, "\(code)")
        }
    }

    /// The library's limits say so: a canvas over the frame limit is a limit, a bad value is input,
    /// a full disk is the machine's.
    @Test func theLibraryThrowsEachKind() {
        #expect(throws: MercurialError.limit("canvas is 20000×10 pixels, over the limit of 16384 px a side and 256 M pixels; use a smaller size")) {
            try PNGFile.checkCanvas(width: 20_000, height: 10, what: "canvas")
        }
        #expect(throws: MercurialError("canvas has size 0×10; width and height must be at least 1 pixel")) {
            try PNGFile.checkCanvas(width: 0, height: 10, what: "canvas")
        }
        #expect(OutputFile.writeError(ENOSPC, "'/dev/full'").kind == .resource)
    }
}
