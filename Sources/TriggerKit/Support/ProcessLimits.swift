#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The process limits behind a file error SQLite reports only as `disk I/O error` or
/// `unable to open database file`: the file-size limit (`ulimit -f`: a write past it fails
/// with EFBIG) and the open-file limit (`ulimit -n`: an open fails with EMFILE). The stores'
/// messages append ``hint(ioError:cannotOpen:)`` so that a user sees which limit to raise.
package enum ProcessLimits {
    #if canImport(Glibc)
    private static let fileSize = Int32(RLIMIT_FSIZE.rawValue)
    private static let openFiles = Int32(RLIMIT_NOFILE.rawValue)
    /// `RLIM_INFINITY` (all bits set; Swift does not import the C macro's `-1` cast).
    private static let unlimited = rlim_t.max
    #else
    private static let fileSize = RLIMIT_FSIZE
    private static let openFiles = RLIMIT_NOFILE
    private static let unlimited = RLIM_INFINITY
    #endif

    /// The soft file-size limit in bytes; nil when there is none (or it cannot be read).
    package static var fileSizeLimit: UInt64? {
        var l = rlimit()
        guard getrlimit(fileSize, &l) == 0, l.rlim_cur != unlimited else { return nil }
        return UInt64(l.rlim_cur)
    }

    /// The files this process has open and its soft limit; nil when either cannot be read
    /// (the count is that of `/proc/self/fd` or `/dev/fd`; when no descriptor is left to list
    /// them, every one is counted open).
    package static var openFileUse: (open: Int, limit: Int)? {
        var l = rlimit()
        guard getrlimit(openFiles, &l) == 0, l.rlim_cur != unlimited else { return nil }
        let limit = Int(clamping: l.rlim_cur)
        for dir in ["/proc/self/fd", "/dev/fd"] {
            if let names = try? FileManager.default.contentsOfDirectory(atPath: dir) {
                // (Listing the directory holds one descriptor of its own.)
                return (max(0, names.count - 1), limit)
            }
        }
        // The listing failed: if that is for want of a descriptor, the limit is reached (the
        // hint said nothing exactly when the limit was the cause).
        let probe = open("/dev/null", O_RDONLY)
        if probe >= 0 {
            close(probe)
            return nil
        }
        return errno == EMFILE ? (limit, limit) : nil
    }

    /// What to add to a file error's message: for an I/O error, the file-size limit when
    /// there is one; for an I/O error or a file that cannot be opened, the open files when
    /// they are within 8 of their limit. Empty when no limit is near.
    package static func hint(ioError: Bool, cannotOpen: Bool) -> String {
        var parts: [String] = []
        if ioError, let bytes = fileSizeLimit {
            parts.append("the file-size limit (ulimit -f) is \(bytes) bytes")
        }
        if ioError || cannotOpen, let use = openFileUse, use.open + 8 >= use.limit {
            parts.append("\(use.open) files are open of the open-file limit (ulimit -n) \(use.limit)")
        }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: "; ") + ")"
    }
}
