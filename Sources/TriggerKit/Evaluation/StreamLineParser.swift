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
                    let e = stringEnd(b, from: i + 1, asciiOnly: false)
                    guard e < n, b[e] == 0x22,
                          let ms = Timestamp.parseMillis(UnsafeBufferPointer(rebasing: b[(i + 1)..<e]), cache: &cache.days),
                          RequestLimits.isSupported(millis: ms)
                    else { return nil }
                    t = ms
                    i = e + 1
                } else {
                    guard let (v, e) = number(b, i), abs(v) < 1.0e13 else { return nil }
                    t = Int64(Timestamp.wholeMillis(seconds: v))
                    guard RequestLimits.isSupported(millis: t) else { return nil }
                    i = e
                }
            } else if klen == 6, k4 == 0x6976_6564 /* "devi" */, b[ks + 4] == UInt8(ascii: "c"), b[ks + 5] == UInt8(ascii: "e") {
                guard seen & 2 == 0, b[i] == 0x22 else { return nil }
                seen |= 2
                // ASCII only here: other bytes (UTF-8 to validate) take the slow path.
                let e = stringEnd(b, from: i + 1, asciiOnly: true)
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

    static func slowPath(_ b: UnsafeBufferPointer<UInt8>) throws(StreamLineError) -> StreamLine {
        let v: JSONValue
        do throws(JSONSyntaxError) { v = try JSONValue.parse(b) } catch {
            throw StreamLineError("not valid JSON: \(error.reason) (column \(error.offset + 1))")
        }
        guard case .object(let o) = v else { throw StreamLineError("a line must be a JSON object, not \(v.typeName)") }
        let t = try time(o["t"])
        var device = ""
        if let d = o["device"], d != .null {
            guard case .string(let s) = d else { throw StreamLineError("\"device\" must be a string, not \(NotificationRequest.show(d))") }
            device = s
        }
        // (Every line that names a device is held to the device rule, not only fixes.)
        if let v = FixRules.deviceViolation(utf8Count: device.utf8.count) { throw StreamLineError(v) }
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
            if let v = FixRules.positionViolation(latitude: lat, longitude: lon, accuracy: acc) { throw StreamLineError(v) }
            return .fix(Fix(device: device, t: t, latitude: lat, longitude: lon, accuracy: acc))
        default:
            throw StreamLineError(lat == nil ? "\"lon\" without \"lat\"" : "\"lat\" without \"lon\"")
        }
    }
}

extension StreamLineParser {
    /// A line's `t` (a stream line's, or `POST /v1/clock`'s): an ISO 8601 date or seconds
    /// since 1970, within the supported dates. Milliseconds since 1970.
    public static func time(_ v: JSONValue?) throws(StreamLineError) -> Int64 {
        guard let tv = v, tv != .null else { throw StreamLineError("missing \"t\"") }
        guard let t = JSONFields.dateMillis(tv) else {
            if JSONFields.isOutsideSupportedYears(tv) { throw StreamLineError(FixRules.unsupportedDate(NotificationRequest.show(tv))) }
            throw StreamLineError("\"t\" must be an ISO 8601 date or seconds since 1970, not \(NotificationRequest.show(tv))")
        }
        guard RequestLimits.isSupported(millis: t) else { throw StreamLineError(FixRules.unsupportedDate(NotificationRequest.show(tv))) }
        return t
    }
}

/// The byte-level scan of one stream line, done ahead of evaluation (see ``LineScanner``):
/// what ``StreamEvaluator/process(lineBytes:scanned:into:)`` needs besides the line's bytes.
@_spi(StreamFastPath) public struct ScannedLine: Sendable {
    var scanned: StreamLineParser.Scanned?

    /// A placeholder for a line not scanned yet (it reads as a line for the full parser).
    public static let unscanned = ScannedLine(scanned: nil)
}

/// Scans stream lines independently of any evaluator, so that reading and scanning can run
/// on one thread while another evaluates. Keeps the date of the last line (lines of a stream
/// share it); one scanner per thread.
@_spi(StreamFastPath) public struct LineScanner: Sendable {
    var cache = StreamLineParser.Cache()

    public init() {}

    /// The scan of one line (without its newline). Pure apart from the date cache.
    public mutating func scan(_ b: UnsafeBufferPointer<UInt8>) -> ScannedLine {
        ScannedLine(scanned: StreamLineParser.scan(b, cache: &cache))
    }
}
