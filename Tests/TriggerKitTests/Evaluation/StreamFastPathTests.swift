import Foundation
import Testing
@testable @_spi(StreamFastPath) @_spi(Engine) import TriggerKit

@Suite("Stream fast path: byte interning, day cache, numbers")
struct StreamFastPathTests {
    // MARK: DeviceInterner

    @Test func internerFindsEveryNameAcrossGrowth() {
        var t = DeviceInterner()
        // Lengths 0...40 exercise every load shape of the hash (bytes, two 4-byte loads,
        // 8-byte words with an overlapping tail); shared prefixes and suffixes catch a hash
        // or comparison that looks at too few bytes.
        var names: [String] = [""]
        for len in 1...40 {
            names.append(String(repeating: "a", count: len))
            names.append(String(repeating: "a", count: len - 1) + "b")
            if len > 1 { names.append("b" + String(repeating: "a", count: len - 1)) }
        }
        for i in 0..<3000 { names.append("d-\(String(format: "%04d", i))") }
        names.append("café")
        names.append("日本-1")
        for (i, name) in names.enumerated() {
            #expect(t.count == i)
            t.append(name)
            #expect(t.slots.count >= 2 * t.count, "at most half full")
        }
        for (i, name) in names.enumerated() {
            var s = name
            let found = s.withUTF8 { t.find($0) }
            #expect(found == Int32(i), "\(name)")
        }
        for absent in ["d-3000", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "c", "cafe", "d-000"] {
            var s = absent
            #expect(s.withUTF8 { t.find($0) } == nil, "\(absent)")
        }
        #expect(DeviceInterner.hash(UnsafeBufferPointer(start: nil, count: 0)) == 0)
    }

    @Test func internerSurvivesCollidingSlots() {
        // A tiny table filled far beyond its first size: most probes collide and wrap around.
        var t = DeviceInterner()
        for i in 0..<200 { t.append("x\(i)") }
        for i in 0..<200 {
            var s = "x\(i)"
            #expect(s.withUTF8 { t.find($0) } == Int32(i))
        }
    }

    // MARK: StreamEvaluator.process(lineBytes:)

    /// Feeds the same lines through `parse` + `process(_:)` and through `process(lineBytes:)`;
    /// events, errors, stats and device order must agree.
    func compare(_ lines: [String], requests: String) {
        let set = RequestsFile.parse(requests, file: "test", options: ValidationOptions())
        let a = StreamEvaluator(requests: set.requests), b = StreamEvaluator(requests: set.requests)
        var ea: [FiredEvent] = [], eb: [FiredEvent] = []
        var errA: [String] = [], errB: [String] = []
        for line in lines {
            do throws(StreamLineError) {
                try a.process(try StreamLineParser.parse(line), into: &ea)
            } catch {
                a.recordMalformedLine(); errA.append(error.reason)
            }
            var copy = line
            let r: StreamLineError? = copy.withUTF8 { buf in
                do throws(StreamLineError) { try b.process(lineBytes: buf, into: &eb); return nil } catch { return error }
            }
            if let r { b.recordMalformedLine(); errB.append(r.reason) }
        }
        #expect(ea == eb)
        #expect(errA == errB)
        #expect(a.stats == b.stats)
        #expect(a.deviceNames == b.deviceNames)
        var wa = JSONWriter(), wb = JSONWriter()
        for e in ea { a.write(e, format: .json, to: &wa) }
        for e in eb { b.write(e, format: .json, to: &wb) }
        #expect(wa.text == wb.text)
    }

    @Test func byteEntryPointMatchesParseThenProcess() {
        let requests = "[" + [circleRequest("a"), circleRequest("b", radius: 300, device: "d-0001")].joined(separator: ",") + "]"
        var g = SeededGenerator(seed: 11)
        // Plain names, an escaped spelling of one (slow path), a canonically equivalent
        // spelling (NFC vs NFD: one device for the dictionary, two byte strings), invalid
        // UTF-8 (repaired to U+FFFD), the empty name and no name at all.
        let devices = [#""d-0001""#, #""d-\u0030001""#, #""d-0002""#, "\"caf\u{E9}\"", "\"cafe\u{301}\"", "\"\"", nil,
                       "\"bad\u{FFFD}\"", #""long-device-name-0123456789""#]
        var lines: [String] = []
        for s in 0..<600 {
            let d = devices[Int.random(in: 0..<devices.count, using: &g)]
            let north = Double.random(in: -400...400, using: &g)
            let lat = 40.0 + north / 111_034.0
            let acc = [nil, "8.5", "-1", "30"][Int.random(in: 0..<4, using: &g)]
            switch Int.random(in: 0..<20, using: &g) {
            case 0: lines.append("{\"t\": \"\(at(s))\"}")
            case 1: lines.append("{\"t\": \"\(at(s))\", \"lat\": 40}")
            case 2: lines.append("not json")
            default:
                var l = "{"
                if let d { l += "\"device\": \(d), " }
                l += "\"t\": \"\(at(s))\", \"lat\": \(lat), \"lon\": -74.0"
                if let acc { l += ", \"acc\": \(acc)" }
                lines.append(l + "}")
            }
        }
        compare(lines, requests: requests)
    }

    @Test func invalidUTF8DeviceBytesAreAnErrorValidOnesAreExact() throws {
        // Contract 5: bytes that are not UTF-8 are an error naming the line (they used to be
        // repaired to U+FFFD, merging 0xFF and 0xFE into one device).
        let set = RequestsFile.parse(circleRequest("a"), file: "test", options: ValidationOptions())
        let e = StreamEvaluator(requests: set.requests)
        var events: [FiredEvent] = []
        let prefix = Array(#"{"device": "x"#.utf8), suffix = Array(#"", "t": 1000, "lat": 40, "lon": -74}"#.utf8)
        var refused = 0
        for bytes in [[0xFF], [0xC3, 0xA9], [0xFE], [0x65, 0xCC, 0x81]] as [[UInt8]] {
            let line = prefix + bytes + suffix
            do throws(StreamLineError) {
                try line.withUnsafeBufferPointer { (b) throws(StreamLineError) in try e.process(lineBytes: b, into: &events) }
            } catch {
                #expect(error.reason.contains("UTF-8"))
                refused += 1
            }
        }
        #expect(refused == 2)
        // "xé" precomposed and "xé" decomposed are two devices.
        #expect(e.deviceNames == ["x\u{E9}", "xe\u{301}"])
        #expect(e.stats.fixes == 2)
    }

    // MARK: Timestamp day cache

    @Test func dayCacheGivesTheSameMillisAsAFreshParse() {
        var g = SeededGenerator(seed: 5)
        var cache = Timestamp.DayCache()
        let samples = ["2026-11-21T09:00:00Z", "2026-11-21T23:59:59.999Z", "2026-11-22T00:00:00+01:00", "2026-02-29T00:00:00Z",
                       "2024-02-29T12:00:00Z", "2024-02-29T25:00:00Z", "2026-13-01T00:00:00Z", "2026-11-21X09:00:00Z",
                       "2026-11-21T09:00:00", "1970-01-01T00:00:00Z", "2026-11-21 09:00:00z"]
        var inputs: [String] = []
        for _ in 0..<3000 {
            if Bool.random(using: &g) {
                inputs.append(samples[Int.random(in: 0..<samples.count, using: &g)])
            } else {
                inputs.append(Timestamp.string(millis: Int64.random(in: 0...4_000_000_000_000, using: &g)))
            }
        }
        for s in inputs {
            var text = s
            let cached = text.withUTF8 { Timestamp.parseMillis($0, cache: &cache) }
            #expect(cached == Timestamp.parseMillis(s), "\(s)")
        }
        var c2 = Timestamp.DayCache()
        var bad = "2026-02-29T00:00:00Z"
        #expect(bad.withUTF8 { Timestamp.parseMillis($0, cache: &c2) } == nil)
        #expect(!c2.valid, "an impossible date is never cached")
    }

    // MARK: numbers

    @Test func numbersNearTheLimitsOfTheFastPathAreCorrectlyRounded() throws {
        var g = SeededGenerator(seed: 9)
        var texts = ["9007199254740992", "9007199254740993", "9007199254740991.5", "0.9007199254740993",
                     "1234567890123456789", "12345678901234567890", "0.0000000000000000000001", "0.00000000000000000000001",
                     "-0", "-0.0", "0.1", "179.99999999999999999", "89.123456789012345678901"]
        for _ in 0..<3000 {
            let intDigits = Int.random(in: 1...3, using: &g), fracDigits = Int.random(in: 0...21, using: &g)
            var s = String(Int.random(in: 1...9, using: &g))
            for _ in 1..<intDigits { s += String(Int.random(in: 0...9, using: &g)) }
            if fracDigits > 0 {
                s += "."
                for _ in 0..<fracDigits { s += String(Int.random(in: 0...9, using: &g)) }
            }
            texts.append(Bool.random(using: &g) ? "-" + s : s)
        }
        for s in texts {
            var text = s
            let v = text.withUTF8 { StreamLineParser.number($0, 0) }
            let expected = Double(s)
            #expect(v?.0 == expected && v?.1 == s.utf8.count, "\(s)")
            if let x = v?.0, let e = expected { #expect(x.sign == e.sign, "\(s)") }
        }
        for bad in ["01", "1.", "-", ".5", "1e", "--1"] {
            var text = bad
            let v = text.withUTF8 { StreamLineParser.number($0, 0) }
            #expect(v == nil || v?.1 != bad.utf8.count, "\(bad)")
        }
    }

    @Test func readerMatchesTheStaticParser() throws {
        var r = StreamLineParser.Reader()
        for line in [#"{"device": "d", "t": "2026-11-21T09:00:00Z", "lat": 1, "lon": 2}"#,
                     #"{"device": "d", "t": "2026-11-21T09:00:01Z", "lat": 1, "lon": 2}"#,
                     #"{"device": "d\u0041", "t": "2026-11-22T09:00:01Z", "lat": 1, "lon": 2}"#,
                     #"{"t": "2026-11-22T09:00:01Z"}"#] {
            var text = line
            let a = try text.withUTF8 { (b) throws(StreamLineError) in try r.parse(b) }
            #expect(a == (try StreamLineParser.parse(line)))
        }
    }
}

extension StreamFastPathTests {
    /// Sequential names (the common shape of device ids) must spread over the table: a weak
    /// hash once made every lookup probe ~67 slots.
    @Test func sequentialNamesProbeFewSlots() {
        var t = DeviceInterner()
        for i in 0..<1000 { t.append("d-\(String(format: "%04d", i))") }
        let mask = t.slots.count - 1
        var probes = 0
        for i in 0..<1000 {
            var s = "d-\(String(format: "%04d", i))"
            let h = s.withUTF8 { DeviceInterner.hash($0) }
            var slot = Int(truncatingIfNeeded: h) & mask
            probes += 1
            while t.slots[slot] != Int32(i) + 1 { slot = (slot + 1) & mask; probes += 1 }
        }
        #expect(Double(probes) / 1000 < 3)
    }
}
