#!/usr/bin/env python3
"""Load test for `triggerkit serve` on loopback (issue 10).

Starts the release binary (--clock stream, a fresh data directory), adds REQUESTS requests
(in arrays of 1,000)
(circles spread over a 1 x 1 degree square, a tenth of them repeating 60-3600 s intervals),
then posts fixes from DEVICES devices walking about 20 m per fix, in NDJSON batches of BATCH
lines, while one SSE connection reads every event. Reports:

- fixes/s: fixes posted / wall time of the posting phase (HTTP, parsing, evaluation, journal
  and outbox in SQLite, SSE fan-out included);
- latency from the start of the POST carrying a fix to the arrival on SSE of the event it
  caused (p50 / p99 / max), for location events (their date is the fix's t);
- the server's resident memory (VmRSS) at the end and its peak (VmHWM).

Bounded: every loop stops by itself (fix count, 120 s wall limit for the posting phase, 30 s
for the SSE drain). Only 127.0.0.1 is used.

  python3 tools/serve-load.py [--requests 100000] [--devices 10000] [--fixes 1000000] [--batch 2000] [--connections 3]
"""
import argparse
import http.client
import json
import math
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import hashlib

from benchutil import stop as stop_server

T0 = 1795766400  # 2026-11-23T04:00:00Z


def iso(sec):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(sec))) + "Z"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/triggerkit")
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--devices", type=int, default=10_000)
    ap.add_argument("--fixes", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=2000)
    ap.add_argument("--connections", type=int, default=3, help="clients posting at once")
    ap.add_argument("--settle", type=float, default=15,
                    help="seconds to wait after adding the requests (the snapshot they cause is taken then)")
    ap.add_argument("--seconds", type=float, default=120, help="wall limit of the posting phase")
    a = ap.parse_args()

    token = "load-token"
    data = tempfile.mkdtemp(prefix="serve-load-")
    env = dict(os.environ)
    server = subprocess.Popen(
        [a.bin, "serve", "--port", "0", "--data-dir", data, "--clock", "stream", "--start", iso(T0),
         "--tenant", "load=" + hashlib.sha256(token.encode()).hexdigest()],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
    port = None
    deadline = time.time() + 60
    while port is None and time.time() < deadline:
        line = server.stderr.readline().decode()
        if "listening on http://127.0.0.1:" in line:
            port = int(line.rsplit(":", 1)[1])
    if port is None:
        server.kill()
        sys.exit("server did not start")
    log = open(os.path.join(tempfile.gettempdir(), "serve-load.log"), "wb")
    threading.Thread(target=lambda: [log.write(l) or log.flush() for l in server.stderr], daemon=True).start()
    auth = {"Authorization": "Bearer " + token}

    def conn():
        return http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    try:
        # Requests.
        c = conn()
        t = time.time()
        rng = random.Random(7)
        chunk = []

        def flush():
            c.request("POST", "/v1/requests", json.dumps(chunk), auth)
            r = c.getresponse()
            payload = r.read()
            if r.status != 200 or json.loads(payload)["rejected"] != 0:
                sys.exit(f"requests: {r.status} {payload[:300]}")
            chunk.clear()

        for i in range(a.requests):
            if i % 10 == 9:
                body = {"identifier": f"r{i}", "content": {"title": "t"}, "addedAt": iso(T0),
                        "trigger": {"type": "timeInterval", "timeInterval": 60 + (i * 37) % 3541, "repeats": True}}
            else:
                lat = 40 + (i % 1000) * 0.001
                lon = -74 + (i // 1000 % 100) * 0.01
                body = {"identifier": f"r{i}", "content": {"title": "c"}, "addedAt": iso(T0),
                        "trigger": {"type": "location", "repeats": True, "region": {
                            "identifier": f"z{i}", "center": {"latitude": lat, "longitude": lon},
                            "radius": 50 + (i * 13) % 400, "notifyOnEntry": True, "notifyOnExit": True}}}
            chunk.append(body)
            if len(chunk) == 1000:
                flush()
        if chunk:
            flush()
        add_s = time.time() - t
        time.sleep(a.settle)

        # SSE reader: arrival time of every event, by (device, date) for location events.
        arrivals = {}
        events = [0]
        stop = threading.Event()

        reconnects = [0]

        def sse():
            # A stream more than the tenant's SSE buffer behind is closed by the server; the
            # reader resumes with Last-Event-ID, as clients are told to (at most 1,000 times).
            last = None
            while not stop.is_set() and reconnects[0] <= 1000:
                s = socket.create_connection(("127.0.0.1", port))
                resume = f"Last-Event-ID: {last}\r\n" if last is not None else ""
                where = "" if last is not None else "?from=now"
                s.sendall(f"GET /v1/events{where} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n{resume}\r\n".encode())
                buf = b""
                s.settimeout(1)
                closed = False
                while not stop.is_set():
                    try:
                        chunk = s.recv(1 << 20)
                    except socket.timeout:
                        continue
                    if not chunk:
                        closed = True
                        break
                    now = time.time()
                    buf += chunk
                    while b"\n\n" in buf:
                        frame, buf = buf.split(b"\n\n", 1)
                        for line in frame.split(b"\n"):
                            if line.startswith(b"id: "):
                                last = int(line[4:])
                            elif line.startswith(b"data: ") and b"event: delivered" in frame:
                                events[0] += 1
                                j = line[6:]
                                if b'"event"' in j:
                                    e = json.loads(j)
                                    arrivals.setdefault((e.get("device"), e["date"]), now)
                s.close()
                if not closed:
                    break
                reconnects[0] += 1

        reader = threading.Thread(target=sse, daemon=True)
        reader.start()
        time.sleep(0.5)

        # Fixes: CONNECTIONS clients post at once, each for its own devices (so each device's
        # fixes arrive in order), each waiting for its answer before its next batch.
        pos = [(40 + rng.random(), -74 + rng.random() * 0.99) for _ in range(a.devices)]
        sent_at = {}
        lock = threading.Lock()
        totals = {"posted": 0, "accepted": 0}
        batch_times = []
        failures = []
        start = time.time()

        def poster(w):
            c = conn()
            my = list(range(w, a.devices, a.connections))
            prng = random.Random(100 + w)
            sec = T0 + 60
            i = 0
            while True:
                with lock:
                    if totals["posted"] >= a.fixes or time.time() - start >= a.seconds:
                        return
                    totals["posted"] += a.batch
                sec += 1
                stamp = iso(sec)
                lines = []
                keys = []
                for k in range(a.batch):
                    d = my[i % len(my)]
                    i += 1
                    la, lo = pos[d]
                    ang = prng.random() * 2 * math.pi
                    la = min(41, max(40, la + 0.00018 * math.sin(ang)))
                    lo = min(-73.01, max(-74, lo + 0.00018 * math.cos(ang)))
                    pos[d] = (la, lo)
                    lines.append(f'{{"device":"d{d}","t":"{stamp}","lat":{la:.6f},"lon":{lo:.6f}}}')
                    keys.append(f"d{d}")
                body = "\n".join(lines)
                t1 = time.time()
                with lock:
                    for key in keys:
                        sent_at[(key, stamp)] = t1
                c.request("POST", "/v1/fixes", body, {**auth, "Content-Type": "application/x-ndjson"})
                r = c.getresponse()
                payload = r.read()
                with lock:
                    batch_times.append(time.time() - t1)
                    if r.status != 200:
                        failures.append(f"fixes: {r.status} {payload[:200]}")
                        return
                    totals["accepted"] += json.loads(payload)["accepted"]

        posters = [threading.Thread(target=poster, args=(w,)) for w in range(a.connections)]
        for t_ in posters:
            t_.start()
        for t_ in posters:
            t_.join()
        if failures:
            sys.exit(failures[0])
        posted, accepted = totals["posted"], totals["accepted"]
        post_s = time.time() - start
        # Drain SSE (bounded).
        drain = time.time()
        last = -1
        while time.time() - drain < 30 and events[0] != last:
            last = events[0]
            time.sleep(1)
        stop.set()
        sc = conn()
        sc.request("GET", "/v1/stats", headers=auth)
        stats = json.loads(sc.getresponse().read())
        status = open(f"/proc/{server.pid}/status").read()
        rss = int([l for l in status.splitlines() if l.startswith("VmRSS")][0].split()[1]) / 1024
        hwm = int([l for l in status.splitlines() if l.startswith("VmHWM")][0].split()[1]) / 1024

        lat = sorted(arrivals[k] - sent_at[k] for k in arrivals if k in sent_at)
        bt = sorted(batch_times)

        def pct(xs, p):
            return xs[min(len(xs) - 1, int(len(xs) * p))] * 1000 if xs else float("nan")

        print(f"serve load: {a.requests:,} requests ({add_s:.1f} s to add in arrays of 1,000: {a.requests / add_s:,.0f}/s), "
              f"{a.devices:,} devices, batches of {a.batch:,} from {a.connections} connections, {a.settle:g} s settle")
        print(f"| measure | value |")
        print(f"|---|---:|")
        print(f"| fixes posted | {posted:,} in {post_s:.1f} s ({accepted:,} accepted) |")
        print(f"| **fixes/s** | **{posted / post_s:,.0f}** |")
        print(f"| batch round trip p50 / p99 | {pct(bt, 0.5):.1f} / {pct(bt, 0.99):.1f} ms |")
        print(f"| events on SSE | {events[0]:,} ({len(lat):,} location events matched to their fix; "
              f"{reconnects[0]} resumes with Last-Event-ID) |")
        print(f"| fix posted -> event on SSE, p50 / p99 / max | {pct(lat, 0.5):.1f} / {pct(lat, 0.99):.1f} / {pct(lat, 1.0):.1f} ms |")
        print(f"| tenant's counters (`GET /v1/stats`) | delivered {stats['delivered']:,}, suppressed {stats['suppressed']:,}, "
              f"stale fixes {stats['staleFixes']:,}, clock {stats['clock']} |")
        print(f"| server memory, resident at end / peak | {rss:,.0f} / {hwm:,.0f} MiB |")
    finally:
        stop_server(server, data)


if __name__ == "__main__":
    main()
