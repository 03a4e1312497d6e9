import Foundation

// The JSON of fence rules: members of a location trigger next to "region" and "repeats".
//   "dwell": {"inside": 300} or {"outside": 600}            seconds
//   "accuracy": {"maximum": 50}                             metres
//   "window": {"weekdays": [2, 3, 4, 5, 6], "opens": "08:00", "closes": "18:00",
//              "timeZone": "Europe/Paris", "enterAtOpening": true, "exitAtClosing": true}
//   "window": {"intervals": [{"start": DATE, "end": DATE}, ...], ...}
//   "crossings": true
// Shapes are checked here; values by ``RequestValidation/checkRules(_:region:repeats:)``.

extension FenceRules {
    init(fields r: inout JSONFields, warnings: inout [String]) throws(RequestError) {
        self.init()
        if let o = try r.object("dwell") {
            var d = JSONFields(o, path: "trigger.dwell.", code: .invalidTrigger)
            let inside = try d.number("inside"), outside = try d.number("outside")
            switch (inside, outside) {
            case (let s?, nil): dwell = FenceDwell(side: .inside, duration: s)
            case (nil, let s?): dwell = FenceDwell(side: .outside, duration: s)
            default:
                throw RequestError(.invalidTrigger, "\"trigger.dwell\" needs exactly one of \"inside\" or \"outside\" (seconds)", field: "trigger.dwell")
            }
            warnings += d.unknownKeys()
        }
        if let o = try r.object("accuracy") {
            var a = JSONFields(o, path: "trigger.accuracy.", code: .invalidTrigger)
            guard let m = try a.number("maximum") else {
                throw RequestError(.invalidTrigger, "\"trigger.accuracy\" needs \"maximum\" (metres)", field: "trigger.accuracy.maximum")
            }
            accuracy = FenceAccuracy(maximum: m)
            warnings += a.unknownKeys()
        }
        if let o = try r.object("window") { window = try FenceWindow(json: o, warnings: &warnings) }
        crossings = try r.bool("crossings") ?? false
    }

    /// Adds the rules' members to a trigger's JSON object.
    func addJSON(to o: inout [String: JSONValue]) {
        if let dwell { o["dwell"] = .object([dwell.side.rawValue: .number(dwell.duration)]) }
        if let accuracy { o["accuracy"] = .object(["maximum": .number(accuracy.maximum)]) }
        if let window { o["window"] = window.json }
        if crossings { o["crossings"] = .bool(true) }
    }
}

extension FenceWindow {
    init(json o: [String: JSONValue], warnings: inout [String]) throws(RequestError) {
        var w = JSONFields(o, path: "trigger.window.", code: .invalidTrigger)
        let enter = try w.bool("enterAtOpening") ?? false
        let exit = try w.bool("exitAtClosing") ?? false
        var zone: TimeZone?
        if let tz = try w.string("timeZone") {
            guard let z = ZoneNames.storedZone(named: tz) else {
                throw RequestError(.invalidTrigger, ZoneNames.refusal(tz, field: "trigger.window.timeZone"), field: "trigger.window.timeZone")
            }
            zone = z
        }
        let schedule: Schedule
        if let v = w.take("intervals"), v != .null {
            guard zone == nil else {
                throw RequestError(.invalidTrigger, "\"trigger.window\" has \"intervals\" (absolute dates) and \"timeZone\": a zone applies to weekly hours only", field: "trigger.window.timeZone")
            }
            guard case .array(let list) = v else { throw RequestError(.invalidTrigger, "\"trigger.window.intervals\" must be an array", field: "trigger.window.intervals") }
            var intervals: [DateInterval] = []
            for (k, item) in list.enumerated() {
                guard case .object(let io) = item else {
                    throw RequestError(.invalidTrigger, "\"trigger.window.intervals[\(k)]\" must be an object {\"start\": date, \"end\": date}", field: "trigger.window.intervals[\(k)]")
                }
                var f = JSONFields(io, path: "trigger.window.intervals[\(k)].", code: .invalidTrigger)
                let (startValue, endValue) = (f.take("start"), f.take("end"))
                guard let startValue, let endValue else {
                    throw RequestError(.invalidTrigger, "\"trigger.window.intervals[\(k)]\" needs \"start\" and \"end\" (ISO 8601 dates)",
                                       field: "trigger.window.intervals[\(k)].\(startValue == nil ? "start" : "end")")
                }
                // Each named as written when it is not a date of years 1-9999 (both were said
                // to be missing; a helper's find).
                func date(_ v: JSONValue, _ name: String) throws(RequestError) -> Int64 {
                    guard let ms = JSONFields.dateMillis(v), RequestLimits.isSupported(millis: ms) else {
                        throw RequestError(.invalidTrigger, "\"trigger.window.intervals[\(k)].\(name)\" must be an ISO 8601 date between 0001-01-01 and 9999-12-31, or seconds since 1970, not \(NotificationRequest.show(v))",
                                           field: "trigger.window.intervals[\(k)].\(name)")
                    }
                    return ms
                }
                let s = try date(startValue, "start"), e = try date(endValue, "end")
                guard s < e else {
                    throw RequestError(.invalidTrigger, "\"trigger.window.intervals[\(k)]\" ends at or before it starts", field: "trigger.window.intervals[\(k)]")
                }
                intervals.append(DateInterval(start: Timestamp.date(millis: s), end: Timestamp.date(millis: e)))
                warnings += f.unknownKeys()
            }
            schedule = .intervals(intervals)
            if w.take("opens") != nil || w.take("closes") != nil || w.take("weekdays") != nil {
                throw RequestError(.invalidTrigger, "\"trigger.window\" has \"intervals\" and weekly hours: give one or the other", field: "trigger.window")
            }
        } else {
            let (opens, closes) = (try w.string("opens"), try w.string("closes"))
            guard let opens, let closes else {
                throw RequestError(.invalidTrigger, "\"trigger.window\" needs \"opens\" and \"closes\" (\"HH:MM\"), or \"intervals\"",
                                   field: opens == nil ? "trigger.window.opens" : "trigger.window.closes")
            }
            var days: [Int] = []
            if let v = w.take("weekdays"), v != .null {
                guard case .array(let list) = v else { throw RequestError(.invalidTrigger, "\"trigger.window.weekdays\" must be an array of 1-7 (1 = Sunday)", field: "trigger.window.weekdays") }
                for item in list {
                    guard case .number(let n) = item, n == n.rounded(), (1...7).contains(n) else {
                        throw RequestError(.invalidTrigger, "\"trigger.window.weekdays\" holds \(NotificationRequest.show(item)): weekdays are 1-7 (1 = Sunday)", field: "trigger.window.weekdays")
                    }
                    days.append(Int(n))
                }
                guard !days.isEmpty else { throw RequestError(.invalidTrigger, "\"trigger.window.weekdays\" is empty: the window would never open", field: "trigger.window.weekdays") }
            }
            schedule = .weekly(weekdays: days, opens: try TimeOfDay(text: opens, field: "opens"),
                               closes: try TimeOfDay(text: closes, field: "closes"))
        }
        self.init(schedule: schedule, timeZone: zone, enterAtOpening: enter, exitAtClosing: exit)
        warnings += w.unknownKeys()
    }

    var json: JSONValue {
        var o: [String: JSONValue] = [:]
        switch schedule {
        case .weekly(let days, let opens, let closes):
            if !days.isEmpty { o["weekdays"] = .array(days.map { .number(Double($0)) }) }
            o["opens"] = .string(opens.text)
            o["closes"] = .string(closes.text)
            if let timeZone { o["timeZone"] = .string(timeZone.identifier) }
        case .intervals(let list):
            o["intervals"] = .array(list.map { i in
                .object(["start": .string(Timestamp.string(millis: Timestamp.millis(i.start))),
                         "end": .string(Timestamp.string(millis: Timestamp.millis(i.end)))])
            })
        }
        if enterAtOpening { o["enterAtOpening"] = .bool(true) }
        if exitAtClosing { o["exitAtClosing"] = .bool(true) }
        return .object(o)
    }
}

extension FenceWindow.TimeOfDay {
    /// Reads `"HH:MM"` or `"HH:MM:SS"` (24-hour clock).
    init(text: String, field: String) throws(RequestError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let numbers = parts.map { p in p.count == 2 && p.allSatisfy(\.isASCII) ? Int(p) : nil }
        guard (2...3).contains(parts.count), numbers.allSatisfy({ $0 != nil }),
              let h = numbers[0], let m = numbers[1], (0...23).contains(h), (0...59).contains(m),
              parts.count == 2 || (0...59).contains(numbers[2] ?? -1)
        else {
            throw RequestError(.invalidTrigger, "\"trigger.window.\(field)\" must be a time \"HH:MM\" or \"HH:MM:SS\" (24-hour), not \"\(text)\"", field: "trigger.window.\(field)")
        }
        self.init(hour: h, minute: m, second: parts.count == 3 ? numbers[2] ?? 0 : 0)
    }

    /// `"HH:MM"`, or `"HH:MM:SS"` when the seconds are not zero.
    var text: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return second == 0 ? "\(two(hour)):\(two(minute))" : "\(two(hour)):\(two(minute)):\(two(second))"
    }
}
