import CKernels

/// How a rendering process uses malloc.
public enum ProcessMemory {
    /// glibc's malloc maps each block over 128 KB afresh until its first free, and gives
    /// heap memory back to the system past 128 KB of free top: a render's planes of a few
    /// MB were faulted in anew for each stage. Kept in the heap up to 32 MB, with up to
    /// 64 MB of free top kept, a freed plane is reused: a 1080p title's page faults 3,860
    /// → 3,090 and its time 0.92× (peak memory 33 → 35 MiB); an animation, whose frames
    /// already reused theirs, is unchanged. Larger blocks (4K planes) are mapped and
    /// unmapped as before.
    public static func keepFreedBlocksForReuse() {
        _ = mercurial_keep_freed_blocks(32 << 20, 64 << 20)
    }
}
