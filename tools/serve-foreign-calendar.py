#!/usr/bin/env python3
"""What other-calendar triggers cost a `serve` client, whole server, one binary after another.

  tools/serve-foreign-calendar.py [--triggerkit PATH] [--baseline OLD_BINARY]

Each binary is started on a fresh data directory (one tenant, --clock stream), then timed,
one HTTP call each:
  - adds of two Chinese component sets no date matches (found by `make fuzz`, seed 1):
    era 2500 with weekOfYear 32, and weekdayOrdinal 5 with dayOfYear 39;
  - the add of a repeating rare pattern (the fifth Monday of the Chinese month 8);
  - GET /v1/upcoming?limit=100 with that pattern pending (its later fires are Foundation's),
    twice (a client polling: the second listing finds the fires the first one found);
  - the same with a monthly Chinese trigger (the 1st of every month) instead, three times.
Prints one markdown row per call and binary. Listens on 127.0.0.1 only; the server is stopped
at the end.
"""
import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request

from benchutil import start_serve

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "foreign-calendar-token"


def call(port, method, path, body=None):
    req = urllib.request.Request("http://127.0.0.1:%s%s" % (port, path), method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            out = r.read()
    except urllib.error.HTTPError as e:
        out = e.read()
    return time.perf_counter() - t, out


def request(identifier, matching, repeats=False):
    return {"identifier": identifier, "content": {"title": "x"},
            "trigger": {"type": "calendar", "dateMatching": matching, "repeats": repeats}}


def measure(label, binary):
    data = tempfile.mkdtemp(prefix="tk-foreign-")
    p, port, _ = start_serve(binary, ["--data-dir", data, "--clock", "stream", "--start", "2026-11-23T08:00:00Z",
                                      "--tenant", "t=" + hashlib.sha256(TOKEN.encode()).hexdigest()])
    if p is None:
        sys.exit("serve did not start")
    try:
        for name, matching in [("era 2500, weekOfYear 32", {"calendar": "chinese", "era": 2500, "weekOfYear": 32, "timeZone": "Antarctica/Troll"}),
                               ("weekdayOrdinal 5, dayOfYear 39", {"calendar": "chinese", "weekdayOrdinal": 5, "dayOfYear": 39, "timeZone": "Europe/Dublin"})]:
            t, out = call(port, "POST", "/v1/requests", [request("never", matching)])
            refused = b"notificationInvalidNoDate" in out
            print("| %s | add: Chinese %s | %.3f s | %s |" % (label, name, t, "refused" if refused else "accepted?"))
        rare = {"calendar": "chinese", "month": 8, "weekday": 2, "weekdayOrdinal": 5, "timeZone": "UTC"}
        t, _ = call(port, "POST", "/v1/requests", [request("rare", rare, True)])
        print("| %s | add: fifth Monday of the Chinese month 8, repeating | %.3f s | |" % (label, t))
        for when in ("first", "again"):
            t, out = call(port, "GET", "/v1/upcoming?limit=100")
            print("| %s | GET /v1/upcoming?limit=100 (%s) | %.3f s | %d fires listed |" % (label, when, t, out.count(b'"date"')))
        t, _ = call(port, "DELETE", "/v1/requests/rare")
        monthly = {"calendar": "chinese", "day": 1, "hour": 9, "timeZone": "Asia/Shanghai"}
        t, _ = call(port, "POST", "/v1/requests", [request("moon", monthly, True)])
        print("| %s | add: the 1st of every Chinese month at 09:00, repeating | %.3f s | |" % (label, t))
        for when in ("first", "again", "again"):
            t, out = call(port, "GET", "/v1/upcoming?limit=100")
            print("| %s | GET /v1/upcoming?limit=100 (%s) | %.3f s | %d fires listed |" % (label, when, t, out.count(b'"date"')))
    finally:
        p.terminate()
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triggerkit", default=os.path.join(ROOT, ".build", "release", "triggerkit"))
    ap.add_argument("--baseline", help="an earlier build of triggerkit, measured first")
    a = ap.parse_args()
    print("| binary | call | time | |")
    print("|---|---|---:|---|")
    if a.baseline:
        measure("baseline", a.baseline)
    measure("this build", a.triggerkit)


if __name__ == "__main__":
    main()
