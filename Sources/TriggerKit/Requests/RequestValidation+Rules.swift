import Foundation

extension RequestValidation {
    /// The values of a location trigger's ``FenceRules`` and the combinations that could
    /// never do what they say: a dwell in (0, 100 years]; an accuracy maximum in
    /// (0, ``FenceAccuracy/largestMaximum``]; window hours on a 24-hour clock, weekdays 1-7
    /// without repeats, intervals within the supported dates, sorted and not overlapping (at
    /// most ``FenceWindow/maximumIntervals``); `enterAtOpening` only with `notifyOnEntry`,
    /// `exitAtClosing` only with `notifyOnExit`, `crossings` only with one of them; and no
    /// one-shot whose first enter (exit) would end it before its inside (outside) dwell.
    static func checkRules(_ rules: FenceRules, region: Region, repeats: Bool) throws(RequestError) {
        if let d = rules.dwell {
            guard d.duration.isFinite, d.duration > 0, d.duration <= RequestLimits.maximumTimeInterval else {
                throw RequestError(.invalidTrigger, "\"trigger.dwell.\(d.side.rawValue)\" must be in (0, \(Int(RequestLimits.maximumTimeInterval))] seconds, not \(d.duration)", field: "trigger.dwell.\(d.side.rawValue)")
            }
            if !repeats {
                let first = d.side == .inside ? region.notifyOnEntry : region.notifyOnExit
                guard !first else {
                    let notify = d.side == .inside ? "notifyOnEntry" : "notifyOnExit"
                    throw RequestError(.invalidTrigger, "a non-repeating trigger with \"trigger.dwell.\(d.side.rawValue)\" and \(notify) would end at the \(d.side == .inside ? "enter" : "exit") before its dwell: set \"trigger.region.\(notify)\": false or \"repeats\": true", field: "trigger.dwell.\(d.side.rawValue)")
                }
            }
        }
        if let a = rules.accuracy {
            guard a.maximum.isFinite, a.maximum > 0, a.maximum <= FenceAccuracy.largestMaximum else {
                throw RequestError(.invalidTrigger, "\"trigger.accuracy.maximum\" must be in (0, \(Int(FenceAccuracy.largestMaximum))] metres, not \(a.maximum)", field: "trigger.accuracy.maximum")
            }
        }
        if let w = rules.window { try checkWindow(w, region: region) }
        if rules.crossings && !region.notifyOnEntry && !region.notifyOnExit && rules.dwell == nil {
            throw RequestError(.invalidTrigger, "\"trigger.crossings\" reports enter and exit events, but the region notifies on neither", field: "trigger.crossings")
        }
    }

    static func checkWindow(_ w: FenceWindow, region: Region) throws(RequestError) {
        if w.enterAtOpening && !region.notifyOnEntry {
            throw RequestError(.invalidTrigger, "\"trigger.window.enterAtOpening\" needs \"trigger.region.notifyOnEntry\": true", field: "trigger.window.enterAtOpening")
        }
        if w.exitAtClosing && !region.notifyOnExit {
            throw RequestError(.invalidTrigger, "\"trigger.window.exitAtClosing\" needs \"trigger.region.notifyOnExit\": true", field: "trigger.window.exitAtClosing")
        }
        try checkZone(w.timeZone, field: "trigger.window.timeZone")
        switch w.schedule {
        case .weekly(let days, let opens, let closes):
            for (t, name) in [(opens, "opens"), (closes, "closes")] {
                guard (0...23).contains(t.hour), (0...59).contains(t.minute), (0...59).contains(t.second) else {
                    throw RequestError(.invalidTrigger, "\"trigger.window.\(name)\" must be a time of day (hour 0-23, minute and second 0-59), not \(t.hour):\(t.minute):\(t.second)", field: "trigger.window.\(name)")
                }
            }
            guard days.allSatisfy({ (1...7).contains($0) }), Set(days).count == days.count else {
                throw RequestError(.invalidTrigger, "\"trigger.window.weekdays\" must list distinct weekdays 1-7 (1 = Sunday), not \(days)", field: "trigger.window.weekdays")
            }
        case .intervals(let list):
            // As the JSON reader says it (a window built in code had its zone dropped by the
            // JSON a restart reads back: found by a helper comparing restored centers).
            guard w.timeZone == nil else {
                throw RequestError(.invalidTrigger, "\"trigger.window\" has \"intervals\" (absolute dates) and \"timeZone\": a zone applies to weekly hours only", field: "trigger.window.timeZone")
            }
            guard !list.isEmpty, list.count <= FenceWindow.maximumIntervals else {
                throw RequestError(.invalidTrigger, "\"trigger.window.intervals\" must hold 1 to \(FenceWindow.maximumIntervals) intervals, not \(list.count)", field: "trigger.window.intervals")
            }
            var previousEnd: Int64 = .min
            for (k, i) in list.enumerated() {
                // Each end named as the JSON reader names it.
                func millis(_ d: Date, _ name: String) throws(RequestError) -> Int64 {
                    guard let ms = RequestLimits.millis(d) else {
                        throw RequestError(.invalidTrigger, "\"trigger.window.intervals[\(k)].\(name)\" must be an ISO 8601 date between 0001-01-01 and 9999-12-31, or seconds since 1970, not \(d.timeIntervalSince1970) s since 1970",
                                           field: "trigger.window.intervals[\(k)].\(name)")
                    }
                    return ms
                }
                let s = try millis(i.start, "start"), e = try millis(i.end, "end")
                guard s < e else { throw RequestError(.invalidTrigger, "\"trigger.window.intervals[\(k)]\" ends at or before it starts", field: "trigger.window.intervals[\(k)]") }
                guard s >= previousEnd else {
                    throw RequestError(.invalidTrigger, "\"trigger.window.intervals[\(k)]\" starts before the previous interval ends: list them sorted, without overlaps", field: "trigger.window.intervals[\(k)]")
                }
                previousEnd = e
            }
        }
    }
}
