// Measures RegionIndex queries (ns per fix) and memory per region. Same distributions as
// tools/gen-geo.py, generated in-process with fixed seeds so parsing is not measured.
import Foundation
@_spi(Engine) import TriggerKit
import BenchSupport

enum Area { case metro, world }

func randomPoint(_ area: Area, _ rng: inout SplitMix64) -> (Double, Double) {
    switch area {
    case .metro: return (Double.random(in: 40.45...40.95, using: &rng), Double.random(in: -74.30 ... -73.70, using: &rng))
    case .world: return (asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi, Double.random(in: -180...180, using: &rng))
    }
}

func circles(_ area: Area, _ n: Int, seed: UInt64) -> [Region] {
    var rng = SplitMix64(seed: seed)
    return (0..<n).map { i in
        let (lat, lon) = randomPoint(area, &rng)
        return .circular(CircularRegion(identifier: "geo-\(i)", center: Coordinate(latitude: lat, longitude: lon),
                                        radius: Double.random(in: 50...500, using: &rng)))
    }
}

func randomFixes(_ area: Area, _ n: Int, seed: UInt64) -> [(Double, Double)] {
    var rng = SplitMix64(seed: seed)
    return (0..<n).map { _ in randomPoint(area, &rng) }
}

/// Random walks at 1 Hz, interleaved by time as a stream would deliver them.
func movingFixes(_ area: Area, devices: Int, seconds: Int, speed: Double, seed: UInt64) -> [(Double, Double)] {
    var rng = SplitMix64(seed: seed)
    var s = (0..<devices).map { _ -> (Double, Double, Double) in
        let (lat, lon) = randomPoint(area, &rng)
        return (lat, lon, Double.random(in: 0..<(2 * .pi), using: &rng))
    }
    var out: [(Double, Double)] = []
    out.reserveCapacity(devices * seconds)
    for _ in 0..<seconds {
        for d in 0..<devices {
            var (lat, lon, h) = s[d]
            h += Double.random(in: -0.25...0.25, using: &rng)
            let v = speed * Double.random(in: 0.7...1.3, using: &rng)
            lat += v * cos(h) / 111_320
            lon += v * sin(h) / (111_320 * max(0.01, cos(lat * .pi / 180)))
            lat = min(89.9, max(-89.9, lat))
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            if area == .metro && !(40.45...40.95).contains(lat) || area == .metro && !(-74.30 ... -73.70).contains(lon) { h += .pi }
            s[d] = (lat, lon, h)
            out.append((lat, lon))
        }
    }
    return out
}

func now() -> UInt64 { nowNanos() }  // thread CPU time (BenchSupport)

/// Median of `runs` passes over all fixes: ns per query, and hits per query.
func measure(_ index: RegionIndex, _ fixes: [(Double, Double)], margin: Double = 0, runs: Int = 3) -> (ns: Double, hits: Double) {
    var hits: [RegionHit] = []
    hits.reserveCapacity(64)
    var times: [Double] = []
    var total = 0
    for _ in 0..<runs {
        total = 0
        let t0 = now()
        for (lat, lon) in fixes {
            index.query(latitude: lat, longitude: lon, margin: margin, into: &hits)
            total &+= hits.count
        }
        times.append(Double(now() - t0) / Double(fixes.count))
    }
    return (times.sorted()[runs / 2], Double(total) / Double(fixes.count))
}

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }

let args = CommandLine.arguments
let fixCount = 1_000_000
print("| workload | regions | fixes | ns/query (median of 3) | hits/query |")
print("|---|---|---|---|---|")
for (name, area, n, speed) in [("metro", Area.metro, 10_000, 12.0), ("world", Area.world, 200_000, 12.0)] {
    let regions = circles(area, n, seed: 1)
    let t0 = now()
    let index = RegionIndex(regions: regions, maximumMargin: 10)
    let buildMs = Double(now() - t0) / 1e6
    print("<!-- \(name): \(index.gridDescription) -->")
    for (label, fixes) in [("random points", randomFixes(area, fixCount, seed: 2)),
                           ("moving, walk 1.4 m/s", movingFixes(area, devices: 1000, seconds: fixCount / 1000, speed: 1.4, seed: 3)),
                           ("moving, drive \(Int(speed)) m/s", movingFixes(area, devices: 1000, seconds: fixCount / 1000, speed: speed, seed: 4))] {
        let r = measure(index, fixes)
        print("| \(name) \(label) | \(n) circles 50-500 m | \(fixes.count) | \(String(format: "%.1f", r.ns)) | \(String(format: "%.3f", r.hits)) |")
    }
    let m = measure(index, randomFixes(area, fixCount, seed: 5), margin: 10)
    print("| \(name) random, margin 10 m | \(n) | \(fixCount) | \(String(format: "%.1f", m.ns)) | \(String(format: "%.3f", m.hits)) |")
    print("| \(name) build | \(n) | | \(String(format: "%.0f ms", buildMs)) | |")
}

// Memory with 1,000,000 regions (world circles): resident set growth while building and
// holding the index; the region array itself is freed before measuring the index alone.
do {
    var regions: [Region]? = circles(.world, 1_000_000, seed: 9)
    let before = residentBytes()
    let t0 = now()
    let index = RegionIndex(regions: regions ?? [], maximumMargin: 0)
    let buildMs = Double(now() - t0) / 1e6
    let after = residentBytes()
    regions = nil
    let held = residentBytes()
    let r = measure(index, randomFixes(.world, fixCount, seed: 6))
    print("| world random points | 1,000,000 circles | \(fixCount) | \(String(format: "%.1f", r.ns)) | \(String(format: "%.3f", r.hits)) |")
    print("")
    print("1M regions: build \(String(format: "%.0f", buildMs)) ms; RSS growth while building \((after - before) / 1_000_000) MB; " +
          "index arrays \(index.memoryBytes / 1_000_000) MB = \(index.memoryBytes / 1_000_000) bytes/region (entry stride 72 B); RSS after freeing the input \(held / 1_000_000) MB")
}
