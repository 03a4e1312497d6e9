/// Reads stream lines: a byte-level fast path for the common shape of a fix
/// (`{"device": "...", "t": "...", "lat": n, "lon": n, "acc": n}`, keys in any order, plain
/// strings and numbers), and the full JSON parser for anything else, so valid JSON is never
/// refused. The fast path costs tens of nanoseconds a line; `JSONDecoder` about 3 us.
@_spi(Engine) public enum StreamLineParser {
    /// Parses one line (without its newline).
    public static func parse(_ b: UnsafeBufferPointer<UInt8>) throws(StreamLineError) -> StreamLine {
        if let fast = fastPath(b) { return fast }
        return try slowPath(b)
    }

    /// Parses one line of text.
    public static func parse(_ text: String) throws(StreamLineError) -> StreamLine {
        var t = text
        let r: Result<StreamLine, StreamLineError> = t.withUTF8 { buf in
            do throws(StreamLineError) { return .success(try parse(buf)) } catch { return .failure(error) }
        }
        return try r.get()
    }

    /// A parser that keeps state between the lines of one stream (the day number of the last
    /// date), so consecutive lines sharing a date skip its validation. Gives exactly what
    /// ``StreamLineParser/parse(_:)-(UnsafeBufferPointer<UInt8>)`` gives.
    @_spi(StreamFastPath)
    public struct Reader {
        var cache = Cache()

        public init() {}

        /// Parses one line (without its newline).
        public mutating func parse(_ b: UnsafeBufferPointer<UInt8>) throws(StreamLineError) -> StreamLine {
            guard let s = scan(b, cache: &cache) else { return try slowPath(b) }
            return line(s, b)
        }
    }

    // MARK: fast path

    /// What the fast path read from a line, before any `String` is made: the device is a byte
    /// range of the line, so ``StreamEvaluator`` can intern it without allocating.
    struct Scanned {
        var t: Int64
        var latitude: Double
        var longitude: Double
        var accuracy: Double?
        /// Byte range of the device id inside the line (no escapes, no control bytes); `nil`
        /// when the line has no `device`.
        var device: Range<Int>?
        /// `t` only (with no position and no `acc`): a clock line.
        var isClock: Bool
    }

    /// State kept between lines by a reader that owns one: consecutive lines of a stream share
    /// their date, so the day number of the last `YYYY-MM-DD` prefix is remembered.
    struct Cache {
        var days = Timestamp.DayCache()
    }

    /// `nil` means "not the simple shape": the slow path decides (and reports errors).
    static func fastPath(_ b: UnsafeBufferPointer<UInt8>) -> StreamLine? {
        var cache = Cache()
        guard let s = scan(b, cache: &cache) else { return nil }
        return line(s, b)
    }

    /// The `StreamLine` of a scanned line (`b` is the line `s` was scanned from).
    @inline(__always)
    static func line(_ s: Scanned, _ b: UnsafeBufferPointer<UInt8>) -> StreamLine {
        if s.isClock { return .clock(s.t) }
        let dev = s.device.map { String(decoding: UnsafeBufferPointer(rebasing: b[$0]), as: UTF8.self) } ?? ""
        return .fix(Fix(device: dev, t: s.t, latitude: s.latitude, longitude: s.longitude, accuracy: s.accuracy))
    }

    /// The byte-level scan of the fast path. `nil` means "not the simple shape" (the slow path
    /// decides and reports errors); a non-`nil` answer is exactly what the slow path would give.
    ///
    /// The loop avoids: allocating (the device stays a byte range), building a `String` per
    /// key (keys are recognised by length and one little-endian load of their first bytes),
    /// and re-validating the date of every line (``Timestamp/DayCache``).
    @inline(__always)
    static func scan(_ b: UnsafeBufferPointer<UInt8>, cache: inout Cache) -> Scanned? {
        guard let base = b.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        var i = 0
        let n = b.count
        @inline(__always) func ws() { while i < n, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }
        ws()
        guard i < n, b[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        var deviceRange: Range<Int>? = nil
        var t: Int64 = 0
        var lat = 0.0, lon = 0.0
        var acc: Double? = nil
        var seen: UInt8 = 0
        ws()
        if i < n, b[i] == UInt8(ascii: "}") { return nil }
        while true {
            ws()
            guard i < n, b[i] == 0x22 else { return nil }
            let ks = i + 1
            var ke = ks
            while ke < n, b[ke] != 0x22, b[ke] != 0x5C { ke += 1 }
            guard ke < n, b[ke] == 0x22 else { return nil }
            i = ke + 1
            ws()
            guard i < n, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            ws()
            guard i < n else { return nil }
            // A key of length >= 3 is followed by its closing quote, so 4 bytes from `ks` are
            // inside the line; the load replaces a byte-by-byte comparison.
            let klen = ke - ks
            let k4: UInt32 = klen >= 3 ? UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: ks, as: UInt32.self)) : 0
            if klen == 1, b[ks] == UInt8(ascii: "t") {
                guard seen & 1 == 0 else { return nil }
                seen |= 1
                if b[i] == 0x22 {
                    var e = i + 1
                    while e < n, b[e] != 0x22, b[e] != 0x5C { e += 1 }
                    guard e < n, b[e] == 0x22,
                          let ms = Timestamp.parseMillis(UnsafeBufferPointer(rebasing: b[(i + 1)..<e]), cache: &cache.days),
                          RequestLimits.isSupported(millis: ms)
                    else { return nil }
                    t = ms
                    i = e + 1
                } else {
                    guard let (v, e) = number(b, i), abs(v) < 1.0e13 else { return nil }
                    t = Int64((v * 1000).rounded())
                    guard RequestLimits.isSupported(millis: t) else { return nil }
                    i = e
                }
            } else if klen == 6, k4 == 0x6976_6564 /* "devi" */, b[ks + 4] == UInt8(ascii: "c"), b[ks + 5] == UInt8(ascii: "e") {
                guard seen & 2 == 0, b[i] == 0x22 else { return nil }
                seen |= 2
                var e = i + 1
                // ASCII only here: other bytes (UTF-8 to validate) take the slow path.
                while e < n, b[e] != 0x22, b[e] != 0x5C, b[e] >= 0x20, b[e] < 0x80 { e += 1 }
                guard e - i - 1 <= RequestLimits.maximumIdentifierBytes else { return nil }
                guard e < n, b[e] == 0x22 else { return nil }
                deviceRange = (i + 1)..<e
                i = e + 1
            } else if klen == 3 {
                // The three bytes of the key plus its closing quote.
                switch k4 {
                case 0x2274_616C:  // lat"
                    guard seen & 4 == 0, let (v, e) = number(b, i) else { return nil }
                    seen |= 4; lat = v; i = e
                case 0x226E_6F6C:  // lon"
                    guard seen & 8 == 0, let (v, e) = number(b, i) else { return nil }
                    seen |= 8; lon = v; i = e
                case 0x2263_6361:  // acc"
                    guard seen & 16 == 0, let (v, e) = number(b, i) else { return nil }
                    seen |= 16; acc = v; i = e
                default:
                    return nil
                }
            } else {
                return nil
            }
            ws()
            guard i < n else { return nil }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "}") else { return nil }
            i += 1
            ws()
            guard i == n else { return nil }
            break
        }
        guard seen & 1 != 0 else { return nil }
        guard seen & 12 == 12 else {
            // No position: a clock line if nothing else is there, else the slow path decides.
            guard seen & 28 == 0 else { return nil }
            return Scanned(t: t, latitude: 0, longitude: 0, accuracy: nil, device: nil, isClock: true)
        }
        guard (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        return Scanned(t: t, latitude: lat, longitude: lon, accuracy: acc, device: deviceRange, isClock: false)
    }

    /// A JSON number at `i`: exact whenever the digits form an integer mantissa of at most
    /// 2^53 with at most 22 fraction digits and no exponent (Clinger's fast path: both parts
    /// are exact doubles, so one division rounds correctly); anything else goes through the
    /// standard library's correctly rounded parser.
    ///
    /// The digit runs avoid per-digit bookkeeping: digits are accumulated (eight at a time, see
    /// ``digits(_:_:_:)``) with wrapping arithmetic and counted afterwards from positions (more than 19 digits could have
    /// wrapped, so those take the slow path), and the scale comes from ``powerOfTen(_:)``, a
    /// switch over constants rather than a lazily initialised global array.
    @inline(__always)
    static func number(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> (Double, Int)? {
        var i = start
        let n = b.count
        var negative = false
        if i < n, b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        let intStart = i
        digits(b, &i, &mantissa)
        let intDigits = i - intStart
        guard intDigits > 0 else { return nil }
        if intDigits > 1, b[intStart] == 0x30 { return nil }
        var fracDigits = 0
        if i < n, b[i] == UInt8(ascii: ".") {
            i += 1
            let fs = i
            digits(b, &i, &mantissa)
            fracDigits = i - fs
            guard fracDigits > 0 else { return nil }
        }
        var slow = intDigits + fracDigits > 19 || fracDigits > 22 || mantissa > 1 << 53
        if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            slow = true
            i += 1
            if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let es = i
            while i < n, b[i] &- 0x30 < 10 { i += 1 }
            guard i > es else { return nil }
        }
        if slow {
            let s = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
            guard let v = Double(s), v.isFinite else { return nil }
            return (v, i)
        }
        var v = Double(mantissa) / powerOfTen(fracDigits)
        if negative { v = -v }
        return (v, i)
    }

    /// Appends the run of decimal digits at `i` to `m` (wrapping; the caller counts digits from
    /// positions) and moves `i` past it.
    ///
    /// Up to eight digits at a time (SWAR): one 8-byte load, a mask of the bytes that are not
    /// digits (its lowest set byte ends the run), and three multiplies that combine the digits
    /// in pairs, fours and eights. This avoids the byte loop's chain of one compare, branch and
    /// multiply-add per digit. Bytes after the run are loaded but never used; the byte loop
    /// handles runs within 8 bytes of the end of the line.
    @inline(__always)
    static func digits(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ m: inout UInt64) {
        let n = b.count
        if let base = b.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                let v = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                // Zero in a byte that is 0x30...0x39: high nibble 3, and adding 6 keeps it 3.
                // (A carry out of a byte >= 0xFA can only disturb bytes after a non-digit.)
                let notDigit = ((v & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030)
                    | (((v &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030)
                let k = notDigit.trailingZeroBitCount >> 3
                if k == 0 { return }
                // Digit values; the first byte in memory is the lowest, so shifting left puts
                // the k digits at the top with zeros (leading zero digits) below them.
                var x = v &- 0x3030_3030_3030_3030
                if k < 8 { x <<= UInt64(8 * (8 - k)) }
                x = ((x & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
                x = ((x & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
                x = ((x & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
                m = m &* integerPowerOfTen(k) &+ x
                i += k
                if k < 8 { return }
            }
        }
        while i < n {
            let d = b[i] &- 0x30
            guard d < 10 else { break }
            m = m &* 10 &+ UInt64(d)
            i += 1
        }
    }

    /// 10^k for 1 <= k <= 8.
    @inline(__always)
    static func integerPowerOfTen(_ k: Int) -> UInt64 {
        switch k {
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        default: 100_000_000
        }
    }

    /// 10^e for 0 <= e <= 22, all exact doubles.
    @inline(__always)
    static func powerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    // MARK: slow path

    static func slowPath(_ b: UnsafeBufferPointer<UInt8>) throws(StreamLineError) -> StreamLine {
        let v: JSONValue
        do throws(JSONSyntaxError) { v = try JSONValue.parse(b) } catch {
            throw StreamLineError("not valid JSON: \(error.reason) (column \(error.offset + 1))")
        }
        guard case .object(let o) = v else { throw StreamLineError("a line must be a JSON object, not \(v.typeName)") }
        guard let tv = o["t"], tv != .null else { throw StreamLineError("missing \"t\"") }
        guard let t = JSONFields.dateMillis(tv) else {
            throw StreamLineError("\"t\" must be an ISO 8601 date or seconds since 1970, not \(NotificationRequest.show(tv))")
        }
        guard RequestLimits.isSupported(millis: t) else {
            throw StreamLineError("\"t\" \(NotificationRequest.show(tv)) is outside the supported dates (0001-01-01 to 9999-12-31)")
        }
        var device = ""
        if let d = o["device"], d != .null {
            guard case .string(let s) = d else { throw StreamLineError("\"device\" must be a string, not \(NotificationRequest.show(d))") }
            guard s.utf8.count <= RequestLimits.maximumIdentifierBytes else {
                throw StreamLineError("\"device\" is longer than \(RequestLimits.maximumIdentifierBytes) UTF-8 bytes")
            }
            device = s
        }
        if let control = try controlLine(o, t: t) { return .control(t: t, control) }
        if let s = o["settings"] {
            do throws(SettingsError) {
                return .settings(device: device, t: t, try NotificationSettings(json: s))
            } catch {
                throw StreamLineError("\"settings\": \(error.reason)")
            }
        }
        func num(_ key: String) throws(StreamLineError) -> Double? {
            guard let x = o[key], x != .null else { return nil }
            guard case .number(let d) = x else { throw StreamLineError("\"\(key)\" must be a number, not \(NotificationRequest.show(x))") }
            return d
        }
        let lat = try num("lat"), lon = try num("lon"), acc = try num("acc")
        switch (lat, lon) {
        case (nil, nil):
            return .clock(t)
        case (let lat?, let lon?):
            guard (-90...90).contains(lat) else { throw StreamLineError("latitude \(lat) is outside [-90, 90]") }
            guard (-180...180).contains(lon) else { throw StreamLineError("longitude \(lon) is outside [-180, 180]") }
            return .fix(Fix(device: device, t: t, latitude: lat, longitude: lon, accuracy: acc))
        default:
            throw StreamLineError(lat == nil ? "\"lon\" without \"lat\"" : "\"lat\" without \"lon\"")
        }
    }
}
