#!/usr/bin/env python3
"""What one `POST /v1/fixes` of the default body limit (8 MiB) costs `serve` in memory and
time, by the kind of lines in it, for one or more binaries side by side.

Each case starts a fresh server (stream clock, one tenant, default limits), posts one body,
and reports the answer's status and size, the seconds it took, and the server's peak resident
memory before and after (VmHWM). Cases:
  bad     8 MiB of "x" lines (every line refused as written)
  clock   8 MiB of clock lines ({"t": ...})
  fixes   8 MiB of fixes over 1,000 devices
  refused 8 MiB of fixes of new devices past `maxDevices` 1 (refused by the center)

    python3 tools/serve-batch-memory.py --bin OLD --bin NEW [--cases bad,clock]
"""
import argparse
import hashlib
import http.client
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import peak_mib, start_serve  # noqa: E402

LIMIT = 8 << 20
TOKEN = "batch-memory-token"


def body(case):
    out, n = [], 0
    size = 0
    while True:
        if case == "bad":
            line = "x"
        elif case == "clock":
            line = '{"t":"2026-11-23T08:%02d:%02dZ"}' % ((n // 60) % 60, n % 60)
        elif case == "fixes":
            line = '{"device":"d%d","t":"2026-11-23T08:00:01Z","lat":40.%04d,"lon":-74}' % (n % 1000, n % 10000)
        else:  # refused
            line = '{"device":"n%d","t":"2026-11-23T08:00:01Z","lat":40,"lon":-74}' % n
        if size + len(line) + 1 > LIMIT:
            break
        out.append(line)
        size += len(line) + 1
        n += 1
    return ("\n".join(out) + "\n").encode(), n


def measure(binary, case, data):
    tenant = "acme=" + hashlib.sha256(TOKEN.encode()).hexdigest()
    d = tempfile.mkdtemp(dir=data)
    try:
        args = ["--data-dir", d, "--tenant", tenant, "--clock", "stream", "--start", "2026-11-23T08:00:00Z"]
        if case == "refused":
            cfg = os.path.join(d, "serve.json")
            with open(cfg, "w") as f:
                f.write('{"limits": {"maxDevices": 1}}')
            args += ["--config", cfg]
        p, port, _ = start_serve(binary, args)
        if p is None:
            return None
        try:
            payload, lines = body(case)
            before = peak_mib(p.pid)
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            t = time.perf_counter()
            c.request("POST", "/v1/fixes", body=payload, headers={"Authorization": "Bearer " + TOKEN})
            r = c.getresponse()
            answer = r.read()
            took = time.perf_counter() - t
            return dict(status=r.status, answer=len(answer), seconds=took, before=before, peak=peak_mib(p.pid), lines=lines)
        finally:
            p.kill()
            p.wait()
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", action="append", required=True, help="a triggerkit binary (repeat to compare)")
    ap.add_argument("--cases", default="bad,clock,fixes,refused")
    ap.add_argument("--data", default=tempfile.gettempdir())
    a = ap.parse_args()
    print("| case | lines | binary | status | answer bytes | seconds | peak MiB before | peak MiB after |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for case in a.cases.split(","):
        for b in a.bin:
            m = measure(b, case, a.data)
            if m is None:
                print(f"| {case} | | {b} | did not start | | | | |")
                continue
            print(f"| {case} | {m['lines']:,} | {b} | {m['status']} | {m['answer']:,} | {m['seconds']:.2f} | "
                  f"{m['before']:.0f} | {m['peak']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
