import CFileGuard
import Foundation

/// A regular file mapped read-only: the parser reads the page cache in place instead of a
/// copy (a 257 MB file was 257 MB of fresh memory, each page zeroed then filled). Decoded
/// requests copy what they keep, so the mapping ends with the parse. `nil` for anything
/// that is not a non-empty regular file (a pipe, a device, a directory: read as before).
///
/// Another process may shrink or rewrite the file while it is read (`cp` over it truncates
/// it first). A read past the file's new end would raise SIGBUS and end the process; while
/// the file is mapped, such a read sees zeros instead (`CFileGuard`), and ``finish()`` says
/// the file changed, as it does when the file's size or modification time moved.
struct MappedFile {
    let bytes: UnsafeBufferPointer<UInt8>
    private let fd: Int32
    private let guardSlot: Int32
    private let before: stat

    init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0, st.st_size < Int.max / 2 else {
            close(fd)
            return nil
        }
        let size = Int(st.st_size)
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            close(fd)
            return nil
        }
        let slot = tk_file_guard_begin(base, size)
        guard slot >= 0 else {
            // Every guard in use (or no handler): read the file instead.
            munmap(base, size)
            close(fd)
            return nil
        }
        // Read front to back, once.
        _ = madvise(base, size, MADV_SEQUENTIAL)
        bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size)
        self.fd = fd
        guardSlot = slot
        before = st
    }

    /// Ends the mapping. Returns false when the file changed while it was mapped: a read
    /// past its new end (which saw zeros), or a size or modification time other than at
    /// the start. What was read from it must then be discarded.
    /// A stat's modification time (seconds, nanoseconds), as Linux and Darwin name it.
    private static func modified(_ s: stat) -> [Int] {
        #if canImport(Darwin)
        [Int(s.st_mtimespec.tv_sec), Int(s.st_mtimespec.tv_nsec)]
        #else
        [Int(s.st_mtim.tv_sec), Int(s.st_mtim.tv_nsec)]
        #endif
    }

    func finish() -> Bool {
        let faulted = tk_file_guard_end(guardSlot) != 0
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
        var after = stat()
        let same = fstat(fd, &after) == 0 && after.st_size == before.st_size
            && Self.modified(after) == Self.modified(before)
        close(fd)
        return !faulted && same
    }
}
