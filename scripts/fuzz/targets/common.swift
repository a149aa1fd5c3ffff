// Shared helpers for the libFuzzer targets in this folder. Compiled into each
// target's binary together with Sources/MercurialKit/*.swift (one module), so
// the targets can call the library's internal API as the renderer does.
#if canImport(Glibc)
import Glibc
#endif

/// A per-process scratch folder in /dev/shm (RAM), so parallel fuzzers
/// (-jobs/-workers) never share a file. Removed by nothing: it is a few KB.
let fuzzScratchFolder: String = {
    let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    let folder = "\(base)/mercurial-fuzz-\(getpid())"
    mkdir(folder, 0o700)
    return folder
}()

/// Writes `size` bytes at `data` to `path` (replacing it); traps if that fails,
/// since a fuzz run that cannot write its input tests nothing.
func writeFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int, to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot create \(path)")
    var written = 0
    while written < size {
        let n = write(fd, data + written, size - written)
        if n < 0 && errno == EINTR { continue }
        precondition(n > 0, "cannot write \(path)")
        written += n
    }
    close(fd)
}
