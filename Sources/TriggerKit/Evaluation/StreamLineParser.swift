/// Reads stream lines: a byte-level fast path for the common shape of a fix
/// (`{"device": "...", "t": "...", "lat": n, "lon": n, "acc": n}`, keys in any order, plain
/// strings and numbers), and the full JSON parser for anything else, so valid JSON is never
/// refused. The fast path costs tens of nanoseconds a line; `JSONDecoder` about 3 us.
public enum StreamLineParser {
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

    // MARK: fast path

    /// `nil` means "not the simple shape": the slow path decides (and reports errors).
    static func fastPath(_ b: UnsafeBufferPointer<UInt8>) -> StreamLine? {
        var i = 0
        let n = b.count
        @inline(__always) func ws() { while i < n, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }
        ws()
        guard i < n, b[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        var device: Substring.UTF8View? = nil
        var deviceRange: Range<Int>? = nil
        var t: Int64? = nil
        var lat: Double? = nil, lon: Double? = nil, acc: Double? = nil
        var seen: UInt8 = 0
        _ = device
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
            let klen = ke - ks
            let k0 = klen > 0 ? b[ks] : 0
            if klen == 1, k0 == UInt8(ascii: "t") {
                guard seen & 1 == 0 else { return nil }
                seen |= 1
                if b[i] == 0x22 {
                    var e = i + 1
                    while e < n, b[e] != 0x22, b[e] != 0x5C { e += 1 }
                    guard e < n, b[e] == 0x22, let ms = Timestamp.parseMillis(UnsafeBufferPointer(rebasing: b[(i + 1)..<e])) else { return nil }
                    t = ms
                    i = e + 1
                } else {
                    guard let (v, e) = number(b, i), abs(v) < 1.0e13 else { return nil }
                    t = Int64((v * 1000).rounded())
                    i = e
                }
            } else if klen == 6, k0 == UInt8(ascii: "d"), matches(b, ks, "device") {
                guard seen & 2 == 0, b[i] == 0x22 else { return nil }
                seen |= 2
                var e = i + 1
                while e < n, b[e] != 0x22, b[e] != 0x5C, b[e] >= 0x20 { e += 1 }
                guard e < n, b[e] == 0x22 else { return nil }
                deviceRange = (i + 1)..<e
                i = e + 1
            } else if klen == 3, k0 == UInt8(ascii: "l"), matches(b, ks, "lat") {
                guard seen & 4 == 0, let (v, e) = number(b, i) else { return nil }
                seen |= 4; lat = v; i = e
            } else if klen == 3, k0 == UInt8(ascii: "l"), matches(b, ks, "lon") {
                guard seen & 8 == 0, let (v, e) = number(b, i) else { return nil }
                seen |= 8; lon = v; i = e
            } else if klen == 3, k0 == UInt8(ascii: "a"), matches(b, ks, "acc") {
                guard seen & 16 == 0, let (v, e) = number(b, i) else { return nil }
                seen |= 16; acc = v; i = e
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
        guard let t else { return nil }
        guard let lat, let lon else {
            return (lat == nil && lon == nil && acc == nil) ? .clock(t) : nil
        }
        guard (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        let dev = deviceRange.map { String(decoding: UnsafeBufferPointer(rebasing: b[$0]), as: UTF8.self) } ?? ""
        return .fix(Fix(device: dev, t: t, latitude: lat, longitude: lon, accuracy: acc))
    }

    @inline(__always)
    static func matches(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ key: StaticString) -> Bool {
        let k = key.utf8Start
        for j in 0..<key.utf8CodeUnitCount where b[at + j] != k[j] { return false }
        return true
    }

    /// A JSON number at `i`: exact for up to 15 significant digits and |exponent| <= 22
    /// (Clinger's fast path: both parts are exact doubles, so one division rounds correctly);
    /// anything longer goes through the standard library's correctly rounded parser.
    static func number(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> (Double, Int)? {
        var i = start
        let n = b.count
        var negative = false
        if i < n, b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var scale = 0
        let intStart = i
        while i < n, b[i] &- 0x30 < 10 {
            if digits < 18 { mantissa = mantissa * 10 + Int64(b[i] - 0x30); digits += mantissa > 0 ? 1 : 0 } else { scale -= 1 }
            i += 1
        }
        guard i > intStart else { return nil }
        if i - intStart > 1, b[intStart] == 0x30 { return nil }
        if i < n, b[i] == UInt8(ascii: ".") {
            i += 1
            let fs = i
            while i < n, b[i] &- 0x30 < 10 {
                if digits < 18 { mantissa = mantissa * 10 + Int64(b[i] - 0x30); digits += mantissa > 0 ? 1 : 0; scale += 1 }
                i += 1
            }
            guard i > fs else { return nil }
        }
        var slow = digits > 15 || scale < 0
        if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            slow = true
            i += 1
            if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let es = i
            while i < n, b[i] &- 0x30 < 10 { i += 1 }
            guard i > es else { return nil }
        }
        if slow || scale > 22 {
            let s = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
            guard let v = Double(s), v.isFinite else { return nil }
            return (v, i)
        }
        var v = Double(mantissa) / powersOfTen[scale]
        if negative { v = -v }
        return (v, i)
    }

    static let powersOfTen: [Double] = (0...22).map { e in (0..<e).reduce(1.0) { acc, _ in acc * 10 } }

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
        var device = ""
        if let d = o["device"], d != .null {
            guard case .string(let s) = d else { throw StreamLineError("\"device\" must be a string, not \(NotificationRequest.show(d))") }
            device = s
        }
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
