@_spi(StreamFastPath) @_spi(Engine) import TriggerKit
/// Why a state file could not be opened, read or written. Every failure of ``StateStore``
/// is one of these, so a bad `--state` argument gives a message, never a crash.
public enum StateStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but is not a TriggerKit state file: not SQLite at all (a text file),
    /// or an SQLite database made by another application.
    case notAStore(path: String)
    /// The file was written by a newer TriggerKit whose schema this build does not know.
    case newerSchema(path: String, version: Int, supported: Int)
    /// The state was saved with other requests than the ones given now.
    case requestsChanged(path: String)
    /// The file could not be opened or created (missing directory, permissions, ...).
    case cannotOpen(path: String, reason: String)
    /// SQLite failed while reading or writing an open store (disk full, I/O error, ...).
    case database(path: String, reason: String)
    /// Another `run` holds the store (one writer at a time); `holder` is what it recorded.
    case locked(path: String, holder: String)
    /// A resumed run's input does not begin with the input the saved state already consumed.
    case inputChanged(path: String, reason: String)
    /// A resumed run was given other result-changing options than the saved run.
    case optionsChanged(path: String, differences: [String])
    /// An argument out of its range (a prune date that is NaN or outside years 1-9999).
    case invalidArgument(path: String, reason: String)

    public var description: String {
        switch self {
        case .notAStore(let path):
            "\(path): not a TriggerKit state file (refusing to touch it)"
        case .newerSchema(let path, let version, let supported):
            version > supported
                ? "\(path): state file has schema version \(version); this build supports up to \(supported)"
                : "\(path): state file was changed by a newer build (its migrations are not all known to this one, which supports up to schema version \(supported))"
        case .requestsChanged(let path):
            "\(path): the saved state was made with different requests (use a new state file, or the same requests)"
        case .cannotOpen(let path, let reason):
            "\(path): cannot open state file: \(reason)"
        case .database(let path, let reason):
            "\(path): state file error: \(reason)"
        case .locked(let path, let holder):
            "\(path): state file is in use by another run (\(holder)); one run at a time"
        case .inputChanged(let path, let reason):
            "\(path): the input does not begin with the input this state already consumed (\(reason)); give the same input, or use a new state file"
        case .invalidArgument(let path, let reason):
            "\(path): \(reason)"
        case .optionsChanged(let path, let differences):
            "\(path): the saved run used other options: \(differences.joined(separator: ", ")); give the same options, or use a new state file"
        }
    }
}
