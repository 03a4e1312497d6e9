#!/usr/bin/env python3
"""Two builds of triggerkit on the same command, interleaved (A B B A A B ...), whole process
against whole process: medians (and means) of wall time and of CPU (user + sys of the reaped
child), and the ratios A / B. For changes of a few per cent on a machine whose speed drifts
within the hour: each pair of runs sees the same moment, so the drift cancels out of the ratio.

  tools/ab-bench.py NEW_BINARY OLD_BINARY [--runs 12] [--input FIXES] -- run ARGS...
      e.g. tools/ab-bench.py .build/release/triggerkit /tmp/old-triggerkit \\
               --input /tmp/triggerkit-geo/fixes-1000x1000.ndjson \\
               -- run --margin 0 --initial fire --requests /tmp/triggerkit-geo/regions-circles-10000.ndjson

The input file is given on stdin; output goes to a file (as in tools/geofence-bench.py), stderr
is discarded. Every run must exit 0. Data: tools/geofence-bench.py generates and caches it.
"""
import argparse
import os
import statistics
import sys
import tempfile

from benchutil import run_child


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="binary A (the new one)")
    ap.add_argument("b", help="binary B (the one to compare with)")
    ap.add_argument("--runs", type=int, default=12, help="runs of each binary (default 12)")
    ap.add_argument("--input", default=os.devnull, help="file given on stdin")
    ap.add_argument("--timeout", type=float, default=600)
    argv = sys.argv[1:]
    if "--" not in argv:
        ap.error("the triggerkit arguments go after --")
    cut = argv.index("--")
    a = ap.parse_args(argv[:cut])
    args = argv[cut + 1:]
    results = {a.a: [], a.b: []}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        for i in range(a.runs):
            for binary in ([a.a, a.b] if i % 2 == 0 else [a.b, a.a]):
                wall, cpu, _, rc, timed_out = run_child([binary] + args, a.input, out, os.devnull, a.timeout)
                if rc != 0 or timed_out:
                    sys.exit("%s exited %d%s" % (binary, rc, " (timed out)" if timed_out else ""))
                results[binary].append((wall, cpu))
    print("| binary | wall median s | wall mean s | cpu median s | cpu mean s |")
    print("|---|---:|---:|---:|---:|")
    med = {}
    for name, binary in (("A", a.a), ("B", a.b)):
        walls = [w for w, _ in results[binary]]
        cpus = [c for _, c in results[binary]]
        med[name] = (statistics.median(walls), statistics.median(cpus))
        print(f"| {name}: {binary} | {med[name][0]:.4f} | {statistics.mean(walls):.4f} | {med[name][1]:.4f} | {statistics.mean(cpus):.4f} |")
    print(f"\nA / B ({a.runs} runs each, interleaved): wall {med['A'][0] / med['B'][0]:.3f}, cpu {med['A'][1] / med['B'][1]:.3f}")


if __name__ == "__main__":
    sys.exit(main())
