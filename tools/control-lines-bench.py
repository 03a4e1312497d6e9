#!/usr/bin/env python3
"""`run` with a stream that changes its requests (control lines), whole process.

  tools/control-lines-bench.py --triggerkit NEW [--baseline OLD] [--adds 8000] [--base 0]
                               [--fixes-per-change 8] [--fences] [--runs 3] [--timeout 600] [--data DIR]

The stream: `--adds` changes, each an `add` line (circles, time intervals and calendars in
turn; one in ten replaces an earlier identifier) or, every tenth, a `remove` line naming two
earlier identifiers, with `--fixes-per-change` fixes of 100 devices between two changes. With
`--base N` the run starts from a requests file of N circles (the changes then apply to a large
set). With `--fences`, the circles the changes add have fence rules (a dwell inside or outside,
crossings, an accuracy limit, in turn), and the requests file starts with one such fence.
Generated into --data (deterministic, seed 1).

Each binary runs `triggerkit run --requests FILE < STREAM` --runs times in turn (a baseline run
that passes --timeout is reported as such and not repeated); prints the median wall and CPU
time of each, their ratio, and whether the outputs (events and stderr) are byte-identical.
"""
import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time


def circle(rid, rng, rules=None):
    r = {"identifier": rid, "content": {"title": rid},
         "trigger": {"type": "location", "repeats": True,
                     "region": {"identifier": "g-" + rid, "radius": rng.choice([100, 300, 800]),
                                "center": {"latitude": round(40.6 + rng.random() * 0.3, 7),
                                           "longitude": round(-74.1 + rng.random() * 0.3, 7)}}}}
    if rules:
        r["trigger"].update(rules)
    return r


FENCE_RULES = [{"dwell": {"inside": 30}}, {"dwell": {"outside": 60}}, {"crossings": True}, {"accuracy": {"maximum": 50}}]


def request(k, rid, rng, fences=False):
    kind = k % 3
    if kind == 0:
        return circle(rid, rng, FENCE_RULES[(k // 3) % len(FENCE_RULES)] if fences else None)
    if kind == 1:
        return {"identifier": rid, "content": {"title": rid},
                "trigger": {"type": "timeInterval", "timeInterval": rng.choice([60, 300, 3600]), "repeats": True}}
    return {"identifier": rid, "content": {"title": rid},
            "trigger": {"type": "calendar", "repeats": True, "dateMatching": {"minute": rng.randrange(60)}}}


def generate(path_requests, path_stream, adds, base, per_change, fences=False):
    rng = random.Random(1)
    with open(path_requests, "w") as fh:
        if fences:
            fh.write(json.dumps(circle("fence-first", rng, FENCE_RULES[0])) + "\n")
        for i in range(base):
            fh.write(json.dumps(circle("base-%07d" % i, rng)) + "\n")
    devices = [[40.6 + rng.random() * 0.3, -74.1 + rng.random() * 0.3] for _ in range(100)]
    t = 1795770000
    made = []
    with open(path_stream, "w") as fh:
        for k in range(adds):
            for _ in range(per_change):
                d = rng.randrange(100)
                devices[d][0] += rng.uniform(-0.0005, 0.0005)
                devices[d][1] += rng.uniform(-0.0005, 0.0005)
                fh.write('{"device": "d%03d", "t": %d, "lat": %.7f, "lon": %.7f}\n' % (d, t, devices[d][0], devices[d][1]))
            t += 1
            if k % 10 == 9 and len(made) > 2:
                fh.write(json.dumps({"t": t, "remove": rng.sample(made, 2)}) + "\n")
                continue
            rid = rng.choice(made) if made and k % 10 == 4 else "add-%07d" % k
            made.append(rid)
            fh.write(json.dumps({"t": t, "add": request(k, rid, rng, fences)}) + "\n")


def timed(cmd, stdin, out, err, timeout):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    with open(stdin, "rb") as i, open(out, "wb") as o, open(err, "wb") as e:
        try:
            subprocess.run(cmd, stdin=i, stdout=o, stderr=e, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return None, None
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triggerkit", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--adds", type=int, default=8000)
    ap.add_argument("--base", type=int, default=0)
    ap.add_argument("--fixes-per-change", type=int, default=8)
    ap.add_argument("--fences", action="store_true", help="the added circles have fence rules")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--data", default="/tmp/triggerkit-control")
    a = ap.parse_args()
    os.makedirs(a.data, exist_ok=True)
    tag = "%d-%d-%d%s" % (a.adds, a.base, a.fixes_per_change, "-fences" if a.fences else "")
    req, stream = os.path.join(a.data, "requests-%s.ndjson" % tag), os.path.join(a.data, "stream-%s.ndjson" % tag)
    if not (os.path.exists(req) and os.path.exists(stream)):
        generate(req, stream, a.adds, a.base, a.fixes_per_change, a.fences)
    lines = sum(1 for _ in open(stream))
    print("stream: %d lines, %d changes, from %d requests" % (lines, a.adds, a.base))
    binaries = [("new", a.triggerkit)] + ([("baseline", a.baseline)] if a.baseline else [])
    results = {name: [] for name, _ in binaries}
    timed_out = set()
    for _ in range(a.runs):
        for name, binary in binaries:
            if name in timed_out:
                continue
            out, err = os.path.join(a.data, "out-%s.ndjson" % name), os.path.join(a.data, "err-%s.txt" % name)
            wall, cpu = timed([binary, "run", "--requests", req], stream, out, err, a.timeout)
            if wall is None:
                timed_out.add(name)
                continue
            results[name].append((wall, cpu))
    print("| binary | wall (median) | CPU (median) | runs |")
    print("|---|---:|---:|---:|")
    for name, _ in binaries:
        r = results[name]
        if not r:
            print("| %s | > %.0f s (timed out) | | 0 |" % (name, a.timeout))
            continue
        print("| %s | %.3f s | %.3f s | %d |" % (name, statistics.median(w for w, _ in r), statistics.median(c for _, c in r), len(r)))
    if a.baseline and results["baseline"] and results["new"]:
        ratio = statistics.median(w for w, _ in results["baseline"]) / statistics.median(w for w, _ in results["new"])
        same = all(open(os.path.join(a.data, "%s-new%s" % (p, s)), "rb").read()
                   == open(os.path.join(a.data, "%s-baseline%s" % (p, s)), "rb").read()
                   for p, s in (("out", ".ndjson"), ("err", ".txt")))
        print("baseline / new, wall: %.1fx; output and stderr byte-identical: %s" % (ratio, "yes" if same else "NO"))
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
