/// Fires when a device enters or leaves a region: Apple's `UNLocationNotificationTrigger`.
public struct LocationTrigger: Sendable, Hashable {
    /// The circle or polygon, and which crossings notify.
    public var region: Region
    /// Whether it fires at every crossing (else once, per device for a shared request).
    public var repeats: Bool
    private var box: FenceRulesBox?

    /// A trigger for `region`; `rules` add dwell, accuracy, window and crossings.
    public init(region: Region, repeats: Bool, rules: FenceRules = .none) {
        self.region = region
        self.repeats = repeats
        self.box = rules.isEmpty ? nil : FenceRulesBox(rules)
    }

    /// Dwell, accuracy, window and crossings (``FenceRules``); ``FenceRules/none`` for
    /// Apple's plain trigger.
    public var rules: FenceRules {
        get { box?.rules ?? .none }
        set { box = newValue.isEmpty ? nil : FenceRulesBox(newValue) }
    }

    /// Whether any rule is set (the evaluator follows such fences on their own path).
    package var hasRules: Bool { box != nil }

    public static func == (a: LocationTrigger, b: LocationTrigger) -> Bool {
        a.region == b.region && a.repeats == b.repeats && a.rules == b.rules
    }

    public func hash(into h: inout Hasher) {
        h.combine(region)
        h.combine(repeats)
        h.combine(rules)
    }
}

/// A point on the WGS84 ellipsoid, in degrees (CoreLocation's `CLLocationCoordinate2D`).
public struct Coordinate: Sendable, Hashable {
    /// Degrees north, in [-90, 90].
    public var latitude: Double
    /// Degrees east, in [-180, 180].
    public var longitude: Double

    /// A WGS 84 position.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A geographic region a location trigger watches.
public enum Region: Sendable, Hashable {
    /// A circle: CoreLocation's `CLCircularRegion`.
    case circular(CircularRegion)
    /// A GeoJSON polygon or multipolygon (holes allowed; the boundary counts as inside).
    case polygon(PolygonRegion)

    /// The region's identifier, reported in location events.
    public var identifier: String {
        switch self {
        case .circular(let c): c.identifier
        case .polygon(let p): p.identifier
        }
    }

    /// Whether entering fires.
    public var notifyOnEntry: Bool {
        switch self {
        case .circular(let c): c.notifyOnEntry
        case .polygon(let p): p.notifyOnEntry
        }
    }

    /// Whether leaving fires.
    public var notifyOnExit: Bool {
        switch self {
        case .circular(let c): c.notifyOnExit
        case .polygon(let p): p.notifyOnExit
        }
    }
}

/// A circle around a center, radius in metres: CoreLocation's `CLCircularRegion`.
public struct CircularRegion: Sendable, Hashable {
    /// The region's identifier, named by its events.
    public var identifier: String
    /// The circle's centre.
    public var center: Coordinate
    /// Metres, in (0, 1,000,000].
    public var radius: Double
    /// Whether entering fires (default true).
    public var notifyOnEntry: Bool
    /// Whether leaving fires (default true).
    public var notifyOnExit: Bool

    /// A circle of `radius` metres (geodesic, WGS 84) around `center`.
    public init(identifier: String, center: Coordinate, radius: Double, notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
        self.identifier = identifier
        self.center = center
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }
}

/// A region bounded by GeoJSON (RFC 7946) polygons in longitude/latitude.
///
/// Each polygon's longitudes are read as given when they span at most 180 degrees, else
/// across the antimeridian (a ring through 170 and -170 is the 20 degrees over 180). A
/// polygon wider than 180 degrees both ways, or a ring around a pole, is refused
/// (``RequestErrorCode/invalidRegion``): split it into polygons less than 180 degrees wide.
public struct PolygonRegion: Sendable, Hashable {
    /// The region's identifier, named by its events.
    public var identifier: String
    /// One or more polygons; each is an outer ring followed by its holes; each ring is a
    /// closed list of coordinates (first == last).
    public var polygons: [[[Coordinate]]]
    /// Whether the source was a `MultiPolygon` (kept so encoding gives back the same JSON).
    public var isMultiPolygon: Bool
    /// Whether entering fires (default true).
    public var notifyOnEntry: Bool
    /// Whether leaving fires (default true).
    public var notifyOnExit: Bool

    /// A GeoJSON Polygon (one element in `polygons`) or MultiPolygon: each polygon a shell and its holes, rings closed.
    public init(identifier: String, polygons: [[[Coordinate]]], isMultiPolygon: Bool,
                notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
        self.identifier = identifier
        self.polygons = polygons
        self.isMultiPolygon = isMultiPolygon
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }
}
