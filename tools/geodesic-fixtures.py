#!/usr/bin/env python3
"""Writes Fixtures/geodesic/distances.csv and boundary.csv: WGS84 geodesic distances computed with
GeographicLib (C. Karney, `Geodesic.WGS84.Inverse`, accurate to ~15 nm), the reference
the geofence engine's `Geodesic.distance` is tested against (< 1 cm required).

Usage: pip install geographiclib; python3 tools/geodesic-fixtures.py [--seed 7] [--out PATH]
A fixed seed gives the same file byte for byte.

boundary.csv: circles (radius 10 m .. 1000 km, anywhere incl. poles and the antimeridian)
with points at radius - 2 cm and radius + 2 cm from GeographicLib's direct solution, for
containment tests.
"""
import argparse
import random
from geographiclib.geodesic import Geodesic

G = Geodesic.WGS84


def wrap(lon):
    """Longitude into [-180, 180)."""
    return (lon + 180.0) % 360.0 - 180.0


def pairs(rng):
    out = []
    # Short ranges (1 mm .. 10 km): where containment decisions are made.
    for _ in range(80):
        lat1, lon1 = rng.uniform(-89.9, 89.9), rng.uniform(-180, 180)
        d = 10 ** rng.uniform(-3, 4)
        p = G.Direct(lat1, lon1, rng.uniform(0, 360), d)
        out.append(("short", lat1, lon1, p["lat2"], p["lon2"]))
    # Medium (10 km .. 1000 km): the largest allowed circle is 1000 km.
    for _ in range(60):
        lat1, lon1 = rng.uniform(-89, 89), rng.uniform(-180, 180)
        d = 10 ** rng.uniform(4, 6)
        p = G.Direct(lat1, lon1, rng.uniform(0, 360), d)
        out.append(("medium", lat1, lon1, p["lat2"], p["lon2"]))
    # Long: anywhere to anywhere.
    for _ in range(60):
        out.append(("long", rng.uniform(-90, 90), rng.uniform(-180, 180),
                    rng.uniform(-90, 90), rng.uniform(-180, 180)))
    # Near-antipodal: where Vincenty's iteration fails to converge.
    for _ in range(80):
        lat1, lon1 = rng.uniform(-89, 89), rng.uniform(-180, 180)
        dlat, dlon = 10 ** rng.uniform(-6, 0.5), 10 ** rng.uniform(-6, 0.7)
        out.append(("antipodal", lat1, lon1, -lat1 + rng.choice([-1, 1]) * dlat,
                    wrap(lon1 + 180 + rng.choice([-1, 1]) * dlon)))
    # Exactly antipodal, equatorial (shortest path over a pole), meridional.
    for lat in (0.0, 0.5, 30.0, 89.0):
        out.append(("antipodal-exact", lat, 10.0, -lat, -170.0))
    for dlon in (179.0, 179.4, 179.5, 179.7, 179.9, 179.99, 180.0, 90.0, 1.0):
        out.append(("equatorial", 0.0, 0.0, 0.0, dlon))
    for lat1, lat2 in ((-80.0, 80.0), (10.0, -10.0), (0.0, 90.0), (-90.0, 90.0), (45.0, 45.0001)):
        out.append(("meridional", lat1, 20.0, lat2, 20.0))
    # Poles.
    for _ in range(30):
        lat1 = rng.choice([-1, 1]) * (90 - 10 ** rng.uniform(-7, 0.5))
        lat2 = rng.choice([lat1, -lat1, rng.uniform(-90, 90)]) + rng.uniform(-0.01, 0.01)
        lat2 = max(-90.0, min(90.0, lat2))
        out.append(("pole", lat1, rng.uniform(-180, 180), lat2, rng.uniform(-180, 180)))
    out.append(("pole", 90.0, 0.0, 89.99999, 123.0))
    out.append(("pole", -90.0, 0.0, -90.0, 77.0))
    # Antimeridian: short hops across 180.
    for _ in range(40):
        lat1 = rng.uniform(-85, 85)
        lon1 = 180 - 10 ** rng.uniform(-6, 0)
        p = G.Direct(lat1, lon1, rng.uniform(0, 360), 10 ** rng.uniform(0, 5.5))
        out.append(("antimeridian", lat1, lon1 if rng.random() < 0.5 else -lon1, p["lat2"], p["lon2"]))
    out.append(("antimeridian", 10.0, 180.0, 10.0, -180.0))
    out.append(("same", 40.0, -73.0, 40.0, -73.0))
    return out


def boundary(rng):
    out = []
    for i in range(240):
        radius = 10 ** rng.uniform(1, 6)
        if i % 8 == 0:
            lat = rng.choice([-1, 1]) * rng.uniform(85, 90)       # polar
        else:
            lat = rng.uniform(-84, 84)
        lon = rng.uniform(179, 180) * rng.choice([-1, 1]) if i % 8 == 1 else rng.uniform(-180, 180)
        for delta in (-0.02, 0.02):
            p = G.Direct(lat, lon, rng.uniform(0, 360), radius + delta)
            out.append((lat, lon, radius, p["lat2"], p["lon2"], radius + delta))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default="Fixtures/geodesic/distances.csv")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with open(args.out, "w") as f:
        f.write("# WGS84 geodesic distances from GeographicLib %s Geodesic.WGS84.Inverse; "
                "tools/geodesic-fixtures.py --seed %d\n" % (__import__("geographiclib").__version__, args.seed))
        f.write("kind,lat1,lon1,lat2,lon2,s12\n")
        for kind, lat1, lon1, lat2, lon2 in pairs(rng):
            s12 = G.Inverse(lat1, lon1, lat2, lon2)["s12"]
            f.write("%s,%r,%r,%r,%r,%r\n" % (kind, lat1, lon1, lat2, lon2, s12))
    with open(args.out.replace("distances.csv", "boundary.csv"), "w") as f:
        f.write("# circles and points 2 cm inside/outside (GeographicLib Direct); tools/geodesic-fixtures.py --seed %d\n" % args.seed)
        f.write("lat,lon,radius,plat,plon,distance\n")
        for row in boundary(rng):
            f.write("%r,%r,%r,%r,%r,%r\n" % row)


if __name__ == "__main__":
    main()
