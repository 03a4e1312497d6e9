#!/usr/bin/env python3
"""Tenant isolation in `triggerkit serve`: how long one tenant's small call waits while other
tenants send work that takes the server a while (whole server, on loopback).

Starts the release binary (--clock stream, a fresh data directory) with HEAVY busy tenants and
one probe tenant. Each busy tenant gets REQUESTS circles and then posts NDJSON batches of BATCH
fixes (DEVICES devices walking among the circles), one batch after another on its own
connection, BATCHES batches each. Meanwhile the probe tenant asks `GET /v1/requests/<id>`
every 10 ms. Reports, per binary:

- the probe's latency (p50 / p99 / max, ms), first alone (quiet), then while the busy
  tenants post;
- the busy tenants' fixes/s over the posting phase, and the median time of one batch.

  python3 tools/serve-isolation.py [--bin .build/release/triggerkit] [--baseline OTHER_BINARY]
                                   [--heavy 3] [--requests 20000] [--batch 40000] [--batches 8]

Bounded: every loop stops by itself (BATCHES batches, a 120 s wall limit for the posting
phase, QUIET probes). Only 127.0.0.1 is used.
"""
import argparse
import hashlib
import http.client
import json
import math
import os
import random
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import start_serve  # noqa: E402

T0 = 1795766400  # 2026-11-23T04:00:00Z


def iso(sec):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(sec))) + "Z"


def token(name):
    return "token-" + name


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(p / 100 * len(xs)) - 1))]


def circles(n, seed):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        out.append({"identifier": f"c{i}", "content": {"title": "c"}, "addedAt": iso(T0),
                    "trigger": {"type": "location", "repeats": True, "region": {
                        "identifier": f"z{i}",
                        "center": {"latitude": 40.5 + rng.random() * 0.3, "longitude": -74.2 + rng.random() * 0.4},
                        "radius": 50 + rng.random() * 450, "notifyOnEntry": True, "notifyOnExit": True}}})
    return out


def fix_batches(devices, batch, batches, seed):
    """Devices walking about 20 m per fix; batch k holds t = T0 + k * per + ... in order."""
    rng = random.Random(seed)
    pos = [[40.5 + rng.random() * 0.3, -74.2 + rng.random() * 0.4, rng.random() * 6.283] for _ in range(devices)]
    per = batch // devices
    out = []
    sec = 0
    for _ in range(batches):
        lines = []
        for _ in range(per):
            sec += 1
            t = iso(T0 + 60 + sec)
            for d, p in enumerate(pos):
                p[2] += rng.uniform(-0.3, 0.3)
                p[0] += 0.00018 * math.cos(p[2])
                p[1] += 0.00024 * math.sin(p[2])
                lines.append(f'{{"device":"d{d}","t":"{t}","lat":{p[0]:.7f},"lon":{p[1]:.7f}}}')
        out.append(("\n".join(lines) + "\n").encode())
    return out


def call(conn, method, path, name, body=None):
    conn.request(method, path, body, {"Authorization": "Bearer " + token(name)})
    r = conn.getresponse()
    payload = r.read()
    return r.status, payload


def measure(binary, a, bodies):
    data = tempfile.mkdtemp(prefix="serve-isolation-")
    names = [f"busy{i}" for i in range(a.heavy)] + ["probe"]
    args = ["--data-dir", data, "--clock", "stream", "--start", iso(T0), "--snapshot-every", "100000000"]
    for n in names:
        args += ["--tenant", n + "=" + hashlib.sha256(token(n).encode()).hexdigest()]
    server, port, _ = start_serve(binary, args)
    if server is None:
        sys.exit(f"{binary}: server did not start")
    try:
        def conn():
            return http.client.HTTPConnection("127.0.0.1", port, timeout=120)

        setup = conn()
        for i, n in enumerate(names[:-1]):
            reqs = circles(a.requests, seed=i)
            for k in range(0, len(reqs), 1000):
                s, p = call(setup, "POST", "/v1/requests", n, json.dumps(reqs[k:k + 1000]))
                if s != 200 or json.loads(p)["rejected"] != 0:
                    sys.exit(f"requests: {s} {p[:200]}")
        s, p = call(setup, "POST", "/v1/requests", "probe", json.dumps(circles(1, seed=99)[0]))
        if s not in (200, 201):
            sys.exit(f"probe request: {s} {p[:200]}")

        def probe(count, until=None):
            c = conn()
            lat = []
            while len(lat) < count and (until is None or not until.is_set()):
                t = time.perf_counter()
                s, _ = call(c, "GET", "/v1/requests/c0", "probe")
                lat.append((time.perf_counter() - t) * 1000)
                if s != 200:
                    sys.exit(f"probe: {s}")
                time.sleep(0.01)
            return lat

        quiet = probe(a.quiet)

        done = threading.Event()
        batch_times = []
        fixes = [0]
        lock = threading.Lock()

        def busy(name):
            c = conn()
            deadline = time.time() + 120
            for body in bodies:
                if time.time() > deadline:
                    break
                t = time.perf_counter()
                s, p = call(c, "POST", "/v1/fixes", name, body)
                took = time.perf_counter() - t
                if s != 200:
                    sys.exit(f"fixes: {s} {p[:200]}")
                with lock:
                    batch_times.append(took)
                    fixes[0] += json.loads(p)["accepted"]

        workers = [threading.Thread(target=busy, args=(n,)) for n in names[:-1]]
        started = time.perf_counter()
        for w in workers:
            w.start()
        loaded = []
        prober = threading.Thread(target=lambda: loaded.extend(probe(10 ** 9, until=done)))
        prober.start()
        for w in workers:
            w.join()
        wall = time.perf_counter() - started
        done.set()
        prober.join()
        return {"quiet": quiet, "loaded": loaded, "fixes/s": fixes[0] / wall,
                "batch": sorted(batch_times)[len(batch_times) // 2], "wall": wall}
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except Exception:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=".build/release/triggerkit")
    ap.add_argument("--baseline", help="another triggerkit binary, measured first in the same run")
    ap.add_argument("--heavy", type=int, default=3, help="busy tenants")
    ap.add_argument("--requests", type=int, default=20_000, help="circles per busy tenant")
    ap.add_argument("--devices", type=int, default=2_000)
    ap.add_argument("--batch", type=int, default=40_000, help="fixes per batch")
    ap.add_argument("--batches", type=int, default=8, help="batches per busy tenant")
    ap.add_argument("--quiet", type=int, default=200, help="probes before the load")
    a = ap.parse_args()
    bodies = fix_batches(a.devices, a.batch, a.batches, seed=5)
    rows = []
    for label, b in ([("baseline", a.baseline)] if a.baseline else []) + [("this build", a.bin)]:
        r = measure(b, a, bodies)
        rows.append((label, r))
    print(f"{a.heavy} busy tenants x {a.requests} circles, {a.batches} batches of {a.batch} fixes each; "
          f"probe: GET /v1/requests/<id> every 10 ms")
    print("| binary | probe alone p50 / p99 / max (ms) | probe under load p50 / p99 / max (ms) | probes | busy fixes/s | median batch |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, r in rows:
        q, l = r["quiet"], r["loaded"]
        print(f"| {label} | {percentile(q, 50):.1f} / {percentile(q, 99):.1f} / {max(q):.1f} "
              f"| {percentile(l, 50):.1f} / {percentile(l, 99):.1f} / {max(l):.1f} | {len(l)} "
              f"| {r['fixes/s']:,.0f} | {r['batch']:.3f} s |")


if __name__ == "__main__":
    main()
