#!/usr/bin/env python3
"""Generates geofence workloads: regions as a requests NDJSON file (location triggers, contract
section 2) and traces as fixes NDJSON (contract section 4). Python 3 standard library only;
fixed seeds give byte-identical files.

  tools/gen-geo.py regions --area metro --count 10000 --out regions.ndjson
  tools/gen-geo.py regions --area world --count 200000 --polygons 0.01 --out world.ndjson
  tools/gen-geo.py fixes --area metro --mode random --count 1000000 --out fixes.ndjson
  tools/gen-geo.py fixes --area metro --mode moving --devices 1000 --seconds 1000 --speed walk
  tools/gen-geo.py fixes --area metro --mode moving --devices 1000 --seconds 1000 --speed-range 1 30
  tools/gen-geo.py regions --count 10000 --polygons 1 --vertices 8 64 --polygon-radius 50 2000

Areas: metro = around New York (40.45..40.95 N, 74.3..73.7 W), circles of 50-500 m;
world = anywhere (uniform on the sphere), circles of 50-500 m.
Moving traces: each device does a random walk at 1 Hz (walk ~1.4 m/s, drive ~12 m/s, heading
changing smoothly), fixes interleaved by time, with GPS-like accuracy values.
"""
import argparse
import datetime
import math
import random
import sys

AREAS = {
    "metro": (40.45, 40.95, -74.30, -73.70),
    # A state-sized spread around New York (about 220 x 210 km).
    "region": (39.50, 41.50, -75.50, -73.00),
    "world": None,
}
SPEEDS = {"walk": 1.4, "drive": 12.0}
EPOCH = datetime.datetime(2026, 11, 21, 9, 0, 0, tzinfo=datetime.timezone.utc)


def point(rng, area):
    box = AREAS[area]
    if box is None:
        # Uniform on the sphere: latitude from asin of a uniform sine.
        return math.degrees(math.asin(rng.uniform(-1, 1))), rng.uniform(-180, 180)
    return rng.uniform(box[0], box[1]), rng.uniform(box[2], box[3])


def iso(seconds):
    return (EPOCH + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def regions(args, rng, out):
    # UUID request identifiers come from a generator of their own, so that the regions are
    # the same as with sequential ones (only the request identifiers differ).
    ids = random.Random(args.seed * 7919 + 1)
    for i in range(args.count):
        lat, lon = point(rng, args.area)
        ident = "geo-%07d" % i
        request = ident if args.identifiers == "sequential" else "%08x-%04x-%04x-%04x-%012x" % (
            ids.getrandbits(32), ids.getrandbits(16), ids.getrandbits(16), ids.getrandbits(16), ids.getrandbits(48))
        if rng.random() < args.polygons:
            # A convex polygon (--vertices, default 6-12) of radius --polygon-radius (default
            # 50-500 m), closed ring.
            r = rng.uniform(*args.polygon_radius)
            n = rng.randint(*args.vertices)
            ring = []
            for k in range(n):
                a = 2 * math.pi * k / n
                dlat = r * math.cos(a) / 111_320
                dlon = r * math.sin(a) / (111_320 * max(0.01, math.cos(math.radians(lat))))
                ring.append("[%.7f, %.7f]" % (max(-180, min(180, lon + dlon)), max(-90, min(90, lat + dlat))))
            ring.append(ring[0])
            region = ('{"identifier": "%s", "geometry": {"type": "Polygon", "coordinates": [[%s]]}}'
                      % (ident, ", ".join(ring)))
        else:
            region = ('{"identifier": "%s", "center": {"latitude": %.7f, "longitude": %.7f}, "radius": %.1f}'
                      % (ident, lat, lon, rng.uniform(args.min_radius, args.max_radius)))
        out.write('{"identifier": "%s", "content": {"title": "Arrived"}, '
                  '"trigger": {"type": "location", "region": %s, "repeats": true}}\n' % (request, region))


def device_names(args):
    """d-0000, d-0001, ... or, with --long-device-ids, 64 hex digits each (an APNs token's
    length), from a generator of their own so that the trace is the same."""
    n = max(1, args.devices)
    if not args.long_device_ids:
        return ["d-%04d" % d for d in range(n)]
    ids = random.Random(args.seed * 104729 + 3)
    return ["%064x" % ids.getrandbits(256) for _ in range(n)]


def fixes(args, rng, out):
    names = device_names(args)
    if args.mode == "random":
        for i in range(args.count):
            lat, lon = point(rng, args.area)
            out.write('{"device": "%s", "t": "%s", "lat": %.7f, "lon": %.7f, "acc": %.1f}\n'
                      % (names[i % max(1, args.devices)], iso(i // max(1, args.devices)), lat, lon, rng.uniform(3, 30)))
        return
    state = []
    for d in range(args.devices):
        lat, lon = point(rng, args.area)
        # Each device keeps its own typical speed: the --speed preset, or uniform in --speed-range.
        speed = rng.uniform(*args.speed_range) if args.speed_range else SPEEDS[args.speed]
        state.append([lat, lon, rng.uniform(0, 2 * math.pi), speed])
    for t in range(args.seconds):
        for d, s in enumerate(state):
            s[2] += rng.gauss(0, 0.15)  # heading drifts smoothly
            v = max(0.0, rng.gauss(s[3], s[3] * 0.2))
            s[0] += v * math.cos(s[2]) / 111_320
            s[1] += v * math.sin(s[2]) / (111_320 * max(0.01, math.cos(math.radians(s[0]))))
            if s[0] > 89.9 or s[0] < -89.9:
                s[0] = max(-89.9, min(89.9, s[0])); s[2] += math.pi
            s[1] = (s[1] + 180) % 360 - 180
            box = AREAS[args.area]
            if box and not (box[0] <= s[0] <= box[1] and box[2] <= s[1] <= box[3]):
                s[2] += math.pi  # turn back into the area
            out.write('{"device": "%s", "t": "%s", "lat": %.7f, "lon": %.7f, "acc": %.1f}\n'
                      % (names[d], iso(t), s[0], s[1], rng.uniform(3, 30)))


def main():
    ap = argparse.ArgumentParser(description="geofence workload generator (regions, fixes)")
    ap.add_argument("what", choices=["regions", "fixes"])
    ap.add_argument("--area", choices=sorted(AREAS), default="metro")
    ap.add_argument("--count", type=int, default=10000, help="regions, or fixes for --mode random")
    ap.add_argument("--polygons", type=float, default=0.0, help="fraction of regions that are polygons")
    ap.add_argument("--min-radius", type=float, default=50.0)
    ap.add_argument("--max-radius", type=float, default=500.0)
    ap.add_argument("--mode", choices=["random", "moving"], default="random")
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--seconds", type=int, default=1000, help="trace length at 1 Hz (--mode moving)")
    ap.add_argument("--speed", choices=sorted(SPEEDS), default="walk")
    ap.add_argument("--speed-range", type=float, nargs=2, metavar=("MIN", "MAX"),
                    help="per-device speed uniform in MIN..MAX m/s (instead of --speed)")
    ap.add_argument("--vertices", type=int, nargs=2, default=(6, 12), metavar=("MIN", "MAX"),
                    help="polygon vertex count range")
    ap.add_argument("--polygon-radius", type=float, nargs=2, default=(50.0, 500.0), metavar=("MIN", "MAX"),
                    help="polygon radius range, metres")
    ap.add_argument("--long-device-ids", action="store_true",
                    help="device ids of 64 hex digits (an APNs token's length) instead of d-0000")
    ap.add_argument("--identifiers", choices=["sequential", "uuid"], default="sequential",
                    help="request identifiers: geo-0000000, geo-0000001, ... (default) or random UUIDs (regions keep theirs)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout if args.out == "-" else open(args.out, "w")
    with out:
        (regions if args.what == "regions" else fixes)(args, rng, out)


if __name__ == "__main__":
    main()
