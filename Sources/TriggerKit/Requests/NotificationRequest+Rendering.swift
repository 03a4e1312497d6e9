import Foundation

// A request's contract JSON written straight to bytes. `value(request.json)` builds a tree of
// dictionaries first (one per object, a String per key, the keys sorted per object), which was
// nearly all of fingerprinting, storing or snapshotting a large request set (a million: 2.6 s
// on two cores). The common shapes are written here member by member, in the sorted key order
// the tree would give; anything else (a calendar trigger, fence rules, `userInfo`) is written
// through its own tree. The bytes are the same either way (`RenderingTests` checks it).

extension JSONWriter {
    /// Appends `r`'s contract JSON: the same bytes as `value(r.json)`.
    package mutating func request(_ r: NotificationRequest) {
        // Members in sorted order: addedAt, content, device, expiresAt, identifier, trigger.
        raw("{")
        if let addedAt = r.addedAt {
            raw("\"addedAt\":")
            timestamp(millis: Timestamp.millis(addedAt))
            raw(",")
        }
        raw("\"content\":")
        content(r.content)
        if let device = r.device {
            raw(",\"device\":")
            string(device)
        }
        if let expiresAt = r.expiresAt {
            raw(",\"expiresAt\":")
            timestamp(millis: Timestamp.millis(expiresAt))
        }
        raw(",\"identifier\":")
        string(r.identifier)
        switch r.trigger {
        case .immediate:
            break
        case .timeInterval(let t):
            raw(",\"trigger\":{\"repeats\":")
            t.repeats ? raw("true") : raw("false")
            raw(",\"timeInterval\":")
            number(t.timeInterval)
            raw(",\"type\":\"timeInterval\"}")
        case .location(let t) where !t.hasRules:
            raw(",\"trigger\":{\"region\":")
            region(t.region)
            raw(",\"repeats\":")
            t.repeats ? raw("true") : raw("false")
            raw(",\"type\":\"location\"}")
        case .calendar, .location:
            raw(",\"trigger\":")
            if let json = r.trigger.json { value(json) }
        }
        raw("}")
    }

    /// Members in sorted order: badge, body, categoryIdentifier, sound, subtitle,
    /// threadIdentifier, title, userInfo.
    private mutating func content(_ c: NotificationContent) {
        raw("{")
        var first = true
        func key(_ w: inout JSONWriter, _ k: StaticString) {
            if !first { w.raw(",") }
            first = false
            w.raw(k)
        }
        if let badge = c.badge {
            key(&self, "\"badge\":")
            number(Double(badge))
        }
        if let body = c.body {
            key(&self, "\"body\":")
            string(body)
        }
        if let category = c.categoryIdentifier {
            key(&self, "\"categoryIdentifier\":")
            string(category)
        }
        if let sound = c.sound {
            key(&self, "\"sound\":")
            string(sound)
        }
        if let subtitle = c.subtitle {
            key(&self, "\"subtitle\":")
            string(subtitle)
        }
        if let thread = c.threadIdentifier {
            key(&self, "\"threadIdentifier\":")
            string(thread)
        }
        if let title = c.title {
            key(&self, "\"title\":")
            string(title)
        }
        if let userInfo = c.userInfo {
            key(&self, "\"userInfo\":")
            value(.object(userInfo))
        }
        raw("}")
    }

    /// Members in sorted order: center or geometry, identifier, notifyOnEntry, notifyOnExit,
    /// radius (a circle's).
    private mutating func region(_ r: Region) {
        raw("{")
        switch r {
        case .circular(let c):
            raw("\"center\":{\"latitude\":")
            number(c.center.latitude)
            raw(",\"longitude\":")
            number(c.center.longitude)
            raw("},")
        case .polygon(let p):
            raw("\"geometry\":{\"coordinates\":")
            if p.isMultiPolygon {
                raw("[")
                for (k, polygon) in p.polygons.enumerated() {
                    if k > 0 { raw(",") }
                    rings(polygon)
                }
                raw("]")
                raw(",\"type\":\"MultiPolygon\"},")
            } else {
                if let polygon = p.polygons.first { rings(polygon) } else { raw("[]") }
                raw(",\"type\":\"Polygon\"},")
            }
        }
        raw("\"identifier\":")
        string(r.identifier)
        raw(",\"notifyOnEntry\":")
        r.notifyOnEntry ? raw("true") : raw("false")
        raw(",\"notifyOnExit\":")
        r.notifyOnExit ? raw("true") : raw("false")
        if case .circular(let c) = r {
            raw(",\"radius\":")
            number(c.radius)
        }
        raw("}")
    }

    /// A polygon's rings of [longitude, latitude] positions.
    private mutating func rings(_ polygon: [[Coordinate]]) {
        raw("[")
        for (k, ring) in polygon.enumerated() {
            if k > 0 { raw(",") }
            raw("[")
            for (j, p) in ring.enumerated() {
                raw(j > 0 ? ",[" : "[")
                number(p.longitude)
                raw(",")
                number(p.latitude)
                raw("]")
            }
            raw("]")
        }
        raw("]")
    }
}

extension NotificationRequest {
    /// This request as its contract JSON reads back: `addedAt` and `expiresAt` to the
    /// millisecond, a calendar trigger's calendar with TriggerKit's locale and zone (only its
    /// identifier, first weekday and minimum days in the first week are written), a fence
    /// window's interval bounds to the millisecond. A center
    /// keeps its requests so, so that a restart (through a snapshot's JSON lines) gives back
    /// equal values. Only for a validated request (a NaN date would be clamped).
    var canonical: NotificationRequest {
        var r = self
        r.addedAt = addedAt.map { Timestamp.date(millis: Timestamp.millis($0)) }
        if let expires = expiresAt { r.expiresAt = Timestamp.date(millis: Timestamp.millis(expires)) }
        if case .calendar(var t) = trigger, let c = t.dateComponents.calendar {
            t.dateComponents.calendar = CalendarNames.calendar(c.identifier, firstWeekday: c.firstWeekday,
                                                               minimumDaysInFirstWeek: c.minimumDaysInFirstWeek)
            r.trigger = .calendar(t)
        }
        // A window's interval bounds to the millisecond, as its JSON keeps them.
        if case .location(var t) = trigger, var w = t.rules.window, case .intervals(let list) = w.schedule {
            w.schedule = .intervals(list.map {
                DateInterval(start: Timestamp.date(millis: Timestamp.millis($0.start)), end: Timestamp.date(millis: Timestamp.millis($0.end)))
            })
            t.rules.window = w
            r.trigger = .location(t)
        }
        return r
    }
}
