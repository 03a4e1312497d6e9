import Foundation

// Fences with rules a device cannot have moved across since it last measured them: the
// path-length bound the main path's neighbourhoods use, here per (device, circle fence).

extension GuardedFences {
    /// For one device: the circle fences measured at its recent fixes, each with the path
    /// length (metres, the sum of its steps' upper bounds since the last restart) at which it
    /// must be measured again. Below that, by the triangle inequality, the device is still on
    /// the side of the one threshold that could move its link: radius - margin for a device
    /// outside (entering needs distance + accuracy <= radius - margin), radius + margin for one
    /// inside (leaving needs distance - accuracy > radius + margin). A larger accuracy only
    /// makes either move harder, so the bound holds whatever the next fix's accuracy is.
    /// With `crossings`, a device outside is kept farther than the radius itself: every
    /// point of the geodesic from the previous fix is within the path's sum of the fix the
    /// bound was taken at, so no pass-through (the path within the radius) can come sooner.
    ///
    /// Bounded: one entry per circle the device's last fix looked at (the fences of its
    /// grid cell, the grid's few large fences, and its links), 16 bytes each, in a buffer of
    /// at most twice that plus 16 entries (``keep(_:)``). A cache: never persisted, and
    /// output never depends on it (tested against measuring every fence at every fix).
    /// Needs accuracies >= 0 (``StreamEvaluator`` drops a fix with a negative one first).
    struct Quiet {
        struct Entry {
            var fence: Int32
            /// The link's side the bound was taken for; a link now on the other side (moved
            /// since) is measured again.
            var inside: Bool
            /// Path length at which the fence must be measured again.
            var due: Double
        }
        /// Sorted by fence.
        var entries: [Entry] = []
        /// The path since the last restart, the last fix (longitude unwrapped), fixes since.
        var path = 0.0
        var latitude = Double.nan
        var longitude = Double.nan
        var steps: UInt32 = 0
        /// Metres per degree of longitude are at most ``kLon`` while no fix is nearer the
        /// equator than ``kLonLatitude`` (degrees).
        var kLon = 0.0
        var kLonLatitude = 0.0

        /// Adds the step to a fix, or restarts (forgetting every entry: each fence is
        /// measured) when no entry is left, after a jump of ~5 km or more, nearer the equator
        /// than the longitude scale allows, or after ``Neighbourhood/restartSteps`` fixes or
        /// ``Neighbourhood/restartPath`` metres (so the sum's rounding stays far below the
        /// cushion). Returns the path travelled.
        mutating func advance(latitude lat: Double, longitude lon: Double) -> Double {
            let dLat = lat - latitude, dLon = Geodesic.unwrapDegrees(lon - longitude)
            // Both fixes on one side of the equator, the nearer to it no nearer than allowed.
            let lowest = lat * latitude > 0 ? min(abs(lat), abs(latitude)) : 0
            let near = abs(dLat) + abs(dLon) < 0.05 && lowest >= kLonLatitude
            steps &+= 1
            if near, !entries.isEmpty, steps < Neighbourhood.restartSteps {
                path += RegionIndex.stepBound(dLat: dLat, dLon: dLon, kLon: kLon)
                latitude = lat
                longitude = lon
                if path < Neighbourhood.restartPath { return path }
            }
            entries.removeAll(keepingCapacity: true)
            path = 0
            steps = 0
            latitude = lat
            longitude = lon
            // The scale holds for every latitude at least kLonLatitude from the equator; it
            // is taken again (a cosine) after a far step or a drift of 0.05 degrees poleward,
            // with room for steps of up to 0.05 degrees towards the equator.
            if !near || abs(lat) - 0.15 > kLonLatitude {
                kLonLatitude = max(0, abs(lat) - 0.1)
                kLon = RegionIndex.kLatMax * cos(kLonLatitude * Geodesic.degree)
            }
            return 0
        }

        /// Forgets every entry (a restored device, whose links were replaced).
        mutating func forget() { self = Quiet() }

        /// Takes the bounds of this fix as the entries, copied: a buffer grown for one
        /// device's many fences is never handed to another (each device's buffer stays
        /// within twice its own entries plus 16).
        mutating func keep(_ bounds: [Entry]) {
            if entries.capacity > 2 * bounds.count + 16 {
                entries = []
                entries.reserveCapacity(bounds.count)
            } else {
                entries.removeAll(keepingCapacity: true)
            }
            entries.append(contentsOf: bounds)
        }
    }

    /// Slack below which a bound is not kept (metres): rounding in the path's sum and in the
    /// distance, with room to spare.
    static let quietCushion = 1e-3

    /// How far a fix (longitude unwrapped) may move before circle fence `f` could move a link
    /// on side `inside`: a lower bound (metres) of its distance to radius - margin (outside;
    /// the radius itself with `crossings`) or radius + margin (inside); 0 within the
    /// measurement's error of it; nil for a polygon.
    func quietSlack(_ f: Int, latitude: Double, longitude: Double, inside: Bool) -> Double? {
        guard let (lower, upper) = regions.centreDistance(slot: Int32(f), latitude: latitude, longitude: longitude) else { return nil }
        let r = fences[f].radius
        let slack = inside ? (r + margin) - upper : lower - (fences[f].crossings ? r : r - margin)
        return max(0, slack - Self.quietCushion)
    }
}

extension RegionIndex {
    /// For a circle, bounds (metres) of the geodesic distance from its centre to a point
    /// (the distance ``contains(slot:latitude:longitude:)`` and ``boundarySide(slot:latitude:longitude:)``
    /// decide by): the flat plane's distance within its error bound (up to
    /// ``LocalPlane/measuredRange``), or the geodesic itself, each widened by
    /// ``geodesicSlack``. nil for polygons and invalid slots.
    func centreDistance(slot: Int32, latitude: Double, longitude: Double) -> (lower: Double, upper: Double)? {
        guard var (d, err, _) = centreMeasure(slot: slot, latitude: latitude, longitude: longitude) else { return nil }
        if err > 0 && d > LocalPlane.measuredRange {
            // Beyond the range the plane's error bound was measured over: the geodesic.
            let e = entries[Int(slot)]
            d = Geodesic.distance(latitude1: e.latitude, longitude1: e.longitude, latitude2: latitude, longitude2: longitude)
            err = 0
        }
        let bound = err + Self.geodesicSlack
        return (d - bound, d + bound)
    }
}
