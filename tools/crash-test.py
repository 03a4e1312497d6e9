#!/usr/bin/env python3
"""Crash test of `triggerkit run --state` (CONTRACT section 4, the --state paragraph).

    tools/crash-test.py [--lines 1000000] [--kills 20] [--seed 1] [--rules] [--bin .build/release/triggerkit]

1. Generates requests (circles around Manhattan, shared and device-scoped, one-shot and
   repeating; calendar, time-interval and immediate triggers) and a stream of fixes of
   devices wandering among them. With --rules every circle is a fence with rules (a dwell
   inside or outside, crossings, an accuracy limit: their moves are decided on `run`'s
   reading thread).
2. Runs `triggerkit run` without --state and with a fresh --state (timed; outputs must be
   byte-identical): the reference.
3. Runs it again on a new state file, kill -9'ed at --kills random moments and restarted
   each time with the same state and the same full input; collects all output.
4. Verifies: every reference event at least once, nothing absent from the reference,
   duplicates have identical lines (same eventId), and each restart resumes exactly at the
   last committed event (so only the killed run's uncommitted batch can repeat).

Python 3 standard library only. Exit status 0 when every check holds.
"""
import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

T0 = 1795770000  # 2026-11-27T05:40:00Z


def gen_requests(rnd, path, devices, rules=False):
    reqs = []
    for i in range(200):
        lat = 40.70 + rnd.uniform(0, 0.10)
        lon = -74.02 + rnd.uniform(0, 0.10)
        r = {"identifier": f"geo-{i:04d}", "content": {"title": f"place {i}"},
             "trigger": {"type": "location", "repeats": rnd.random() < 0.7,
                         "region": {"identifier": f"r{i}", "center": {"latitude": round(lat, 6), "longitude": round(lon, 6)},
                                    "radius": round(rnd.uniform(100, 800), 1),
                                    "notifyOnEntry": True, "notifyOnExit": rnd.random() < 0.5}}}
        if rnd.random() < 0.3:
            r["device"] = f"d{rnd.randrange(devices):04d}"
        if rules:
            kind = i % 3
            if kind == 0:
                r["trigger"]["dwell"] = {"inside": 60}
                r["trigger"]["repeats"] = True  # a one-shot with a dwell is refused
            elif kind == 1:
                r["trigger"]["dwell"] = {"outside": 120}
                r["trigger"]["crossings"] = True
                r["trigger"]["repeats"] = True
            else:
                r["trigger"]["accuracy"] = {"maximum": 30}
                r["trigger"]["crossings"] = True
        reqs.append(r)
    for i in range(40):
        c = {"minute": rnd.randrange(60), "timeZone": "America/New_York"}
        if rnd.random() < 0.5:
            c["hour"] = rnd.randrange(24)
        reqs.append({"identifier": f"cal-{i:03d}", "content": {"title": "calendar"},
                     "trigger": {"type": "calendar", "dateMatching": c,
                                 "repeats": rnd.random() < 0.8}})
    for i in range(40):
        reqs.append({"identifier": f"int-{i:03d}", "content": {"title": "interval"},
                     "trigger": {"type": "timeInterval", "timeInterval": rnd.choice([60, 300, 900, 3600, 7200]),
                                 "repeats": rnd.random() < 0.6}})
    for i in range(5):
        reqs.append({"identifier": f"now-{i}", "content": {"title": "immediate"}})
    with open(path, "w") as f:
        for r in reqs:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def gen_stream(rnd, path, lines, devices):
    pos = [[40.70 + rnd.uniform(0, 0.10), -74.02 + rnd.uniform(0, 0.10)] for _ in range(devices)]
    last = [0] * devices
    t = float(T0)
    with open(path, "w") as f:
        out = []
        for n in range(lines):
            t += rnd.uniform(0.05, 0.5)
            x = rnd.random()
            if x < 0.01:
                out.append('{"t":%d}' % int(t))
            else:
                d = rnd.randrange(devices)
                p = pos[d]
                p[0] = min(40.80, max(40.70, p[0] + rnd.uniform(-0.0015, 0.0015)))
                p[1] = min(-73.92, max(-74.02, p[1] + rnd.uniform(-0.0015, 0.0015)))
                ts = int(t) if x > 0.015 else last[d] - 5  # a few stale fixes
                last[d] = max(last[d], ts)
                out.append('{"device":"d%04d","t":%d,"lat":%.6f,"lon":%.6f,"acc":%.1f}' % (d, ts, p[0], p[1], rnd.uniform(3, 30)))
            if len(out) >= 10000:
                f.write("\n".join(out) + "\n")
                out = []
        if out:
            f.write("\n".join(out) + "\n")


def run_to_end(cmd, stream, out_path):
    start = time.monotonic()
    with open(stream, "rb") as inp, open(out_path, "wb") as out:
        p = subprocess.run(cmd, stdin=inp, stdout=out, stderr=subprocess.PIPE)
    elapsed = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}: {p.stderr.decode()[-500:]}")
    return elapsed, p.stderr.decode().strip().splitlines()[-1]


def committed(state):
    """(input position, delivered rows) of a state file, read with Python's sqlite3."""
    if not os.path.exists(state):
        return 0, 0
    db = sqlite3.connect(state)
    try:
        pos = db.execute("SELECT inputPosition FROM meta").fetchone()
        n = db.execute("SELECT coalesce(sum(count), 0) FROM delivered").fetchone()[0]
        return (pos[0] if pos else 0), n
    except sqlite3.OperationalError:  # killed before the schema existed
        return 0, 0
    finally:
        db.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--devices", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=".build/release/triggerkit")
    ap.add_argument("--workdir", help="keep files here (default: a temporary directory)")
    ap.add_argument("--rules", action="store_true", help="every circle a fence with rules")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    work = a.workdir or tempfile.mkdtemp(prefix="tk-crash-")
    os.makedirs(work, exist_ok=True)
    req, stream = os.path.join(work, "requests.ndjson"), os.path.join(work, "stream.ndjson")
    t = time.monotonic()
    gen_requests(rnd, req, a.devices, rules=a.rules)
    gen_stream(rnd, stream, a.lines, a.devices)
    print(f"generated {a.lines} lines in {time.monotonic() - t:.1f} s ({work})")

    base = [a.bin, "run", "--requests", req]
    plain_s, summary = run_to_end(base, stream, os.path.join(work, "plain.out"))
    ref_state = os.path.join(work, "ref.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(ref_state + suffix):
            os.remove(ref_state + suffix)
    state_s, _ = run_to_end(base + ["--state", ref_state], stream, os.path.join(work, "ref.out"))
    with open(os.path.join(work, "plain.out"), "rb") as f1, open(os.path.join(work, "ref.out"), "rb") as f2:
        plain, ref_bytes = f1.read(), f2.read()
    if plain != ref_bytes:
        sys.exit("FAIL: output with --state differs from output without")
    ref = ref_bytes.decode().splitlines()
    print(f"reference: {summary}")
    print(f"without --state: {plain_s:.2f} s ({a.lines / plain_s:,.0f} lines/s)")
    print(f"with --state:    {state_s:.2f} s ({a.lines / state_s:,.0f} lines/s)")
    ids = [json.loads(l)["eventId"] for l in ref]
    if len(set(ids)) != len(ids):
        sys.exit("FAIL: reference eventIds are not distinct (checks below assume they are)")

    # Kill -9 at random moments, restarting on the same state and the same full input.
    state = os.path.join(work, "crash.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(state + suffix):
            os.remove(state + suffix)
    segments, kills, problems = [], 0, []
    total_start = time.monotonic()
    while True:
        pos, start_event = committed(state)
        seg_out = os.path.join(work, f"seg-{len(segments):02d}.out")
        with open(stream, "rb") as inp, open(seg_out, "wb") as out:
            p = subprocess.Popen(base + ["--state", state], stdin=inp, stdout=out, stderr=subprocess.DEVNULL)
            killed = False
            if kills < a.kills:
                remaining = state_s * (1 - pos / a.lines) + 0.05
                delay = rnd.uniform(0, 2 * remaining / (a.kills - kills + 1))
                try:
                    p.wait(timeout=delay)
                except subprocess.TimeoutExpired:
                    p.send_signal(signal.SIGKILL)
                    p.wait()
                    killed = True
                    kills += 1
            else:
                p.wait()
        with open(seg_out, "rb") as f:
            data = f.read().decode()
        lines = data.split("\n")
        partial = lines.pop()  # text after the last newline: a line cut by the kill
        segments.append((pos, start_event, lines, killed, bool(partial)))
        if not killed:
            if p.returncode != 0:
                problems.append(f"final run exited {p.returncode}")
            break
    total_s = time.monotonic() - total_start

    # Checks.
    ref_set = set(ref)
    collected = [l for s in segments for l in s[2]]
    missing = ref_set - set(collected)
    extra = set(collected) - ref_set
    if missing:
        problems.append(f"{len(missing)} reference events never emitted, e.g. {next(iter(missing))}")
    if extra:
        problems.append(f"{len(extra)} events absent from the reference, e.g. {next(iter(extra))}")
    by_id = {}
    for l in collected:
        try:
            by_id.setdefault(json.loads(l)["eventId"], set()).add(l)
        except (ValueError, KeyError):
            problems.append(f"unreadable output line: {l[:120]}")
    if any(len(v) > 1 for v in by_id.values()):
        problems.append("an eventId was emitted with different contents")
    repeats = 0
    emitted = 0  # distinct events emitted before each segment
    seen = set()
    for k, (pos, start_event, lines, killed, partial) in enumerate(segments):
        # A restart resumes exactly after the last committed event: its output is the
        # reference from there on, so only the killed run's uncommitted batch repeats.
        if lines != ref[start_event:start_event + len(lines)]:
            problems.append(f"segment {k} (from input line {pos}, event {start_event}) is not the reference slice")
        repeats += sum(1 for l in lines if l in seen)
        if start_event > emitted:
            problems.append(f"segment {k}: committed {start_event} events but only {emitted} had been emitted")
        seen.update(lines)
        emitted = len(seen)
    final_pos, final_events = committed(state)
    if final_events != len(ref) or final_pos != a.lines:
        problems.append(f"final state: position {final_pos}, delivered {final_events}; expected {a.lines}, {len(ref)}")
    print(f"kill run: {kills} kills, {len(segments)} runs, {total_s:.2f} s total; {len(collected)} lines emitted, "
          f"{len(ref)} reference events, {repeats} repeated (all from uncommitted batches), "
          f"{sum(1 for s in segments if s[4])} cut lines")
    for k, (pos, start_event, lines, killed, partial) in enumerate(segments):
        print(f"  run {k:2d}: resumed at line {pos:>8}, event {start_event:>7}; emitted {len(lines):>7}"
              f"{' (killed)' if killed else ''}")
    if problems:
        print("FAIL")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
