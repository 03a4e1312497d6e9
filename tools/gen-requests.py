#!/usr/bin/env python3
"""Generate a large requests file (NDJSON) with every trigger kind, for load tests.

    tools/gen-requests.py --count 100000 --seed 1 > /tmp/requests-100k.ndjson

Mix: 40% calendar (daily, weekly, monthly, yearly, nth weekday, week of year, in a dozen
zones or floating), 20% time interval, 35% circular regions, 4% polygons, 1% immediate.
A fraction (--invalid, default 0) of lines is made invalid on purpose.
"""
import argparse
import json
import random

ZONES = ["America/New_York", "Europe/London", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney",
         "America/Los_Angeles", "Asia/Kolkata", "America/Sao_Paulo", "UTC", "Pacific/Chatham",
         "America/St_Johns", "Africa/Casablanca", None]


def calendar(rnd):
    kind = rnd.randrange(6)
    c = {"hour": rnd.randrange(24), "minute": rnd.randrange(60)}
    if kind == 1:
        c["weekday"] = rnd.randint(1, 7)
    elif kind == 2:
        c["day"] = rnd.randint(1, 31)
    elif kind == 3:
        c["month"] = rnd.randint(1, 12)
        c["day"] = rnd.randint(1, 28)
    elif kind == 4:
        c["weekday"] = rnd.randint(1, 7)
        c["weekdayOrdinal"] = rnd.randint(1, 4)
    elif kind == 5:
        c["weekOfYear"] = rnd.randint(1, 52)
        c["weekday"] = rnd.randint(1, 7)
    zone = rnd.choice(ZONES)
    if zone:
        c["timeZone"] = zone
    return {"type": "calendar", "dateMatching": c, "repeats": rnd.random() < 0.8}


def region(rnd, i):
    lat = rnd.uniform(-60, 70)
    lon = rnd.uniform(-180, 180)
    if rnd.random() < 0.9:
        r = {"identifier": f"r{i}", "center": {"latitude": round(lat, 6), "longitude": round(lon, 6)},
                "radius": round(rnd.uniform(50, 2000), 1),
                "notifyOnEntry": rnd.random() < 0.9, "notifyOnExit": rnd.random() < 0.5}
        if not (r["notifyOnEntry"] or r["notifyOnExit"]):
            r["notifyOnEntry"] = True
        return r
    d = rnd.uniform(0.001, 0.02)
    ring = [[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]
    ring = [[round(x, 6), round(y, 6)] for x, y in ring]
    return {"identifier": f"p{i}", "geometry": {"type": "Polygon", "coordinates": [ring]}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--devices", type=int, default=1000, help="device ids for device-scoped requests")
    ap.add_argument("--invalid", type=float, default=0.0, help="fraction of deliberately invalid requests")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    for i in range(a.count):
        r = {"identifier": f"req-{i:07d}", "content": {"title": f"Request {i}", "body": "generated"}}
        x = rnd.random()
        if x < 0.40:
            r["trigger"] = calendar(rnd)
        elif x < 0.60:
            r["trigger"] = {"type": "timeInterval", "timeInterval": rnd.choice([60, 300, 900, 3600, 86400, 30.5]),
                            "repeats": False}
            if r["trigger"]["timeInterval"] >= 60:
                r["trigger"]["repeats"] = rnd.random() < 0.5
        elif x < 0.99:
            r["trigger"] = {"type": "location", "region": region(rnd, i), "repeats": rnd.random() < 0.5}
        if rnd.random() < 0.3:
            r["device"] = f"d-{rnd.randrange(a.devices):05d}"
        if a.invalid and rnd.random() < a.invalid:
            r["content"] = {}
        print(json.dumps(r, separators=(",", ":")))


if __name__ == "__main__":
    main()
