#!/usr/bin/env python3
"""How long `triggerkit serve` takes to come back after kill -9 with a full journal.

  python3 tools/serve-restart.py [--adds 50000] [--fixes 0] [--tenants 1] [--runs 3] [--triggerkit PATH] [--baseline OLD]
                                 [--graceful] [--budgets MIB,MIB,...]

For each binary (and --baseline, in turn): starts the server on a fresh data directory
(--clock stream, --tenants tenants, the default --snapshot-every, so nothing is snapshotted),
adds --adds requests to each tenant (POST /v1/requests in arrays of 1,000: one journal row per
request) and posts --fixes fixes to each (NDJSON batches of 2,000, 1,000 devices), then kills it with SIGKILL and times
`serve` started again on that directory, from exec to its "listening" line: the snapshot
(none) and the journal replayed; and the restarted server's peak resident memory (VmHWM)
at that line. Each binary restarts the journal it wrote itself, --runs
times (the directory copied afresh each time); medians are printed, and the ratio.
The default, 50,000 adds, is the longest journal the default --snapshot-every lets pile up
from requests alone (a change counts as 100 fixes).

Also prints the time the adds took over HTTP (one connection, arrays of 1,000).
--graceful stops the filled server with SIGTERM instead, so each tenant restarts from its
snapshot; --budgets restarts this build once per `--restore-budget` value (MiB of snapshots
restored at once) on the same data.
Bounded: every HTTP call has a 600 s timeout, every server start 120 s; only 127.0.0.1.
"""
import argparse
import hashlib
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from benchutil import peak_mib, start_serve

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T0 = 1795766400  # 2026-11-23T04:00:00Z
TOKEN = "restart-token"


def iso(sec):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(sec))) + "Z"


def token(k):
    return TOKEN if k == 0 else f"{TOKEN}-{k}"


def start(binary, data, tenants, extra=()):
    """Starts serve on `data`; returns (process, port, seconds to its listening line)."""
    args = ["--data-dir", data, "--clock", "stream", "--start", iso(T0)] + list(extra)
    for k in range(tenants):
        args += ["--tenant", (f"t{k}" if k else "t") + "=" + hashlib.sha256(token(k).encode()).hexdigest()]
    p, port, took = start_serve(binary, args)
    if p is None:
        sys.exit("serve did not start")
    return p, port, took


def fill(binary, data, adds, fixes, tenants, graceful=False):
    """Journals `adds` requests and `fixes` fixes per tenant, then kills the server (or, graceful,
    stops it with SIGTERM: each tenant saves a snapshot); returns the adds' seconds."""
    p, port, _ = start(binary, data, tenants)
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    t = time.perf_counter()
    for k in range(tenants):
        fill_tenant(c, {"Authorization": "Bearer " + token(k)}, adds, fixes)
    add_s = time.perf_counter() - t
    p.send_signal(signal.SIGTERM if graceful else signal.SIGKILL)
    p.wait()
    return add_s


def fill_tenant(c, auth, adds, fixes):
    chunk = []
    for i in range(adds):
        chunk.append({"identifier": f"r{i}", "content": {"title": "arrived", "body": "hello"}, "addedAt": iso(T0),
                      "trigger": {"type": "location", "repeats": True, "region": {
                          "identifier": f"z{i}", "center": {"latitude": 40 + (i % 1000) * 0.001, "longitude": -74 + (i // 1000 % 100) * 0.01},
                          "radius": 50 + (i * 13) % 400, "notifyOnEntry": True, "notifyOnExit": True}}})
        if len(chunk) == 1000 or i == adds - 1:
            c.request("POST", "/v1/requests", json.dumps(chunk), auth)
            r = c.getresponse()
            body = r.read()
            if r.status != 200:
                sys.exit(f"adds: {r.status} {body[:200]}")
            chunk = []
    sent = 0
    while sent < fixes:
        lines = []
        for k in range(2000):
            n = sent + k
            d = n % 1000
            lines.append(json.dumps({"device": f"d{d}", "t": iso(T0 + 1 + n // 1000),
                                     "lat": 40 + d * 0.001 + (n // 1000) * 1e-5, "lon": -74 + d * 1e-4}))
        c.request("POST", "/v1/fixes", "\n".join(lines) + "\n", dict(auth, **{"Content-Type": "application/x-ndjson"}))
        r = c.getresponse()
        r.read()
        if r.status != 200:
            sys.exit(f"fixes: {r.status}")
        sent += 2000


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--adds", type=int, default=50_000)
    ap.add_argument("--fixes", type=int, default=0)
    ap.add_argument("--tenants", type=int, default=1, help="tenants, each filled with --adds and --fixes")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--triggerkit", default=os.path.join(ROOT, ".build", "release", "triggerkit"))
    ap.add_argument("--baseline", help="another triggerkit binary, measured in turn")
    ap.add_argument("--graceful", action="store_true", help="stop the filled server with SIGTERM (snapshots saved) instead of kill -9")
    ap.add_argument("--budgets", help="comma-separated --restore-budget values (MiB), each restarted in turn with this build")
    a = ap.parse_args()
    binaries = {"triggerkit": a.triggerkit}
    if a.baseline:
        binaries["baseline"] = a.baseline
    # (name -> (binary, extra serve arguments)): with --budgets, this build once per budget.
    variants = {name: (b, []) for name, b in binaries.items()}
    if a.budgets:
        variants = {f"--restore-budget {m}": (a.triggerkit, ["--restore-budget", m]) for m in a.budgets.split(",")}
    work = tempfile.mkdtemp(prefix="serve-restart-")
    try:
        adds, filled = {}, {}
        for name, binary in binaries.items():
            filled[name] = os.path.join(work, name)
            adds[name] = fill(binary, filled[name], a.adds, a.fixes, a.tenants, a.graceful)
        for name, (binary, _) in variants.items():
            if name not in filled:
                filled[name], adds[name] = filled["triggerkit"], adds["triggerkit"]
        binaries = {name: v[0] for name, v in variants.items()}
        times = {name: [] for name in binaries}
        peaks = {name: [] for name in binaries}
        for _ in range(a.runs):
            for name, (binary, extra) in variants.items():
                copy = filled[name] + "-run"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(filled[name], copy)
                p, _, took = start(binary, copy, a.tenants, extra)
                times[name].append(took)
                peaks[name].append(peak_mib(p.pid))
                p.send_signal(signal.SIGKILL)
                p.wait()
        print(f"# serve restart after {'SIGTERM (snapshots)' if a.graceful else 'kill -9'}: {a.tenants} tenant(s), each with {a.adds} journaled adds and {a.fixes} journaled fixes, "
              f"{a.runs} runs each, medians\n")
        print("| binary | restart (to listening) | runs | peak memory at listening | adds over HTTP |")
        print("|---|---:|---|---:|---:|")
        for name in binaries:
            print(f"| {name} | {statistics.median(times[name]):.2f} s | {', '.join('%.2f' % x for x in times[name])} | "
                  f"{statistics.median(peaks[name]):.0f} MiB | {adds[name]:.2f} s |")
        if a.baseline and "baseline" in times:
            print(f"\nbaseline / triggerkit: restart {statistics.median(times['baseline']) / statistics.median(times['triggerkit']):.1f}x, "
                  f"adds {adds['baseline'] / adds['triggerkit']:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
