#!/usr/bin/env python3
"""Generate the bundled demo stream: one weekday of a commuter ("alex") and a friend ("sam").

    tools/gen-commuter.py > Fixtures/demo/fixes.ndjson

alex: home in Brooklyn -> office near the Empire State Building -> gym -> home.
sam: walks through Prospect Park (the polygon region, around its hole) and past the gym.
Fixes every 60 s while still, every 10 s while moving, with a few metres of seeded jitter;
one stale and one invalid fix are included on purpose. Times are UTC (New York is UTC-5).
"""
import json
import math
import random

rnd = random.Random(2026)
DAY = "2026-11-23"  # a Monday


def ts(sec):
    h, m, s = sec // 3600, sec // 60 % 60, sec % 60
    return f"{DAY}T{h:02d}:{m:02d}:{s:02d}Z"


HOME = (40.6782, -73.9442)
OFFICE = (40.7484, -73.9857)
GYM = (40.7359, -73.9911)
PARK_W = (40.6668, -73.9750)   # west edge of the park polygon
PARK_E = (40.6668, -73.9640)


def jitter(p, metres=4.0):
    dlat = rnd.gauss(0, metres) / 111_000
    dlon = rnd.gauss(0, metres) / (111_000 * math.cos(math.radians(p[0])))
    return (p[0] + dlat, p[1] + dlon)


def stay(dev, p, start, end, out, step=60):
    t = start
    while t < end:
        lat, lon = jitter(p)
        out.append((t, dev, lat, lon, round(rnd.uniform(3, 15), 1)))
        t += step
    return end


def move(dev, a, b, start, minutes, out, step=10):
    n = max(1, minutes * 60 // step)
    for i in range(n):
        f = i / n
        lat, lon = jitter((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f))
        out.append((start + i * step, dev, lat, lon, round(rnd.uniform(4, 20), 1)))
    return start + n * step


def main():
    out = []
    # alex (UTC times: 11:00Z = 06:00 in New York)
    t = stay("alex", HOME, 11 * 3600, 13 * 3600, out)
    t = move("alex", HOME, OFFICE, t, 40, out)
    t = stay("alex", OFFICE, t, 22 * 3600, out)
    t = move("alex", OFFICE, GYM, t, 15, out)
    t = stay("alex", GYM, t, 23 * 3600 + 15 * 60, out)
    t = move("alex", GYM, HOME, t, 45, out)
    stay("alex", HOME, t, 24 * 3600 - 60, out)
    # sam: a walk across the park in the afternoon, later past the gym
    t = stay("sam", (40.6668, -73.9800), 18 * 3600, 18 * 3600 + 600, out)
    t = move("sam", (40.6668, -73.9800), PARK_W, t, 5, out)
    t = move("sam", PARK_W, PARK_E, t, 20, out)
    t = move("sam", PARK_E, (40.6668, -73.9580), t, 8, out)
    t = move("sam", (40.7300, -73.9911), GYM, 21 * 3600, 10, out)
    stay("sam", GYM, t, 21 * 3600 + 1800, out)
    out.sort(key=lambda r: (r[0], r[1]))
    lines = []
    for t, dev, lat, lon, acc in out:
        lines.append(json.dumps({"device": dev, "t": ts(t), "lat": round(lat, 6), "lon": round(lon, 6), "acc": acc}))
    # a stale fix (alex, 10 minutes in the past) and an invalid one (negative accuracy)
    k = len(lines) // 3
    lines.insert(k, json.dumps({"device": "alex", "t": ts(out[k][0] - 600), "lat": HOME[0], "lon": HOME[1], "acc": 5}))
    lines.insert(k + 5, json.dumps({"device": "alex", "t": ts(out[k + 4][0]), "lat": 0.0, "lon": 0.0, "acc": -1}))
    lines.insert(0, json.dumps({"t": ts(11 * 3600)}))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
