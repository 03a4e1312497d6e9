#!/usr/bin/env python3
"""Fence rules (issue 13): what they cost in `triggerkit run`, whole process against whole process.

  tools/fence-rules-bench.py [--devices 1000] [--seconds 1000] [--regions 10000] [--runs 3]
                             [--baseline PATH] [--data /tmp/triggerkit-geo] [--triggerkit PATH]

The geofence benchmark's metro workload (tools/gen-geo.py via benchutil: 10,000 circles of
50-2,000 m around New York, 1,000 devices at 1 Hz for 1,000 s), run as:
  plain        the requests as generated (no rules: the fast path)
  baseline     the same with --baseline (a build without fence rules), to show the fast path
               did not get slower
  dwell-1%     every 100th request gets "dwell": {"inside": 300}
  dwell        every request gets it
  all rules    every request gets dwell, "accuracy": {"maximum": 50}, "crossings": true and a
               window open all day in New York
Each command --runs times in turn; medians of wall and CPU (user + sys of the child), output
lines, and the ratio to `plain` per run pair (then the median).
"""
import argparse
import json
import os
import statistics
import sys

from benchutil import add_common_arguments, count_lines, generate, run_measured

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def with_rules(src, dst, rules, every=1):
    """Writes SRC's requests to DST with RULES added to every EVERY-th trigger."""
    if os.path.exists(dst):
        return dst
    with open(src) as fin, open(dst + ".tmp", "w") as fout:
        for k, line in enumerate(fin):
            r = json.loads(line)
            if k % every == 0:
                r["trigger"].update(rules)
            fout.write(json.dumps(r) + "\n")
    os.replace(dst + ".tmp", dst)
    return dst


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--seconds", type=int, default=1000)
    ap.add_argument("--regions", type=int, default=10000)
    add_common_arguments(ap)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--baseline", help="a triggerkit binary from before fence rules (optional)")
    a = ap.parse_args()
    os.makedirs(a.data, exist_ok=True)
    regions = generate(a.data, "regions-circles-%d.ndjson" % a.regions,
                       ["regions", "--area", "metro", "--count", str(a.regions), "--min-radius", "50", "--max-radius", "2000", "--seed", "11"])
    fixes = generate(a.data, "fixes-%dx%d.ndjson" % (a.devices, a.seconds),
                     ["fixes", "--area", "metro", "--mode", "moving", "--devices", str(a.devices), "--seconds", str(a.seconds),
                      "--speed-range", "1", "30", "--seed", "12"])
    dwell = {"dwell": {"inside": 300}}
    everything = dict(dwell, accuracy={"maximum": 50}, crossings=True,
                      window={"opens": "00:00", "closes": "23:59:59", "timeZone": "America/New_York"})
    base = os.path.join(a.data, "regions-circles-%d" % a.regions)
    variants = {
        "plain": regions,
        "dwell-1%": with_rules(regions, base + "-dwell-every100.ndjson", dwell, 100),
        "dwell": with_rules(regions, base + "-dwell-all.ndjson", dwell),
        "all rules": with_rules(regions, base + "-allrules-open.ndjson", everything),
    }
    commands = {name: [a.triggerkit, "run", "--requests", path] for name, path in variants.items()}
    if a.baseline:
        commands = dict([("baseline", [a.baseline, "run", "--requests", regions])] + list(commands.items()))
    lines = count_lines(fixes)
    results = {k: [] for k in commands}
    events = {}
    for r in range(a.runs):
        for name, cmd in commands.items():
            out = os.path.join(a.data, "out-rules-%s.ndjson" % name.replace(" ", "-").replace("%", "pct"))
            wall, cpu, peak, rc, err = run_measured(cmd, fixes, out, a.timeout)
            if rc != 0:
                sys.stderr.write("%s exited %d: %s\n" % (name, rc, err[-500:]))
            results[name].append((wall, cpu))
            events[name] = count_lines(out)
            sys.stderr.write("run %d %s: wall %.3f s cpu %.3f s\n" % (r + 1, name, wall, cpu))
    print("# Fence rules in `triggerkit run`, whole processes\n")
    print("%d fixes (%d devices x %d s at 1 Hz), %d circles of 50-2,000 m (metro), %d runs each in turn, medians.\n"
          % (lines, a.devices, a.seconds, a.regions, a.runs))
    print("| requests | wall s | cpu s | ns/fix (wall) | wall / plain | output lines |")
    print("|---|---:|---:|---:|---:|---:|")
    for k, v in results.items():
        w = statistics.median(x[0] for x in v)
        c = statistics.median(x[1] for x in v)
        ratio = statistics.median(v[j][0] / results["plain"][j][0] for j in range(a.runs))
        print("| %s | %.3f | %.3f | %.0f | %.2fx | %d |" % (k, w, c, w * 1e9 / lines, ratio, events[k]))


if __name__ == "__main__":
    main()
