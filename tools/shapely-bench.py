#!/usr/bin/env python3
"""Peer benchmark: the geofence containment step with shapely 2.x, on the same files the
Swift benchmarks read (tools/gen-geo.py output). Circular regions only (polygons are skipped).

Method (what the field does with shapely): each circle's bounding box in degrees goes into an
STRtree; the fixes are numpy arrays (parsed before timing: no JSON in the timed part); per
batch, shapely.points + tree.query(points) gives (fix, box) candidate pairs, and a vectorised
haversine distance (mean Earth radius; up to ~0.5 % off the WGS84 geodesic) <= radius keeps
the hits. Boxes that cross the antimeridian are not split (a handful of world circles).

  tools/shapely-bench.py --requests regions.ndjson --fixes fixes.ndjson [--passes 3] [--batch 100000]

Prints one line: key=value ... (ns per fix, median of passes).
"""
import argparse
import json
import statistics
import sys
import time

try:
    import numpy as np
    import shapely
except ImportError:
    print("skipped=shapely-or-numpy-not-installed")
    sys.exit(0)

EARTH_M = 6_371_008.8
M_PER_DEG = 111_320.0


def load_circles(path):
    lat, lon, rad = [], [], []
    with open(path) as fh:
        for line in fh:
            if not line.strip():
                continue
            r = json.loads(line)
            region = r.get("trigger", {}).get("region") or r.get("region") or r
            c = region.get("center")
            if c is None:
                continue
            lat.append(c["latitude"])
            lon.append(c["longitude"])
            rad.append(region["radius"])
    return np.array(lat), np.array(lon), np.array(rad)


def load_fixes(path):
    lat, lon = [], []
    with open(path) as fh:
        for line in fh:
            o = json.loads(line)
            if "lat" in o:
                lat.append(o["lat"])
                lon.append(o["lon"])
    return np.array(lat), np.array(lon)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", required=True)
    ap.add_argument("--fixes", required=True)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--batch", type=int, default=100_000)
    a = ap.parse_args()
    clat, clon, crad = load_circles(a.requests)
    flat, flon = load_fixes(a.fixes)

    t0 = time.perf_counter()
    dlat = crad / M_PER_DEG
    dlon = crad / (M_PER_DEG * np.maximum(0.01, np.cos(np.radians(clat))))
    boxes = shapely.box(clon - dlon, clat - dlat, clon + dlon, clat + dlat)
    tree = shapely.STRtree(boxes)
    tree.query(shapely.points([0.0], [0.0]))  # force the lazy build
    build_ms = (time.perf_counter() - t0) * 1000

    rlat, rlon = np.radians(clat), np.radians(clon)
    times, query_times, hits, cands = [], [], 0, 0
    for _ in range(a.passes):
        hits = cands = 0
        q = 0.0
        t0 = time.perf_counter()
        for s in range(0, len(flat), a.batch):
            la, lo = flat[s:s + a.batch], flon[s:s + a.batch]
            q0 = time.perf_counter()
            pts = shapely.points(lo, la)
            fi, ri = tree.query(pts)
            q += time.perf_counter() - q0
            p1, p2 = np.radians(la[fi]), rlat[ri]
            h = (np.sin((p2 - p1) / 2) ** 2
                 + np.cos(p1) * np.cos(p2) * np.sin((rlon[ri] - np.radians(lo[fi])) / 2) ** 2)
            d = 2 * EARTH_M * np.arcsin(np.sqrt(np.minimum(h, 1.0)))
            hits += int(np.count_nonzero(d <= crad[ri]))
            cands += len(fi)
        times.append((time.perf_counter() - t0) * 1e9 / len(flat))
        query_times.append(q * 1e9 / len(flat))
    print("mode=shapely shapely=%s geos=%s regions=%d fixes=%d hits=%d candidates_per_fix=%.2f ns_per_fix=%.1f "
          "query_only_ns_per_fix=%.1f build_ms=%.1f passes=%s"
          % (shapely.__version__, ".".join(map(str, shapely.geos_version)), len(clat), len(flat), hits,
             cands / len(flat), statistics.median(times), statistics.median(query_times), build_ms,
             ",".join("%.1f" % t for t in times)))


if __name__ == "__main__":
    main()
