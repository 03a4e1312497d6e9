#!/usr/bin/env python3
"""Check TriggerKit's "crossings between sparse fixes" against an independent reference.

  tools/crossings-check.py --bin .build/release/triggerkit [--cases N] [--seed S] [--keep DIR]
  tools/crossings-check.py --self-test

Semantics (a location trigger with "crossings": true): for each device and each pair of
consecutive fixes P0 at t0, P1 at t1, both outside the region, if the WGS84 geodesic P0 -> P1
(length L <= 100 km) passes through the region, the engine emits enter at
t0 + (t1 - t0) * s_in / L and exit at t0 + (t1 - t0) * s_out / L, s_in / s_out the distance
from P0 to the first / last point inside; dates in epoch ms, floor(x + 0.5).
- Circle: inside when the geodesic distance to the centre is <= R. Reference: the distance
  sampled along the geodesic, its minimum refined by golden section, entry and exit by bisection.
- Polygon (GeoJSON [lon, lat]): inside = shapely covers() in plain lon/lat (boundary inside),
  along the geodesic densified to <= 10 m, linear in lon/lat between. GEOS gives the first and
  last covered point of that polyline; bisection on s with covers() brackets it.
Everything is solved to 1e-6 m (the brief allowed 1 mm / 0.1 mm): a 20 m segment over 30 min
moves 1 mm in 90 ms, and dates must agree to 1 ms.

Cases: one region + one device with two fixes, both >= 1 m outside (so the engine's inside test
at the fixes cannot disagree). Categories are construction intents: "through" (via a random
interior point), "miss" (a tangent at a clear distance, or a segment stopping short), "graze"
(a tangent at R +- d, d in 1 mm..1 m; polygons: a convex-hull vertex's supporting line shifted
by +-d). Polygons stay >= 1 degree from the antimeridian (planar lon/lat cannot cross it).

Tolerances. margin = min distance - R (circles), or the path's clearance (miss, > 0) or minus
its deepest penetration (hit) for polygons, in metres of an affine lon/lat -> local-metres map
at the centroid (~0.5 % scale error). |margin| < 1 cm is ambiguous: the engine's densification
and arithmetic may decide either way, so no events or one enter+exit pair within [t0, t1]
passes. Otherwise kinds and count must match and each date be within 1 ms of the reference
(the two roundings may fall on either side of a half millisecond). Exit status 0 only with no
mismatch, the binary's status 0 and >= 100 cases with engine events (never vacuous).
"""
import argparse, datetime, functools, json, math, os, random, re, subprocess, sys, tempfile
from bisect import bisect_left
from geographiclib.geodesic import Geodesic
try:
    import shapely
    from shapely import affinity
    from shapely.geometry import LineString, Point, Polygon
    from shapely.geometry.polygon import orient
except ImportError:
    shapely = None

G = Geodesic.WGS84
POS = Geodesic.LATITUDE | Geodesic.LONGITUDE | Geodesic.LONG_UNROLL
TOL = 1e-6                 # metres along the path for every bisection / golden section
AMBIGUOUS = 0.01           # |margin| below this (metres): either answer is accepted
FIX_CLEARANCE = 1.0        # fixes are at least this far outside the region (metres)
GRAZES = (0.001, 0.005, 0.02, 0.1, 1.0)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
BASE_MS = int((datetime.datetime(2026, 11, 23, tzinfo=datetime.timezone.utc) - EPOCH).total_seconds()) * 1000


def iso(ms):
    return (EPOCH + datetime.timedelta(milliseconds=ms)).strftime('%Y-%m-%dT%H:%M:%S') + '.%03dZ' % (ms % 1000)


def parse_ms(text):
    """Epoch ms (a float if finer) of 2026-11-23T05:00:00Z or 2026-11-23T05:00:00.123Z; ValueError else."""
    m = re.fullmatch(r'(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z', text)
    if not m:
        raise ValueError('bad date %r' % text)
    d = datetime.datetime(*map(int, m.groups()[:6]), tzinfo=datetime.timezone.utc)
    return int((d - EPOCH).total_seconds()) * 1000 + float(m.group(7) or 0) * 1000


def direct(p, az, s):
    g = G.Direct(p[0], p[1], az, s)
    return (g['lat2'], g['lon2']), g['azi2']


def dist(p, q):
    return G.Inverse(p[0], p[1], q[0], q[1], Geodesic.DISTANCE)['s12']


def solve(pred, out, inside):
    """The point where pred turns true between out (false) and inside (true), to TOL."""
    while abs(inside - out) > TOL:
        mid = (out + inside) / 2
        out, inside = (out, mid) if pred(mid) else (mid, inside)
    return inside


def metres_per_degree(lat):
    e2 = G.f * (2 - G.f)
    w = math.sqrt(1 - e2 * math.sin(math.radians(lat)) ** 2)
    return math.radians(G.a / w * math.cos(math.radians(lat))), math.radians(G.a * (1 - e2) / w ** 3)


class Path:
    """The geodesic P0 -> P1 by distance s from P0, with unrolled longitudes."""
    def __init__(self, p0, p1):
        self.line = G.InverseLine(p0[0], p0[1], p1[0], p1[1])
        self.L = self.line.s13

    def at(self, s):
        g = self.line.Position(s, POS)
        return g['lat2'], g['lon2']

    @functools.cached_property
    def nodes(self):
        """Densified polyline: distances along the path and (lon, lat) points, <= 10 m apart."""
        n = max(1, math.ceil(self.L / 10))
        ss = [self.L * i / n for i in range(n + 1)]
        return ss, [self.at(s)[::-1] for s in ss]

    def linear(self, s):
        """The polyline's (lon, lat) at distance s (linear in lon/lat between nodes)."""
        ss, pts = self.nodes
        i = min(int(s / self.L * (len(ss) - 1)), len(ss) - 2)
        t = (s - ss[i]) / (ss[i + 1] - ss[i])
        return tuple(a + (b - a) * t for a, b in zip(pts[i], pts[i + 1]))


class Circle:
    kind = 'circle'

    def __init__(self, lat, lon, radius):
        self.c, self.R, self.size = (lat, lon), radius, radius

    def json(self, rid):
        return {'identifier': rid, 'center': {'latitude': self.c[0], 'longitude': self.c[1]}, 'radius': self.R}

    def clearance(self, p):
        return dist(self.c, p) - self.R

    def interior(self, rng):
        return direct(self.c, rng.uniform(0, 360), self.R * 0.98 * math.sqrt(rng.random()))[0]

    def tangent(self, rng, delta):
        """A point at distance R + delta and the azimuth there of the geodesic tangent to that circle."""
        q, azi = direct(self.c, rng.uniform(0, 360), self.R + delta)
        return q, azi + 90

    def crossing(self, path):
        """(s_in, s_out, margin); s_in = s_out = None when the path misses."""
        f = lambda s: dist(self.c, path.at(s))
        n = 64
        ss = [path.L * i / n for i in range(n + 1)]
        i = min(range(n + 1), key=lambda j: f(ss[j]))
        a, b = ss[max(i - 1, 0)], ss[min(i + 1, n)]
        r = (math.sqrt(5) - 1) / 2
        while b - a > TOL:                      # golden section (distance is unimodal here)
            x, y = b - r * (b - a), a + r * (b - a)
            a, b = (a, y) if f(x) < f(y) else (x, b)
        sm = (a + b) / 2
        margin = f(sm) - self.R
        if margin > 0:
            return None, None, margin
        inside = lambda s: f(s) <= self.R
        return solve(inside, 0.0, sm), solve(inside, path.L, sm), margin


class Poly:
    kind = 'polygon'

    def __init__(self, ring, size):
        self.poly, self.size = Polygon(ring), size
        c = self.poly.centroid
        kx, ky = metres_per_degree(c.y)
        self.to_m = [kx, 0, 0, ky, -c.x * kx, -c.y * ky]   # lon/lat -> local metres (affine)
        self.poly_m = affinity.affine_transform(self.poly, self.to_m)

    def json(self, rid):
        ring = [list(p) for p in self.poly.exterior.coords]
        return {'identifier': rid, 'geometry': {'type': 'Polygon', 'coordinates': [ring]}}

    def covers(self, lonlat):
        return self.poly.covers(Point(lonlat))

    def clearance(self, p):
        pt = Point(p[1], p[0])
        return -1.0 if self.poly.covers(pt) else affinity.affine_transform(pt, self.to_m).distance(self.poly_m)

    def interior(self, rng):
        x0, y0, x1, y1 = self.poly.bounds
        while True:
            p = (rng.uniform(x0, x1), rng.uniform(y0, y1))
            if self.covers(p):
                return p[1], p[0]

    def tangent(self, rng, delta):
        """A convex-hull vertex shifted by delta metres off its supporting line (parallel to the
        chord between its hull neighbours), and the azimuth there of the geodesic along that line."""
        hull = list(self.poly.convex_hull.exterior.coords)[:-1]
        i = rng.randrange(len(hull))
        a, v, b = hull[i - 1], hull[i], hull[(i + 1) % len(hull)]
        kx, ky = metres_per_degree(v[1])
        ex, ey = (b[0] - a[0]) * kx, (b[1] - a[1]) * ky
        c = self.poly.centroid
        turn = 90 if ey * (v[0] - c.x) * kx - ex * (v[1] - c.y) * ky > 0 else -90   # outward normal
        q, azi = direct((v[1], v[0]), math.degrees(math.atan2(ex, ey)) + turn, delta)
        return q, azi - turn

    def _refine(self, path, s, step):
        """Bisection with covers() around GEOS's first (step > 0) or last (step < 0) covered point."""
        inside = lambda x: self.covers(path.linear(min(max(x, 0.0), path.L)))
        out, inn = s - step * 1e-3, s
        for k in range(40):
            if inside(inn):
                break
            inn += step * 1e-9 * 2 ** k
        return s if inside(out) or not inside(inn) else solve(inside, out, inn)

    def crossing(self, path):
        ss, pts = path.nodes
        line = LineString(pts)
        if not line.intersects(self.poly):
            return None, None, affinity.affine_transform(line, self.to_m).distance(self.poly_m)
        cum = [0.0]                              # planar length of the polyline at each node
        for p, q in zip(pts, pts[1:]):
            cum.append(cum[-1] + math.hypot(q[0] - p[0], q[1] - p[1]))
        def s_of(d):                             # planar length along the polyline -> s
            i = min(max(bisect_left(cum, d) - 1, 0), len(cum) - 2)
            return ss[i] + (ss[i + 1] - ss[i]) * (d - cum[i]) / (cum[i + 1] - cum[i])
        ds = [line.project(Point(c)) for c in shapely.get_coordinates(line.intersection(self.poly))]
        s_in, s_out = self._refine(path, s_of(min(ds)), 1), self._refine(path, s_of(max(ds)), -1)
        line_m, lo, hi = affinity.affine_transform(line, self.to_m), 0.0, self.size * 2
        while hi - lo > 1e-5:                    # deepest penetration: largest h with a hit on buffer(-h)
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if line_m.intersects(self.poly_m.buffer(-mid)) else (lo, mid)
        return s_in, s_out, -lo


def loguni(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def make_region(rng, kind):
    lat = rng.uniform(-80, 80)
    if kind == 'circle':
        lon = rng.uniform(179.9, 180) * rng.choice((-1, 1)) if rng.random() < 0.2 else rng.uniform(-180, 180)
        return Circle(lat, lon, loguni(rng, 20, 5000))
    lon, half = rng.uniform(-179, 179), loguni(rng, 50, 5000) / 2
    while True:                                  # star-shaped around the centre, 5-20 vertices
        n = rng.randint(5, 20)
        azs = [360 * (i + rng.uniform(-0.3, 0.3)) / n for i in range(n)]
        ring = [direct((lat, lon), az, half * rng.uniform(0.35, 1))[0][::-1] for az in azs]
        poly = orient(Polygon(ring), 1.0)        # counter-clockwise exterior
        if poly.is_valid:
            return Poly(list(poly.exterior.coords), half)


def make_segment(rng, reg, cat):
    """P0, P1 for the category, or None when the draw breaks a rule (caller redraws)."""
    far = lambda: loguni(rng, max(5.0, 0.5 * reg.size), 30000)
    if cat == 'graze' or (cat == 'miss' and rng.random() < 0.5):
        delta = rng.choice(GRAZES) * rng.choice((-1, 1)) if cat == 'graze' else 1 + reg.size * rng.uniform(0.05, 1)
        q, az = reg.tangent(rng, delta)
        p0, p1 = direct(q, az + 180, far())[0], direct(q, az, far())[0]
    else:
        x, az = reg.interior(rng), rng.uniform(0, 360)
        if cat == 'through':
            p0, p1 = direct(x, az + 180, far())[0], direct(x, az, far())[0]
        else:                                    # stops short of the region
            b = 2 * reg.size + loguni(rng, 2, 20000)
            p0, p1 = direct(x, az + 180, b + loguni(rng, 20, 30000))[0], direct(x, az + 180, b)[0]
    if not 20 <= dist(p0, p1) <= 60000 or min(reg.clearance(p0), reg.clearance(p1)) < FIX_CLEARANCE:
        return None
    if reg.kind == 'polygon' and abs(p1[1] - p0[1]) > 90:
        return None                              # the path crosses the antimeridian
    return p0, p1


def make_cases(n, seed):
    rng, cases = random.Random(seed), []
    for k in range(n):
        kind = 'circle' if shapely is None or rng.random() < 0.6 else 'polygon'
        cat = rng.choices(('through', 'miss', 'graze'), (2, 1, 1))[0]
        seg = None
        while seg is None:                       # a region can be unlucky (say, a graze cannot fit)
            reg = make_region(rng, kind)
            seg = next(filter(None, (make_segment(rng, reg, cat) for _ in range(50))), None)
        t0 = BASE_MS + k * 3600000
        cases.append(dict(k=k, reg=reg, cat=cat, p=seg, t=(t0, t0 + rng.randint(5000, 1800000))))
    return cases


def reference(case):
    """Fill in the reference's answer: margin, ambiguity, [(event, ms, s)]."""
    path = Path(*case['p'])
    s_in, s_out, margin = case['reg'].crossing(path)
    (t0, t1), case['L'], case['margin'] = case['t'], path.L, margin
    case['ambiguous'] = abs(margin) < AMBIGUOUS
    at = lambda s: math.floor(t0 + (t1 - t0) * s / path.L + 0.5)
    case['ref'] = [] if s_in is None else [('enter', at(s_in), s_in), ('exit', at(s_out), s_out)]


def write_files(cases, folder):
    with open(os.path.join(folder, 'requests.ndjson'), 'w') as f:
        for c in cases:
            f.write(json.dumps({'identifier': 'x-%05d' % c['k'], 'content': {'title': 'x'}, 'device': 'd%d' % c['k'],
                                'addedAt': '2026-11-22T00:00:00Z', 'trigger': {'type': 'location', 'repeats': True,
                                'crossings': True, 'region': c['reg'].json('r-%05d' % c['k'])}}) + '\n')
    fixes = sorted((t, c['k'], p) for c in cases for t, p in zip(c['t'], c['p']))
    with open(os.path.join(folder, 'fixes.ndjson'), 'w') as f:
        for t, k, p in fixes:
            f.write(json.dumps({'device': 'd%d' % k, 't': iso(t), 'lat': p[0], 'lon': p[1]}) + '\n')


def judge(case, got):
    """True when the engine's [(event, ms)] for this case passes (see the module docstring)."""
    kinds, (t0, t1) = [e for e, _ in got], case['t']
    if case['ambiguous'] and (not got or (kinds == ['enter', 'exit'] and t0 <= got[0][1] <= got[1][1] <= t1)):
        return True
    return kinds == [e for e, _, _ in case['ref']] and all(abs(g[1] - r[1]) <= 1 for g, r in zip(got, case['ref']))


def check(args):
    if shapely is None:
        print('note: shapely is not installed: circles only (pip install shapely for polygons)')
    cases = make_cases(args.cases, args.seed)
    for c in cases:
        reference(c)
    with tempfile.TemporaryDirectory(prefix='xcheck-') as tmp:
        folder = args.keep or tmp
        os.makedirs(folder, exist_ok=True)
        write_files(cases, folder)
        with open(os.path.join(folder, 'fixes.ndjson')) as fixes:
            run = subprocess.run([args.bin, 'run', '--requests', os.path.join(folder, 'requests.ndjson')],
                                 stdin=fixes, capture_output=True, text=True)
    got, stray = {c['k']: [] for c in cases}, []
    for line in run.stdout.splitlines():
        try:
            ev = json.loads(line)
            k = int(ev['device'][1:])
            if (ev['identifier'], ev['region'], ev['trigger']) != ('x-%05d' % k, 'r-%05d' % k, 'location'):
                raise ValueError('not this case\'s request')
            got[k].append((ev['event'], parse_ms(ev['date'])))
        except (ValueError, KeyError, TypeError):
            stray.append(line)
    bad = [c for c in cases if not judge(c, sorted(got[c['k']], key=lambda e: (e[1], e[0] != 'enter')))]
    def row(name, sel):
        n = lambda kinds: sum(1 for c in cases if sel(c) and c['reg'].kind in kinds)
        print('%-26s %8d %8d %8d' % (name, n(['circle']), n(['polygon']), n(['circle', 'polygon'])))
    print('%-26s %8s %8s %8s' % ('', 'circles', 'polygons', 'total'))
    row('cases', lambda c: True)
    for cat in ('through', 'miss', 'graze'):
        row('  built to ' + cat, lambda c: c['cat'] == cat)
    row('reference has events', lambda c: c['ref'])
    row('ambiguous (|margin|<1cm)', lambda c: c['ambiguous'])
    row('engine has events', lambda c: got[c['k']])
    row('mismatches', lambda c: c in bad)
    print('stray engine lines: %d; engine exit status %d' % (len(stray), run.returncode)
          + ('; files in ' + args.keep if args.keep else ''))
    for c in bad[:10]:
        reg = c['reg']
        shape = 'R=%.3f m' % reg.R if reg.kind == 'circle' else '%d vertices' % (len(reg.poly.exterior.coords) - 1)
        print('\ncase %d (%s, built to %s) %s L=%.3f m dt=%d ms margin=%+.6f m%s' % (
            c['k'], reg.kind, c['cat'], shape,
            c['L'], c['t'][1] - c['t'][0], c['margin'], ' (ambiguous)' if c['ambiguous'] else ''))
        print('  fixes:     %s %r, %s %r' % (iso(c['t'][0]), c['p'][0], iso(c['t'][1]), c['p'][1]))
        print('  reference: ' + (', '.join('%s %s (s=%.6f m)' % (e, iso(t), s) for e, t, s in c['ref']) or 'no events'))
        print('  engine:    ' + (', '.join('%s %s' % (e, iso(round(t))) for e, t in got[c['k']]) or 'no events'))
    for line in stray[:5]:
        print('stray: ' + line[:300])
    if run.returncode:
        print('engine stderr (tail):\n' + '\n'.join(run.stderr.splitlines()[-10:]))
    with_events = sum(1 for c in cases if got[c['k']])
    ok = not bad and not stray and run.returncode == 0 and with_events >= 100
    print('\n%s: %d mismatches, %d stray lines, exit status %d, %d cases with engine events (>= 100 needed)' % (
        'PASS' if ok else 'FAIL', len(bad), len(stray), run.returncode, with_events))
    return 0 if ok else 1


def self_test():
    failures = []
    def expect(name, cond):
        print('%s  %s' % ('ok  ' if cond else 'FAIL', name))
        if not cond:
            failures.append(name)
    c, R = Circle(10.0, 20.0, 1000.0), 1000.0
    p0, p1 = (9.9, 20.0), (10.1, 20.0)           # along the centre's meridian, a geodesic
    s_in, s_out, m = c.crossing(Path(p0, p1))
    d0 = dist(p0, c.c)
    expect('meridian through a circle: s_in = d0 - R, s_out = d0 + R (1e-3 m)',
           abs(s_in - (d0 - R)) < 1e-3 and abs(s_out - (d0 + R)) < 1e-3 and abs(m + R) < 1e-3)
    for delta in (1.0, 0.02, -0.02):
        q, az = c.tangent(random.Random(3), delta)
        s_in, s_out, m = c.crossing(Path(direct(q, az + 180, 5000)[0], direct(q, az, 4000)[0]))
        chord = 2 * math.sqrt(max(0.0, -2 * R * delta))
        expect('tangent at R%+g m: margin %.6f, %s' % (delta, m, 'no events' if delta > 0 else 'chord %.4f m' % chord),
               abs(m - delta) < 1e-5 and (s_in is None if delta > 0 else abs((s_out - s_in) / chord - 1) < 0.01))
    c = Circle(0.0, 180.0, 100.0)                # the equator across the antimeridian
    p0 = (0.0, 179.99)
    s_in, s_out, m = c.crossing(Path(p0, (0.0, -179.99)))
    expect('equator across the antimeridian: s_in = d0 - R', abs(s_in - (dist(p0, c.c) - 100)) < 1e-3)
    if shapely is not None:
        sq = Poly([(0, -0.005), (0.01, -0.005), (0.01, 0.005), (0, 0.005), (0, -0.005)], 600)
        s_in, s_out, m = sq.crossing(Path((0.0, -0.01), (0.0, 0.02)))   # along the equator
        expect('equator through a square: s_in, s_out at lon 0, 0.01 (1e-3 m)',
               abs(s_in - dist((0, -0.01), (0, 0))) < 1e-3 and abs(s_out - dist((0, -0.01), (0, 0.01))) < 1e-3)
        s_in, s_out, m = sq.crossing(Path((-0.01, 0.004), (0.01, 0.004)))  # along a meridian
        expect('meridian through a square: s_in at lat -0.005, depth 0.004 deg of longitude',
               abs(s_in - dist((-0.01, 0.004), (-0.005, 0.004))) < 1e-3
               and abs(-m - 0.004 * metres_per_degree(0)[0]) < 0.5)
        s_in, s_out, m = sq.crossing(Path((-0.01, 0.0101), (0.01, 0.0101)))
        expect('meridian 0.0001 deg east of a square: no events, clearance ~11 m',
               s_in is None and abs(m - 11.13) < 0.1)
        for delta in (1.0, -0.02):
            q, az = sq.tangent(random.Random(5), delta)
            s_in, s_out, m = sq.crossing(Path(direct(q, az + 180, 3000)[0], direct(q, az, 3000)[0]))
            want = delta if delta > 0 else delta * math.sin(math.pi / 4)   # depth of a cut right-angle corner
            expect('square corner cut %+g m off its diagonal: %s, margin %.5f (want %.5f)'
                   % (delta, 'events' if s_in else 'no events', m, want),
                   (s_in is None) == (delta > 0) and abs(m - want) < 0.01 * abs(delta))
    expect('dates round-trip', parse_ms(iso(BASE_MS + 123)) == BASE_MS + 123
           and parse_ms('2026-11-23T00:00:01Z') == BASE_MS + 1000)
    cases = make_cases(60, 7)
    expect('60 generated cases: fixes outside, 20 m <= L <= 60 km, valid CCW polygons',
           all(min(c['reg'].clearance(p) for p in c['p']) >= FIX_CLEARANCE and 20 <= dist(*c['p']) <= 60000 and
               (c['reg'].kind == 'circle' or (c['reg'].poly.is_valid and c['reg'].poly.exterior.is_ccw))
               for c in cases))
    print('%d failures' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--bin', help='the triggerkit binary')
    ap.add_argument('--cases', type=int, default=400, help='default 400 (a pass needs >= 100 cases with events)')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--keep', metavar='DIR', help='write the files here and keep them')
    ap.add_argument('--self-test', action='store_true', help='check the reference on hand cases; no binary')
    args = ap.parse_args()
    if not args.self_test and not args.bin:
        ap.error('--bin is required (or --self-test)')
    if args.bin and not os.access(args.bin, os.X_OK):
        ap.error('not an executable: %s' % args.bin)
    sys.exit(self_test() if args.self_test else check(args))
