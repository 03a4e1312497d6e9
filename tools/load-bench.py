#!/usr/bin/env python3
"""Loading a million location requests, whole process (issue 12's loading goal: < 2 s).

  tools/load-bench.py [--count 1000000] [--runs 3] [--identifiers sequential|uuid] [--baseline OLD_BINARY]
                      [--data DIR] [--triggerkit PATH]

Requests: tools/gen-geo.py regions --area world --count N --polygons 0.1 (90 % circles up to
300 km, 10 % polygons of 6-12 vertices, anywhere), cached in --data; with --identifiers uuid the
same regions under random UUID request identifiers (sequential ones arrive already sorted, which
hides the cost of ordering them). Two commands, each a whole
process, --runs times in turn (and the same with --baseline's binary):
  run    triggerkit run --requests R < one clock line   (parse, validate, build the evaluator and index)
  check  triggerkit check --requests R                  (parse and validate only)
Prints medians of wall and CPU time, peak resident memory, and the peak of its anonymous part
(the process's own memory, without the mapped requests file: sampled from /proc/PID/status
every 5 ms), also per request.
"""
import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

from benchutil import add_common_arguments, generate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sample_memory(pid, peaks, stop):
    """Largest VmHWM / RssAnon / RssFile seen (KiB) until `stop` is set."""
    path = "/proc/%d/status" % pid
    while not stop.is_set():
        try:
            with open(path) as fh:
                for line in fh:
                    key, _, value = line.partition(":")
                    if key in peaks:
                        peaks[key] = max(peaks[key], int(value.split()[0]))
        except (OSError, ValueError):
            return
        time.sleep(0.005)


def measure(cmd, stdin_path):
    peaks = {"VmHWM": 0, "RssAnon": 0, "RssFile": 0}
    stop = threading.Event()
    with open(stdin_path, "rb") as fin:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=fin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        sampler = threading.Thread(target=sample_memory, args=(p.pid, peaks, stop))
        sampler.start()
        _, _, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        stop.set()
        sampler.join()
        err = p.stderr.read().decode(errors="replace")
    if "requests:" not in err and "lines " not in err:
        sys.stderr.write("unexpected output from %s: %s\n" % (cmd[1], err[-300:]))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, peaks["RssAnon"] / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1_000_000)
    add_common_arguments(ap)
    ap.add_argument("--baseline", help="another triggerkit binary, measured the same way in the same runs")
    ap.add_argument("--identifiers", choices=["sequential", "uuid"], default="sequential",
                    help="request identifiers: sequential (geo-0000000, ..., already in order) or random UUIDs "
                         "(what apps send; the same regions)")
    a = ap.parse_args()
    os.makedirs(a.data, exist_ok=True)
    name = "regions-1m.ndjson" if a.count == 1_000_000 else "regions-world-%d.ndjson" % a.count
    if a.identifiers == "uuid":
        name = name.replace(".ndjson", "-uuid.ndjson")
    regions = generate(a.data, name, ["regions", "--area", "world", "--count", str(a.count), "--polygons", "0.1",
                                      "--identifiers", a.identifiers])
    one = os.path.join(a.data, "one.ndjson")
    with open(one, "w") as fh:
        fh.write('{"t": "2026-11-21T09:00:00Z"}\n')
    binaries = [("this build", a.triggerkit)] + ([("baseline", a.baseline)] if a.baseline else [])
    rows = {}
    for _ in range(a.runs):
        for label, binary in binaries:
            for command in ("run", "check"):
                cmd = [binary, command, "--requests", regions]
                rows.setdefault((label, command), []).append(measure(cmd, one if command == "run" else os.devnull))
    size = os.path.getsize(regions)
    print("# Loading %s location requests, %s identifiers (%.0f MB of NDJSON; %d runs each in turn, medians)\n"
          % ("{:,}".format(a.count), a.identifiers, size / 1e6, a.runs))
    print("| binary | command | wall s | cpu s | peak MiB | peak anonymous MiB | anonymous B/request |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (label, command), values in rows.items():
        wall, cpu, peak, anon = (statistics.median(v[i] for v in values) for i in range(4))
        print("| %s | %s | %.3f | %.3f | %.0f | %.0f | %.0f |" % (label, command, wall, cpu, peak, anon, anon * 1048576 / a.count))


if __name__ == "__main__":
    main()
