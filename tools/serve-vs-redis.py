#!/usr/bin/env python3
"""`triggerkit serve` against what a user would run instead: a Redis server's geo index
(GEOADD / GEOSEARCH, the Tile38-style "nearby fences" query; Tile38 itself is not packaged
for Debian) with the enter / exit state in the client. Same workload, one run, whole server
process against whole server process, on 127.0.0.1 only.

Workload (seeded): CIRCLES circles (centres in a 1 x 1 degree box at 40N 74W, radii 50-2,000
m, entry and exit), DEVICES devices walking ~20 m a second, FIXES fixes posted as one batch
a second (every device's fix for that second), one client, each batch answered before the
next. Both servers keep their input durable to a process crash: serve journals to SQLite
(WAL), Redis writes its append-only file (appendfsync everysec, as Tile38 does by default).

- TriggerKit: `serve --clock stream`, the circles added in arrays of 1,000, then every batch
  `POST /v1/fixes` (NDJSON); the engine decides the events (WGS84 geodesic distance) and
  stores them in the tenant's outbox. Events: `GET /v1/stats` "delivered".
- Redis: the circles' centres by `GEOADD`, their radii in the client; every batch one
  pipeline of `GEOSEARCH ... FROMLONLAT lon lat BYRADIUS <largest radius> m WITHDIST` (one per
  fix); the client keeps each device's set of circles it is in (a device's first fix sets it
  silently, as serve's does) and sends the enter and exit events of the batch to a Redis
  stream (`XADD`, one pipeline). Redis measures distance on a sphere (haversine), so a few
  events near boundaries differ from the geodesic's; both counts are printed.

Reported per side: wall time of the fix phase and fixes/s, the server process's CPU (user +
system from /proc) during it and per fix, the client's CPU, events, the server's resident
memory at the end. Bounded: every loop runs over the generated batches once; each phase has a
wall limit (--seconds), after which it stops and reports what it did.

  python3 tools/serve-vs-redis.py [--bin .build/release/triggerkit] [--circles 10000]
      [--devices 1000] [--fixes 200000] [--seconds 300]
"""
import argparse
import hashlib
import http.client
import json
import math
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from benchutil import start_serve, status_mib, stop

T0 = 1795766400  # 2026-11-23T04:00:00Z


def iso(sec):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(sec))) + "Z"


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` (from /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid):
    return status_mib(pid, "VmRSS")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def workload(a):
    rng = random.Random(a.seed)
    circles = [(f"c{i}", 40 + rng.random(), -74 + rng.random() * 0.99, 50 + rng.random() * 1950) for i in range(a.circles)]
    pos = [(40 + rng.random(), -74 + rng.random() * 0.99) for _ in range(a.devices)]
    batches = []
    seconds = max(1, a.fixes // a.devices)
    for s in range(seconds):
        sec = T0 + 60 + s
        fixes = []
        for d in range(a.devices):
            la, lo = pos[d]
            ang = rng.random() * 2 * math.pi
            la = min(41, max(40, la + 0.00018 * math.sin(ang)))
            lo = min(-73.01, max(-74, lo + 0.00018 * math.cos(ang)))
            pos[d] = (la, lo)
            fixes.append((f"d{d}", sec, round(la, 6), round(lo, 6)))
        batches.append(fixes)
    return circles, batches


def run_triggerkit(a, circles, batches):
    token = "bench-token"
    data = tempfile.mkdtemp(prefix="serve-vs-redis-tk-")
    server, port, _ = start_serve(a.bin, ["--data-dir", data, "--clock", "stream", "--start", iso(T0),
                                          "--tenant", "bench=" + hashlib.sha256(token.encode()).hexdigest()], timeout=60)
    if server is None:
        shutil.rmtree(data, ignore_errors=True)
        sys.exit("serve did not start")
    try:
        auth = {"Authorization": "Bearer " + token}
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for k in range(0, len(circles), 1000):
            body = [{"identifier": ident, "content": {"title": "t"}, "addedAt": iso(T0),
                     "trigger": {"type": "location", "repeats": True, "region": {
                         "identifier": ident, "center": {"latitude": la, "longitude": lo}, "radius": r,
                         "notifyOnEntry": True, "notifyOnExit": True}}}
                    for ident, la, lo, r in circles[k:k + 1000]]
            c.request("POST", "/v1/requests", json.dumps(body), auth)
            resp = c.getresponse()
            payload = resp.read()
            if resp.status != 200 or json.loads(payload)["rejected"] != 0:
                sys.exit(f"requests: {resp.status} {payload[:300]!r}")
        bodies = ["\n".join(f'{{"device":"{d}","t":"{iso(t)}","lat":{la},"lon":{lo}}}' for d, t, la, lo in b).encode()
                  for b in batches]
        time.sleep(a.settle)  # the snapshot the adds cause is taken before the fixes
        cpu0, client0, start = cpu_seconds(server.pid), time.process_time(), time.time()
        posted = 0
        for body in bodies:
            if time.time() - start > a.seconds:
                break
            c.request("POST", "/v1/fixes", body, {**auth, "Content-Type": "application/x-ndjson"})
            resp = c.getresponse()
            payload = resp.read()
            if resp.status != 200:
                sys.exit(f"fixes: {resp.status} {payload[:300]!r}")
            posted += json.loads(payload)["accepted"]
        wall = time.time() - start
        cpu, client = cpu_seconds(server.pid) - cpu0, time.process_time() - client0
        c.request("GET", "/v1/stats", headers=auth)
        stats = json.loads(c.getresponse().read())
        return {"fixes": posted, "wall": wall, "cpu": cpu, "client": client, "events": stats["delivered"],
                "rss": rss_mib(server.pid)}
    finally:
        stop(server, data)


def run_redis(a, circles, batches):
    import redis  # PyPI: redis (with hiredis, its fast reply parser)
    data = tempfile.mkdtemp(prefix="serve-vs-redis-rd-")
    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", data, "--save", "",
         "--appendonly", "yes", "--appendfsync", "everysec", "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=120)
        deadline = time.time() + 30
        while True:
            try:
                r.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.time() > deadline:
                    sys.exit("redis-server did not start")
                time.sleep(0.05)
        radius = {}
        p = r.pipeline(transaction=False)
        for k, (ident, la, lo, rad) in enumerate(circles):
            p.geoadd("fences", (lo, la, ident))
            radius[ident.encode()] = rad
            if k % 1000 == 999:
                p.execute()
        p.execute()
        largest = max(rad for _, _, _, rad in circles)
        state = {}
        cpu0, client0, start = cpu_seconds(server.pid), time.process_time(), time.time()
        posted = 0
        events = 0
        for b in batches:
            if time.time() - start > a.seconds:
                break
            p = r.pipeline(transaction=False)
            for d, t, la, lo in b:
                p.execute_command("GEOSEARCH", "fences", "FROMLONLAT", lo, la, "BYRADIUS", largest, "m", "WITHDIST")
            replies = p.execute()
            out = r.pipeline(transaction=False)
            sent = 0
            for (d, t, la, lo), found in zip(b, replies):
                inside = {m for m, dist in found if float(dist) <= radius[m]}
                before = state.get(d)
                state[d] = inside
                if before is None:
                    continue
                stamp = iso(t)
                for m in inside - before:
                    out.xadd("events", {"device": d, "region": m, "event": "enter", "date": stamp})
                    sent += 1
                for m in before - inside:
                    out.xadd("events", {"device": d, "region": m, "event": "exit", "date": stamp})
                    sent += 1
            if sent:
                out.execute()
            events += sent
            posted += len(b)
        wall = time.time() - start
        cpu, client = cpu_seconds(server.pid) - cpu0, time.process_time() - client0
        if r.xlen("events") != events:
            sys.exit(f"redis stream holds {r.xlen('events')} events, {events} sent")
        return {"fixes": posted, "wall": wall, "cpu": cpu, "client": client, "events": events, "rss": rss_mib(server.pid)}
    finally:
        stop(server, data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/triggerkit")
    ap.add_argument("--circles", type=int, default=10_000)
    ap.add_argument("--devices", type=int, default=1_000)
    ap.add_argument("--fixes", type=int, default=200_000)
    ap.add_argument("--settle", type=float, default=5, help="seconds between serve's adds and its fixes")
    ap.add_argument("--seconds", type=float, default=300, help="wall limit of each fix phase")
    ap.add_argument("--seed", type=int, default=12)
    a = ap.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is missing (Debian: apt-get install redis-server)")
    circles, batches = workload(a)
    tk = run_triggerkit(a, circles, batches)
    rd = run_redis(a, circles, batches)
    print(f"serve vs Redis geo: {a.circles:,} circles (50-2,000 m), {a.devices:,} devices, "
          f"{sum(len(b) for b in batches):,} fixes in batches of {a.devices:,}, one client")
    print("| server | fixes | wall s | fixes/s | server CPU s | server CPU / fix | client CPU s | events | server RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, m in (("triggerkit serve", tk), ("redis-server GEOSEARCH + client state", rd)):
        print(f"| {name} | {m['fixes']:,} | {m['wall']:.2f} | {m['fixes'] / m['wall']:,.0f} | {m['cpu']:.2f} | "
              f"{m['cpu'] / max(1, m['fixes']) * 1e6:.1f} us | {m['client']:.2f} | {m['events']:,} | {m['rss']:,.0f} |")
    print(f"ratios (Redis / TriggerKit): wall {rd['wall'] / tk['wall']:.2f}x, "
          f"server CPU {rd['cpu'] / max(1e-9, tk['cpu']):.2f}x, "
          f"server + client CPU {(rd['cpu'] + rd['client']) / max(1e-9, tk['cpu'] + tk['client']):.2f}x")


if __name__ == "__main__":
    main()
