import Foundation

/// Reading a whole input file named on the command line: a regular file, or anything else
/// that can be read to its end (`/dev/stdin`, a named pipe, a shell's `<(...)`), opened once.
/// `Data(contentsOf:)` refused those ("You don't have permission") and said "error 256" of a
/// directory.
package enum InputFile {
    /// Whether `path` names a regular file (following symbolic links), without opening it (a
    /// named pipe opened and closed unread could lose what its writer had sent).
    package static func isRegular(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// The whole content of `path`, or why it cannot be read, as a person reads it
    /// ("no such file or directory", "is a directory", "permission denied").
    package static func contents(of path: String) -> Result<Data, InputFileError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(InputFileError(reason: String(cString: strerror(errno)).lowercased())) }
        defer { close(fd) }
        return contents(ofDescriptor: fd)
    }

    /// The whole content of open descriptor `fd` (standard input is 0), or why it cannot be
    /// read: a directory, a closed descriptor ("bad file descriptor"), an I/O error.
    /// (`FileHandle.readDataToEndOfFile` trapped on those: `--requests - < dir`, a helper's find.)
    package static func contents(ofDescriptor fd: Int32) -> Result<Data, InputFileError> {
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { return .failure(InputFileError(reason: "is a directory")) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                data.append(contentsOf: buffer[0..<n])
            } else if n == 0 {
                return .success(data)
            } else if errno != EINTR {
                return .failure(InputFileError(reason: String(cString: strerror(errno)).lowercased()))
            }
        }
    }
}

/// Why an input file could not be read.
package struct InputFileError: Error, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
}
