import Foundation

/// Median of a non-empty sample (upper median for even counts).
public func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? .nan : s[s.count / 2]
}

/// Geometric mean of positive values.
public func geometricMean(_ xs: [Double]) -> Double {
    exp(xs.map { log($0) }.reduce(0, +) / Double(xs.count))
}

/// Resident set size of this process, bytes (from /proc/self/statm).
public func residentBytes() -> Int {
    guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let f = s.split(separator: " ")
    return f.count > 1 ? (Int(f[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

/// Peak resident set size so far, bytes (VmHWM from /proc/self/status).
public func peakResidentBytes() -> Int {
    guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in s.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

/// Formats a number with thousands separators.
public func grouped(_ x: Int) -> String {
    let s = String(x.magnitude)
    var out = ""
    for (i, ch) in s.enumerated() {
        if i > 0, (s.count - i) % 3 == 0 { out.append(",") }
        out.append(ch)
    }
    return (x < 0 ? "-" : "") + out
}

/// `String(format:)` shorthand.
public func f(_ x: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", x) }
