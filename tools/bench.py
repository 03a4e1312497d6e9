#!/usr/bin/env python3
"""Runs every TriggerKit benchmark and prints the tables (markdown). `make bench` calls it.

  python3 tools/bench.py [--fixes 500000] [--data /tmp/triggerkit-bench] [--only calendar,geo,stream,memory,restart]

Expects release builds: `swift build -c release --product triggerkit` (repository root) and
`swift build -c release` in Benchmarks/ (the Makefile does both). Workload files come from
tools/gen-geo.py (fixed seeds) and are cached in --data. Stream timings are medians of 3 runs;
ratios are only formed between numbers measured in the same invocation.
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time

from benchutil import generate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, ".build", "release", "triggerkit")
BENCH = os.path.join(ROOT, "Benchmarks", ".build", "release")


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def kv(line):
    return dict(x.split("=", 1) for x in line.split() if "=" in x)


def first_line_file(path):
    out = path + ".first"
    if not os.path.exists(out):
        with open(path) as src, open(out, "w") as dst:
            dst.write(src.readline())
    return out


def count_lines(path):
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cli_cpu(requests, fixes, runs=3):
    """Median CPU seconds (user + system) of `triggerkit run`: the cores are shared, so wall
    time would count time spent waiting for a core."""
    times = []
    for _ in range(runs):
        with open(fixes, "rb") as stdin:
            t0 = children_cpu()
            subprocess.run([CLI, "run", "--requests", requests], stdin=stdin, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            times.append(children_cpu() - t0)
    return statistics.median(times)


def stream(data, n):
    print("\n## Stream: `triggerkit run` per fix (parse + evaluate + write), parse-only, index-only, shapely\n")
    print("Fixes: %d per workload; moving = 1,000 devices at 1 Hz. Circles 50-500 m (tools/gen-geo.py). "
          "CLI = CPU time (user + sys) of `triggerkit run --requests R < fixes > /dev/null` minus the same command "
          "on a one-line input (loading requests + building the index), divided by the lines; the Swift "
          "benchmarks time with thread CPU time, shapely with wall time (single-threaded numpy/GEOS). Medians of 3." % n)
    sets = [
        ("metro", "10k", ["regions", "--area", "metro", "--count", "10000"]),
        ("world", "200k", ["regions", "--area", "world", "--count", "200000"]),
    ]
    rows = []
    for area, label, rargs in sets:
        regions = generate(data, "regions-%s-%s.ndjson" % (area, label), rargs)
        # Seeds differ from the regions' (1): gen-geo.py draws points from the same sequence, so
        # equal seeds would put every 4th fix (or moving device's start) on a region's centre.
        for mode, fargs in [("random", ["--mode", "random", "--count", str(n), "--devices", "1000", "--seed", "2"]),
                            ("moving walk", ["--mode", "moving", "--devices", "1000", "--seconds", str(n // 1000), "--speed", "walk", "--seed", "3"]),
                            ("moving drive", ["--mode", "moving", "--devices", "1000", "--seconds", str(n // 1000), "--speed", "drive", "--seed", "4"])]:
            fixes = generate(data, "fixes-%s-%s-%d-s%s.ndjson" % (area, mode.replace(" ", "-"), n, fargs[-1]), ["fixes", "--area", area] + fargs)
            lines = count_lines(fixes)
            startup = cli_cpu(regions, first_line_file(fixes))
            wall = cli_cpu(regions, fixes)
            cli_ns = (wall - startup) * 1e9 / lines
            parse = kv(sh([os.path.join(BENCH, "StreamBench"), "parse", fixes]))
            pipe = kv(sh([os.path.join(BENCH, "StreamBench"), "pipeline", regions, fixes]))
            pipe["eval"] = kv(sh([os.path.join(BENCH, "StreamBench"), "evaluate", regions, fixes]))["ns_per_line"]
            query = kv(sh([os.path.join(BENCH, "StreamBench"), "query", regions, fixes]))
            shp = kv(sh([sys.executable, os.path.join(ROOT, "tools", "shapely-bench.py"), "--requests", regions, "--fixes", fixes]))
            rows.append((area, label, mode, lines, startup, cli_ns, parse, pipe, query, shp))
            sys.stderr.write("stream %s %s %s done\n" % (area, label, mode))
    print("\n| workload | regions | fires | CLI ns/fix | in-process pipeline ns/fix | same without writing | parse-only ns/line | CLI / parse | "
          "index-only ns/fix | shapely ns/fix | shapely / CLI | shapely / index | hits TK / shapely |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for area, label, mode, lines, startup, cli_ns, parse, pipe, query, shp in rows:
        p = float(parse["ns_per_line"])
        q = float(query["ns_per_fix"])
        if "ns_per_fix" in shp:
            s = float(shp["ns_per_fix"])
            shapely_cols = "%.0f | %.1fx | %.1fx | %s / %s" % (s, s / cli_ns, s / q, query["hits"], shp["hits"])
        else:
            shapely_cols = "skipped (shapely not installed) | - | - | -"
        print("| %s %s | %s | %s | %.0f | %s | %s | %.0f | %.2fx | %s | %s |"
              % (area, mode, label, pipe["fires"], cli_ns, pipe["ns_per_line"], pipe["eval"], p, cli_ns / p, query["ns_per_fix"], shapely_cols))
    print("\nStartup (load requests + build index, one-line input): "
          + ", ".join("%s %s %.0f ms" % (r[0], r[1], r[4] * 1000) for r in rows if r[2] == "random"))
    for r in rows:
        if "ns_per_fix" in r[9]:
            print("shapely %s, GEOS %s; %s %s: %s candidates per fix, query-only (points + STRtree) %s ns/fix, tree build %s ms."
                  % (r[9]["shapely"], r[9]["geos"], r[0], r[2], r[9]["candidates_per_fix"], r[9]["query_only_ns_per_fix"], r[9]["build_ms"]))


def memory(data):
    print("\n## Peak memory: 1,000,000 circular regions (world), 10,000 devices\n")
    regions = generate(data, "regions-world-1M.ndjson", ["regions", "--area", "world", "--count", "1000000"])
    fixes = generate(data, "fixes-world-moving-10kdev-s5.ndjson",
                     ["fixes", "--area", "world", "--mode", "moving", "--devices", "10000", "--seconds", "10", "--speed", "drive", "--seed", "5"])
    size = os.path.getsize(regions)
    print("| input | max RSS (/usr/bin/time -v) | wall |")
    print("|---|---:|---:|")
    for label, inp in [("one fix line (requests + index only)", first_line_file(fixes)),
                       ("10,000 devices x 10 s at 1 Hz (100,000 fixes)", fixes)]:
        peaks, walls = [], []
        for _ in range(3):
            with open(inp, "rb") as stdin:
                r = subprocess.run(["/usr/bin/time", "-v", CLI, "run", "--requests", regions], stdin=stdin,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
            peaks.append(int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1)))
            m = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", r.stderr)
            walls.append(int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3)))
        print("| %s | %.0f MB | %.1f s |" % (label, statistics.median(peaks) / 1024, statistics.median(walls)))
    print("\nRequests file: %.0f MB of NDJSON." % (size / 1e6))
    m = kv(sh([os.path.join(BENCH, "StreamBench"), "memory", regions, fixes]))
    print("In-process stages (StreamBench memory, RSS): requests loaded +%s MB, evaluator (index, state) +%s MB, "
          "after %s fixes from %s devices %s MB (growth while streaming %s MB); peak %s MB."
          % (m["requests_mb"], m["evaluator_mb"], m["lines"], m["devices"], m["rss_mb"], m["stream_growth_mb"], m["peak_mb"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixes", type=int, default=500_000)
    ap.add_argument("--data", default=os.environ.get("BENCH_DATA", "/tmp/triggerkit-bench"))
    ap.add_argument("--only", default="calendar,geo,stream,memory,restart")
    a = ap.parse_args()
    os.makedirs(a.data, exist_ok=True)
    parts = a.only.split(",")
    print("# TriggerKit benchmarks, %s\n" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    print("Machine: %s, %d cores, %s" % (os.uname().machine, os.cpu_count(), sh(["swift", "--version"]).splitlines()[0]))
    if "calendar" in parts:
        print(sh([os.path.join(BENCH, "CalendarBench")]))
    if "geo" in parts:
        print("\n## RegionIndex in-process (GeoBench; no parsing)\n")
        print(sh([os.path.join(BENCH, "GeoBench")]))
    if "stream" in parts:
        stream(a.data, a.fixes)
    if "memory" in parts:
        memory(a.data)
    if "restart" in parts:
        print("\n## A center's snapshot saved and restored (RestartBench)\n")
        print(sh([os.path.join(BENCH, "RestartBench"), "100000", "--json"]))
        print(sh([os.path.join(BENCH, "RestartBench"), "1000000"]))


if __name__ == "__main__":
    main()
