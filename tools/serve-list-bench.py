#!/usr/bin/env python3
"""What listing a large tenant costs `triggerkit serve`: `GET /v1/requests` over many requests.

  python3 tools/serve-list-bench.py [--requests 200000] [--runs 3] [--page N] [--bin .build/release/triggerkit] [--baseline OTHER]

For each binary (and --baseline, in turn): starts `serve` on a fresh data directory (--clock
stream, one tenant), adds --requests circles over HTTP in arrays of 1,000, then asks
`GET /v1/requests` --runs times. Prints the median time of one listing (to the last byte of
the answer), the answer's size, and how much the server's peak resident memory (VmHWM) grew
over the listings. The answers of the two binaries are compared byte for byte. With --page N
(this build only; a baseline without pages is not asked), it also walks the list by pages of N
(`?limit=N&after=...`): the walk's time, the median page's, and whether the pages together are
the whole list's requests in order (times to each answer's last byte, as for the whole list).
Bounded: every HTTP call has a 600 s timeout, the server start 120 s; only 127.0.0.1.
"""
import argparse
import hashlib
import http.client
import json
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import peak_mib, start_serve  # noqa: E402

T0 = 1795766400  # 2026-11-23T04:00:00Z
TOKEN = "list-token"


def measure(binary, n, runs, page=None):
    work = tempfile.mkdtemp(prefix="serve-list-")
    iso = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T0))
    p, port, _ = start_serve(binary, ["--data-dir", work, "--clock", "stream", "--start", iso,
                                      "--tenant", "t=" + hashlib.sha256(TOKEN.encode()).hexdigest()])
    if p is None:
        sys.exit("serve did not start")
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        auth = {"Authorization": "Bearer " + TOKEN}
        for start in range(0, n, 1000):
            chunk = [{"identifier": f"r{i}", "content": {"title": "arrived", "body": "hello"}, "addedAt": iso,
                      "trigger": {"type": "location", "repeats": True, "region": {
                          "identifier": f"z{i}", "center": {"latitude": 40 + (i % 1000) * 0.001, "longitude": -74 + (i // 1000 % 100) * 0.01},
                          "radius": 50 + (i * 13) % 400, "notifyOnEntry": True, "notifyOnExit": True}}}
                     for i in range(start, min(n, start + 1000))]
            c.request("POST", "/v1/requests", json.dumps(chunk), auth)
            r = c.getresponse()
            r.read()
            if r.status != 200:
                sys.exit(f"adds: {r.status}")
        before = peak_mib(p.pid)
        times, body = [], b""
        for _ in range(runs):
            t = time.perf_counter()
            c.request("GET", "/v1/requests", headers=auth)
            r = c.getresponse()
            body = r.read()
            times.append(time.perf_counter() - t)
            if r.status != 200:
                sys.exit(f"list: {r.status}")
        walk = None
        if page:
            whole = [r["identifier"] for r in json.loads(body)["requests"]]
            listed, pages, uri = [], [], f"/v1/requests?limit={page}"
            while True:
                t = time.perf_counter()
                c.request("GET", uri, headers=auth)
                r = c.getresponse()
                raw = r.read()
                pages.append(time.perf_counter() - t)  # (to the last byte, as the whole list; parsing it here is not the server's)
                answer = json.loads(raw)
                if r.status != 200:
                    sys.exit(f"page: {r.status}")
                listed += [q["identifier"] for q in answer["requests"]]
                if answer.get("next") is None:
                    break
                uri = f"/v1/requests?limit={page}&after={answer['next']}"
            walk = (sum(pages), len(pages), statistics.median(pages), listed == whole)
        return statistics.median(times), len(body), peak_mib(p.pid) - before, hashlib.sha256(body).hexdigest(), walk
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=".build/release/triggerkit")
    ap.add_argument("--baseline")
    ap.add_argument("--requests", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--page", type=int, help="also walk the list by pages of this many (1...10000)")
    a = ap.parse_args()
    binaries = {"this build": a.bin}
    if a.baseline:
        binaries = {"baseline": a.baseline, **binaries}
    print(f"# GET /v1/requests over {a.requests:,} requests, {a.runs} listings each\n")
    print("| binary | one listing (median) | answer | peak memory growth |")
    print("|---|---:|---:|---:|")
    digests = set()
    walks = {}
    for name, binary in binaries.items():
        took, size, grew, digest, walk = measure(binary, a.requests, a.runs, a.page if name == "this build" else None)
        digests.add(digest)
        walks[name] = walk
        print(f"| {name} | {took:.3f} s | {size / 1e6:.1f} MB | {grew:.0f} MiB |")
    if len(binaries) > 1:
        print("\nanswers " + ("identical" if len(digests) == 1 else "DIFFER"))
    for name, walk in walks.items():
        if walk:
            took, count, median, same = walk
            print(f"\n{name}, by pages of {a.page:,}: {count} pages in {took:.3f} s (median page {median * 1000:.1f} ms); "
                  + ("the same requests in the same order as the whole list" if same else "NOT the whole list"))


if __name__ == "__main__":
    main()
