#!/usr/bin/env python3
"""The geofence stream with shapely 2, as a whole process: what a user would write instead of
`triggerkit run` for enter/exit events (the peer of tools/geofence-bench.py).

  tools/shapely-run.py --requests regions.ndjson < fixes.ndjson > events.ndjson

Reads location requests (circles and GeoJSON polygons, tools/gen-geo.py output) and fixes
NDJSON (`json.loads` per line), then, vectorised over all fixes with numpy:
- candidates: an STRtree over the regions' bounding boxes (circles: radius in degrees at the
  centre's latitude), queried with every fix as a point;
- exact test: circles by haversine distance (mean Earth radius, up to ~0.5 % off the WGS84
  geodesic) <= radius; polygons by `shapely.contains_xy`;
- events: a (device, region) pair inside at a fix but not at the device's previous fix is an
  enter; inside at a fix but not at the device's next one, an exit at that next fix. A device's
  first fix inside a region is an enter (like `triggerkit run --initial fire`).
Events are written one JSON line each, in fix order, ties by region identifier. No hysteresis,
accuracy or dwell: a lower bound on the work a faithful implementation does.
"""
import argparse
import json
import sys

import numpy as np
import shapely

EARTH_M = 6_371_008.8
M_PER_DEG = 111_320.0


def load_regions(path):
    ids, circles, polys = [], [], []
    with open(path) as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            r = json.loads(line)
            region = r["trigger"]["region"]
            k = len(ids)
            ids.append(r["identifier"])
            if "center" in region:
                c = region["center"]
                circles.append((k, c["latitude"], c["longitude"], region["radius"]))
            else:
                polys.append((k, shapely.Polygon(region["geometry"]["coordinates"][0])))
    return ids, circles, polys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", required=True)
    a = ap.parse_args()
    ids, circles, polys = load_regions(a.requests)
    devices, dev_of, t_of, lat, lon = {}, [], [], [], []
    for line in sys.stdin:
        o = json.loads(line)
        if "lat" not in o:
            continue
        dev_of.append(devices.setdefault(o.get("device", ""), len(devices)))
        t_of.append(o["t"])
        lat.append(o["lat"])
        lon.append(o["lon"])
    lat, lon = np.array(lat), np.array(lon)
    dev = np.array(dev_of, dtype=np.int64)
    n = len(lat)
    pts = shapely.points(lon, lat)
    fix_hits, region_hits = [], []
    if circles:
        ck = np.array([c[0] for c in circles])
        clat = np.array([c[1] for c in circles])
        clon = np.array([c[2] for c in circles])
        crad = np.array([c[3] for c in circles])
        dlat = crad / M_PER_DEG
        dlon = crad / (M_PER_DEG * np.maximum(0.01, np.cos(np.radians(clat))))
        tree = shapely.STRtree(shapely.box(clon - dlon, clat - dlat, clon + dlon, clat + dlat))
        fi, ri = tree.query(pts)
        p1, p2 = np.radians(lat[fi]), np.radians(clat[ri])
        h = (np.sin((p2 - p1) / 2) ** 2
             + np.cos(p1) * np.cos(p2) * np.sin((np.radians(clon[ri]) - np.radians(lon[fi])) / 2) ** 2)
        inside = 2 * EARTH_M * np.arcsin(np.sqrt(np.minimum(h, 1.0))) <= crad[ri]
        fix_hits.append(fi[inside])
        region_hits.append(ck[ri[inside]])
    if polys:
        pk = np.array([p[0] for p in polys])
        geoms = np.array([p[1] for p in polys])
        tree = shapely.STRtree(geoms)
        fi, ri = tree.query(pts)
        inside = shapely.contains_xy(geoms[ri], lon[fi], lat[fi])
        fix_hits.append(fi[inside])
        region_hits.append(pk[ri[inside]])
    fi = np.concatenate(fix_hits) if fix_hits else np.array([], dtype=np.int64)
    ri = np.concatenate(region_hits) if region_hits else np.array([], dtype=np.int64)
    # Each fix's previous and next fix of the same device (-1: none).
    order = np.lexsort((np.arange(n), dev))
    prev = np.full(n, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    same = dev[order[1:]] == dev[order[:-1]]
    prev[order[1:][same]] = order[:-1][same]
    nxt[order[:-1][same]] = order[1:][same]
    r_count = max(1, len(ids))
    keys = np.sort(fi * r_count + ri)
    def member(f, r):
        k = f * r_count + r
        pos = np.searchsorted(keys, k)
        return (f >= 0) & (pos < len(keys)) & (keys[np.minimum(pos, len(keys) - 1)] == k)
    enter = ~member(prev[fi], ri)
    exit_at = nxt[fi]
    exits = (exit_at >= 0) & ~member(exit_at, ri)
    ev_fix = np.concatenate([fi[enter], exit_at[exits]])
    ev_region = np.concatenate([ri[enter], ri[exits]])
    ev_kind = np.concatenate([np.zeros(int(enter.sum()), dtype=np.int8), np.ones(int(exits.sum()), dtype=np.int8)])
    names = np.array(ids)
    idx = np.lexsort((names[ev_region] if len(ev_region) else ev_region, ev_fix))
    inv_dev = {v: k for k, v in devices.items()}
    out = sys.stdout
    kinds = ("enter", "exit")
    for k in idx:
        f = int(ev_fix[k])
        out.write('{"identifier":%s,"date":"%s","event":"%s","device":%s}\n'
                  % (json.dumps(ids[int(ev_region[k])]), t_of[f], kinds[ev_kind[k]], json.dumps(inv_dev[int(dev[f])])))
    sys.stderr.write("fixes %d, regions %d, events %d\n" % (n, len(ids), len(idx)))


if __name__ == "__main__":
    main()
