#!/usr/bin/env python3
"""Geofence pipeline, whole process against whole process (issue 12's benchmark).

  tools/geofence-bench.py [--devices 1000] [--seconds 1000] [--regions 10000] [--runs 3]
                          [--polygons] [--area metro|region] [--long-device-ids] [--data /tmp/triggerkit-geo]
                          [--triggerkit PATH]

Workload (tools/gen-geo.py, fixed seeds, cached in --data): --regions circles of 50-2,000 m
around New York (--area metro: 0.5 x 0.6 degrees, dense, a point is inside ~15 circles; --area
region: 2 x 2.5 degrees, about one) (or, with --polygons, convex polygons of 8-64 vertices and the same radii),
and --devices devices moving at 1 Hz for --seconds, each at its own speed in 1-30 m/s.
Three commands, each a whole process reading the same files, --runs times in turn:
  TriggerKit  triggerkit run --requests REGIONS < FIXES > out     (--margin 0 --initial fire)
  floor       triggerkit run --requests EMPTY   < FIXES > out     (no regions: parsing, clock, I/O)
  shapely     tools/shapely-run.py --requests REGIONS < FIXES > out
and prints medians of wall and CPU (user + sys of the reaped child), peak memory, events, and
the ratios shapely / TriggerKit and TriggerKit / floor (per run pair, then the median).
Needs a release build of triggerkit and python3 with shapely 2 and numpy.
"""
import argparse
import os
import statistics
import subprocess
import sys

from benchutil import add_common_arguments, count_lines, generate, run_measured

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--seconds", type=int, default=1000)
    ap.add_argument("--regions", type=int, default=10000)
    ap.add_argument("--polygons", action="store_true", help="convex polygons of 8-64 vertices instead of circles")
    ap.add_argument("--long-device-ids", action="store_true",
                    help="device ids of 64 hex digits (an APNs token's length) instead of d-0000")
    ap.add_argument("--area", choices=["metro", "region"], default="metro",
                    help="metro (default): 0.5 x 0.6 degrees around New York, a point is inside ~15 regions; region: 2 x 2.5 degrees, ~1")
    add_common_arguments(ap)
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    os.makedirs(a.data, exist_ok=True)
    shape = "polygons" if a.polygons else "circles"
    suffix = "" if a.area == "metro" else "-" + a.area
    rargs = ["regions", "--area", a.area, "--count", str(a.regions), "--min-radius", "50", "--max-radius", "2000", "--seed", "11"]
    if a.polygons:
        rargs += ["--polygons", "1", "--vertices", "8", "64", "--polygon-radius", "50", "2000"]
    regions = generate(a.data, "regions-%s-%d%s.ndjson" % (shape, a.regions, suffix), rargs)
    fixes = generate(a.data, "fixes-%dx%d%s%s.ndjson" % (a.devices, a.seconds, suffix, "-longids" if a.long_device_ids else ""),
                     ["fixes", "--area", a.area, "--mode", "moving", "--devices", str(a.devices), "--seconds",
                      str(a.seconds), "--speed-range", "1", "30", "--seed", "12"] + (["--long-device-ids"] if a.long_device_ids else []))
    empty = os.path.join(a.data, "empty.ndjson")
    open(empty, "w").close()
    lines = count_lines(fixes)
    tk = [a.triggerkit, "run", "--margin", "0", "--initial", "fire"]
    commands = {
        "TriggerKit": tk + ["--requests", regions],
        "floor": tk + ["--requests", empty],
        "shapely": [sys.executable, os.path.join(ROOT, "tools", "shapely-run.py"), "--requests", regions],
    }
    results = {k: [] for k in commands}
    events = {}
    for r in range(a.runs):
        for name, cmd in commands.items():
            out = os.path.join(a.data, "out-%s.ndjson" % name)
            wall, cpu, peak, rc, err = run_measured(cmd, fixes, out, a.timeout)
            if rc != 0:
                sys.stderr.write("%s exited %d: %s\n" % (name, rc, err[-500:]))
            results[name].append((wall, cpu, peak))
            events[name] = count_lines(out)
            sys.stderr.write("run %d %s: wall %.3f s cpu %.3f s\n" % (r + 1, name, wall, cpu))
    med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v), max(x[2] for x in v))
           for k, v in results.items()}
    print("# Geofence pipeline, whole processes: %s\n" % shape)
    print("%d fixes (%d devices x %d s at 1 Hz, 1-30 m/s), %d %s of 50-2,000 m, area %s, %d runs each in turn, medians.\n"
          % (lines, a.devices, a.seconds, a.regions, shape, a.area, a.runs))
    print("| command | wall s | cpu s | ns/fix (wall) | peak MiB | output lines |")
    print("|---|---:|---:|---:|---:|---:|")
    for k, (w, c, p) in med.items():
        print("| %s | %.3f | %.3f | %.0f | %.0f | %d |" % (k, w, c, w * 1e9 / lines, p, events[k]))
    def pair_ratio(x, y, i):
        return statistics.median(results[x][j][i] / results[y][j][i] for j in range(a.runs))
    print("\nshapely / TriggerKit: **%.2fx** wall, %.2fx cpu (goal >= 5x)" % (pair_ratio("shapely", "TriggerKit", 0), pair_ratio("shapely", "TriggerKit", 1)))
    print("TriggerKit / floor: **%.2fx** wall, %.2fx cpu (goal <= 2x)" % (pair_ratio("TriggerKit", "floor", 0), pair_ratio("TriggerKit", "floor", 1)))
    print("(wall and CPU of each child as wait4(2) reports them; peak MiB: the command's largest resident set over its runs.)")
    import json
    def keyset(path):
        out = set()
        with open(path) as fh:
            for line in fh:
                o = json.loads(line)
                out.add((o["identifier"], o["date"], o["event"], o["device"]))
        return out
    t = keyset(os.path.join(a.data, "out-TriggerKit.ndjson"))
    sh = keyset(os.path.join(a.data, "out-shapely.ndjson"))
    print("events: TriggerKit %d, shapely %d, in both %d (the others differ by one fix: haversine, up to 0.5 %% off the WGS84 geodesic, decides a few crossings one fix earlier or later)"
          % (len(t), len(sh), len(t & sh)))


if __name__ == "__main__":
    main()
