#!/usr/bin/env python3
"""Where each nanosecond of a fix goes: `perf record -g` on a whole `triggerkit run`, each
sample charged to the pipeline stage of the first TriggerKit frame on its stack.

  tools/stage-costs.py --input FIXES [--triggerkit PATH] [--label NAME] [--runs N] -- run ARGS...
      e.g. tools/stage-costs.py --input fixes.ndjson -- run --margin 0 --requests regions.ndjson

A sample whose leaf is in the Swift runtime, libc or the kernel (retain/release, malloc,
memmove, read/write system calls) is charged to the TriggerKit function that called it, so
every stage includes its own copies, allocations and reference counting. Stages (regular
expressions on demangled-enough symbol names, first match wins, leaf to root):

  reading          LineReader, PipelinedLineReader (read(2), splitting lines)
  parsing          StreamLineParser, LineScanner.scan, Timestamp.parseMillis
  device lookup    DeviceInterner, device(named:), deviceBytesIndex
  index query      RegionIndex query, tiles (TileCache, building and entering them, their hits),
                   CellTable, LevelSummary, sortUnique
  exact test       test(), decision(), a polygon decided from its edges near a tile
                   (localDecision, NearEdges.decide), a fix's pass over its tile's open regions
                   (advance), classifying regions for a tile, Geodesic, PlanarRings, GEOS,
                   polygonCovers
  state update     StreamEvaluator step / stepChanges / stepRegion / process(device:...) / enterTile /
                   deliver
  clock, time      begin(), FireSchedule, FireQueue, TimeRule, checkTime
  formatting       write(_:format:to:), JSONWriter, EventID, Timestamp.append
  writing          OutputBuffer (write(2))
  line dispatch    what StreamEvaluator.process(lineBytes:) and the run loop do themselves
                   (both inlined into RunCommand.run and its per-chunk closures in a release
                   build; a closure's frame sits under the chunk reader's, and was charged
                   to reading before the fifteenth pass): checks, the device
                   lookup, copying events, and (single-threaded, where the scan is inlined
                   there) parsing; on the reader thread, FixLookahead's own bookkeeping
  other            start-up, request loading and anything unmatched

Output goes to a file (as in tools/geofence-bench.py), not /dev/null. Prints, per stage, the share of samples (pooled
over --perf-runs runs) and ns per input line (CPU time of the process, user + sys, from the runs' rusage, times the
share, over the line count). Needs perf (Debian's
linux-perf) and permission to record (perf_event_paranoid <= 2 for one's own processes).
"""
import argparse
import collections
import os
import re
import resource
import subprocess
import sys
import tempfile

STAGES = [
    ("reading", r"LineReader|PipelinedLineReader|vfs_read|ksys_read"),
    ("parsing", r"StreamLineParser|LineScannerV4scan|Timestamp\w*parseMillis"),
    ("device lookup", r"DeviceInterner|device5named|deviceBytesIndex|ExactKey"),
    ("exact test", r"geos::|libgeos|RegionIndex\w*(4test|8decision|13localDecision)|NearEdges\w*6decide|TileEdges|Geodesic|PlanarRings|GEOS|polygonCovers|Haversine|LocalPlane|NeighbourhoodV7advance|8classify"),
    ("index query", r"RegionIndex|CellTable|LevelSummary|sortUnique|Neighbourhood|TileCache|Tile"),
    ("state update", r"StreamEvaluator\w*(4step|11stepChanges|10stepRegion|7process6device|9enterTile|7deliver|markChanged|fire_)"),
    ("clock, time", r"StreamEvaluator\w*5begin|FireSchedule|FireQueue|TimeRule|checkTime|CalendarSchedule"),
    ("formatting", r"StreamEvaluator\w*5write_|JSONWriter|EventID|Timestamp\w*6append|fillCaches|EventBytes|EventTexts|ByteCursor|EventSecond|secondText"),
    ("writing", r"OutputBuffer|vfs_write|ksys_write"),
    ("line dispatch", r"StreamEvaluator\w*7process9lineBytes|RunCommandV3runyyKF($|\w*XEfU)|FixLookahead"),
]
ORDER = [s for s, _ in STAGES] + ["other"]
COMPILED = [(s, re.compile(p)) for s, p in STAGES]


def stage_of(stack):
    """stack: symbols leaf first. The first frame that names a stage decides."""
    for sym in stack:
        for name, rx in COMPILED:
            if rx.search(sym):
                return name
    return "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triggerkit", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".build", "release", "triggerkit"))
    ap.add_argument("--input", required=True, help="the fixes file given to run on stdin")
    ap.add_argument("--label", default="")
    ap.add_argument("--freq", type=int, default=4999)
    ap.add_argument("--show-other", type=int, default=0, help="list the N most frequent stacks charged to 'other'")
    ap.add_argument("--runs", type=int, default=3, help="runs without perf for the CPU time (the least is kept)")
    ap.add_argument("--perf-runs", type=int, default=3,
                    help="runs with perf whose samples are pooled for the shares (a stage's share moves by several "
                         "points from one run to the next: which core each thread gets, what the share balance does)")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="-- then the triggerkit arguments (run ...)")
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    with open(a.input, "rb") as fh:
        lines = sum(1 for _ in fh)
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        # CPU time from runs without perf (the least of --runs), shares from one with it.
        cpu = float("inf")
        for _ in range(a.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            with open(a.input, "rb") as fin, open(os.path.join(tmp, "out"), "wb") as fout:
                subprocess.run([a.triggerkit] + args, stdin=fin, stdout=fout, stderr=subprocess.DEVNULL, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = min(cpu, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        script = ""
        for _ in range(a.perf_runs):
            with open(a.input, "rb") as fin, open(os.path.join(tmp, "out"), "wb") as fout:
                subprocess.run(["perf", "record", "-q", "-g", "-F", str(a.freq), "-o", data, "--", a.triggerkit] + args,
                               stdin=fin, stdout=fout, stderr=subprocess.DEVNULL, check=True)
            script += subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True,
                                     check=True).stdout + "\n"
    counts = collections.Counter()
    unmatched = collections.Counter()
    stack = []
    for raw in script.splitlines() + [""]:
        line = raw.strip()
        if not line:
            if stack:
                st = stage_of(stack)
                counts[st] += 1
                if st == "other":
                    unmatched[" <- ".join(x[:60] for x in stack[:4])] += 1
            stack = []
            continue
        parts = line.split(None, 1)
        stack.append(parts[1] if len(parts) > 1 else parts[0])
    total = sum(counts.values()) or 1
    label = a.label or " ".join(args)
    print(f"{label}: {lines:,} lines, CPU {cpu:.3f} s (user + sys, least of {a.runs} runs), "
          f"{total:,} samples from {a.perf_runs} runs")
    print("| stage | share | ns per line |")
    print("|---|---:|---:|")
    for s in ORDER:
        share = counts[s] / total
        print(f"| {s} | {100 * share:.1f} % | {cpu * share / lines * 1e9:.0f} |")
    print(f"| total | 100 % | {cpu / lines * 1e9:.0f} |")
    for stack, n in unmatched.most_common(a.show_other):
        print(f"  other {100 * n / total:.1f} %: {stack}")


if __name__ == "__main__":
    sys.exit(main())
