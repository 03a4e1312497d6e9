#!/usr/bin/env python3
"""Time for one long input line arriving through a pipe, 64 KB per write (a pipe's size).

    tools/long-line-bench.py [--bin .build/release/triggerkit] [--sizes 8 64]

Reading must stay linear in the line's length: each read of a pipe adds 64 KB, and a reader
that searched the unfinished line again at every read, or copied it into the next buffer,
took O(n^2) (a 64 MiB line, just under the limit, took 41-65 s with the default two threads,
2.6 s with --single-thread). Prints the time per size and mode, and exits 1 when the largest
size costs over 20 times the smallest's per byte ratio (linear: about the size ratio, 8 for
8 -> 64 MiB; quadratic: its square).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(binary, requests, size_mib, mode):
    head = b'{"t":"2026-01-01T00:01:00Z","device":"a","lat":0,"lon":0,"pad":"'
    first = b'{"t":"2026-01-01T00:00:00Z","device":"a","lat":1,"lon":1}\n'
    n = size_mib * 1024 * 1024 - 16
    body = head + b"x" * (n - len(head) - 2) + b'"}\n'
    p = subprocess.Popen([binary, "run", "--requests", requests, "--format", "ids"] + mode,
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def feed():
        p.stdin.write(first)
        view = memoryview(body)
        for k in range(0, len(view), 65536):
            p.stdin.write(view[k:k + 65536])
        p.stdin.close()

    start = time.monotonic()
    writer = threading.Thread(target=feed)
    writer.start()
    err = p.stderr.read().decode()
    writer.join()
    rc = p.wait(timeout=600)
    elapsed = time.monotonic() - start
    if rc != 0 or "lines 2," not in err:
        sys.exit("unexpected result (exit %d): %s" % (rc, err[-300:]))
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release/triggerkit"))
    ap.add_argument("--sizes", type=int, nargs=2, default=(8, 64), metavar=("SMALL", "LARGE"), help="MiB")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        requests = os.path.join(d, "requests.ndjson")
        with open(requests, "w") as f:
            f.write('{"identifier": "r", "content": {"title": "x"}, "trigger": {"type": "location", "region": '
                    '{"identifier": "r", "center": {"latitude": 0, "longitude": 0}, "radius": 1000}, "repeats": true}}\n')
        worst = 0.0
        print("| mode | %d MiB | %d MiB | ratio |" % tuple(a.sizes))
        print("|---|---:|---:|---:|")
        for name, mode in (("two threads", []), ("--single-thread", ["--single-thread"])):
            small, large = (min(run(a.bin, requests, s, mode) for _ in range(2)) for s in a.sizes)
            ratio = large / small
            worst = max(worst, ratio)
            print("| %s | %.2f s | %.2f s | %.1fx |" % (name, small, large, ratio))
    limit = 20 * (a.sizes[1] / a.sizes[0]) / 8
    if worst > limit:
        sys.exit("reading a long line is not linear: %.1fx for %dx the size" % (worst, a.sizes[1] // a.sizes[0]))


if __name__ == "__main__":
    main()
