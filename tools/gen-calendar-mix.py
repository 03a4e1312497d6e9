#!/usr/bin/env python3
"""Generate a mix of repeating calendar requests (NDJSON on stdout), the kinds people schedule.

    tools/gen-calendar-mix.py --count 12000 --seed 1 > /tmp/calendar-mix.ndjson

Eight kinds in roughly equal shares; the identifier starts with the kind
(`nthweekday-000123`) so results can be grouped per kind:

  time         hour+minute (daily); some hour+minute+second, minute (hourly), minute+second
  weekday      weekday+hour+minute; a few weekday alone
  nthweekday   weekday+weekdayOrdinal (1..5, and -1 = last unless --no-last)+hour+minute;
               some with a month too (Thanksgiving: month 11, weekday 5, ordinal 4)
  monthday     day 1..31+hour+minute (29..31 weighted up: months that lack the day)
  yearly       month+day (+hour+minute), Feb 29 included
  weekofyear   weekOfYear+weekday+hour+minute; some with yearForWeekOfYear (next 1-2 years)
  weekofmonth  weekOfMonth 1..5+weekday+hour+minute
  yearpinned   year+month+day+hour+minute, the year 0-3 years after addedAt (fires once)

Hours lean on DST-sensitive ones (0, 1, 2, 3, 23), minutes on 0/15/30/45. 30 zones, the
awkward ones included (Havana, Santiago, Asuncion, Lord Howe, Chatham, Troll, Casablanca,
Kathmandu, Dublin, St John's, Tehran, Apia, Sao Paulo). addedAt: random instants in
2024-2030, half on whole minutes, some with milliseconds. Every request repeats.
Deterministic for a given --seed (Python's random.Random).
"""
import argparse
import calendar as pycal
import datetime as dt
import json
import random
import sys

HARD_ZONES = ["America/Havana", "America/Santiago", "America/Asuncion", "Australia/Lord_Howe",
              "Pacific/Chatham", "Antarctica/Troll", "Africa/Casablanca", "Asia/Kathmandu",
              "Europe/Dublin", "America/St_Johns", "Asia/Tehran", "Pacific/Apia", "America/Sao_Paulo"]
COMMON_ZONES = ["America/New_York", "Europe/London", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney",
                "America/Los_Angeles", "Asia/Kolkata", "UTC", "Europe/Paris", "America/Chicago",
                "America/Denver", "Asia/Shanghai", "Asia/Singapore", "Africa/Cairo", "America/Mexico_City",
                "Europe/Moscow", "Pacific/Auckland"]
ZONES = HARD_ZONES + COMMON_ZONES
KINDS = ["time", "weekday", "nthweekday", "monthday", "yearly", "weekofyear", "weekofmonth", "yearpinned"]

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
START = int((dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) - EPOCH).total_seconds())
END = int((dt.datetime(2031, 1, 1, tzinfo=dt.timezone.utc) - EPOCH).total_seconds())

# Holidays and habits with a month: (month, weekday, ordinal); weekday 1 = Sunday.
NAMED_NTH = [(11, 5, 4),   # Thanksgiving (US): 4th Thursday of November
             (5, 1, 2),    # Mother's Day (US): 2nd Sunday of May
             (6, 1, 3),    # Father's Day: 3rd Sunday of June
             (9, 2, 1),    # Labor Day (US): 1st Monday of September
             (1, 2, 3),    # MLK Day: 3rd Monday of January
             (5, 2, -1),   # Memorial Day: last Monday of May
             (3, 1, -1),   # last Sunday of March (EU DST start)
             (10, 1, -1)]  # last Sunday of October (EU DST end)


def hour(rnd):
    return rnd.choice([0, 1, 2, 3, 23]) if rnd.random() < 0.35 else rnd.randrange(24)


def minute(rnd):
    return rnd.choice([0, 15, 30, 45]) if rnd.random() < 0.6 else rnd.randrange(60)


def ordinal(rnd, last):
    choices = [1, 2, 3, 4, 5] + ([-1] if last else [])
    return rnd.choice(choices)


def added_at(rnd):
    t = rnd.randrange(START, END)
    ms = 0
    if rnd.random() < 0.5:
        t -= t % 60
    elif rnd.random() < 0.3:
        ms = rnd.randrange(1, 1000)
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    s = d.strftime("%Y-%m-%dT%H:%M:%S")
    return (s + (f".{ms:03d}" if ms else "") + "Z"), d


def components(kind, rnd, added, last):
    """dateMatching without timeZone, in the order a person would write it."""
    c = {}
    if kind == "time":
        x = rnd.random()
        if x < 0.5:
            c = {"hour": hour(rnd), "minute": minute(rnd)}
        elif x < 0.65:
            c = {"hour": hour(rnd), "minute": minute(rnd), "second": rnd.choice([0, 30, rnd.randrange(60)])}
        elif x < 0.85:
            c = {"minute": minute(rnd)}
        else:
            c = {"minute": minute(rnd), "second": rnd.choice([0, 30, rnd.randrange(60)])}
    elif kind == "weekday":
        c = {"weekday": rnd.randint(1, 7)}
        if rnd.random() < 0.9:
            c.update(hour=hour(rnd), minute=minute(rnd))
    elif kind == "nthweekday":
        if rnd.random() < 0.2:
            month, wd, o = rnd.choice(NAMED_NTH)
            if o == -1 and not last:
                o = 4
            c = {"month": month, "weekday": wd, "weekdayOrdinal": o}
        else:
            c = {"weekday": rnd.randint(1, 7), "weekdayOrdinal": ordinal(rnd, last)}
        c.update(hour=hour(rnd), minute=minute(rnd))
    elif kind == "monthday":
        day = rnd.randint(29, 31) if rnd.random() < 0.25 else rnd.randint(1, 31)
        c = {"day": day, "hour": hour(rnd), "minute": minute(rnd)}
    elif kind == "yearly":
        if rnd.random() < 0.08:
            month, day = 2, 29
        else:
            month = rnd.randint(1, 12)
            day = rnd.randint(1, pycal.monthrange(2023, month)[1])  # a common year: Feb has 28
        c = {"month": month, "day": day}
        if rnd.random() < 0.85:
            c.update(hour=hour(rnd), minute=minute(rnd))
    elif kind == "weekofyear":
        if rnd.random() < 0.25:
            c = {"yearForWeekOfYear": added.year + rnd.randint(1, 2), "weekOfYear": rnd.randint(1, 52)}
        else:
            c = {"weekOfYear": rnd.randint(1, 52)}
        c.update(weekday=rnd.randint(1, 7), hour=hour(rnd), minute=minute(rnd))
    elif kind == "weekofmonth":
        c = {"weekOfMonth": rnd.randint(1, 5), "weekday": rnd.randint(1, 7), "hour": hour(rnd), "minute": minute(rnd)}
    elif kind == "yearpinned":
        while True:
            year = added.year + rnd.randint(0, 3)
            month = rnd.randint(1, 12)
            day = rnd.randint(1, pycal.monthrange(year, month)[1])
            # Two days of margin over any zone offset: the date must lie after addedAt.
            if dt.datetime(year, month, day, tzinfo=dt.timezone.utc) > added + dt.timedelta(days=2):
                break
        c = {"year": year, "month": month, "day": day, "hour": hour(rnd), "minute": minute(rnd)}
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=12000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--last", dest="last", action="store_true", default=True,
                    help="include weekdayOrdinal -1 (last) in nthweekday (default: on)")
    ap.add_argument("--no-last", dest="last", action="store_false", help="weekdayOrdinal 1..5 only")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated subset of: " + " ".join(KINDS))
    a = ap.parse_args()
    kinds = [k for k in a.kinds.split(",") if k]
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        ap.error(f"unknown kind(s): {', '.join(bad)}")
    rnd = random.Random(a.seed)
    out = sys.stdout
    for i in range(a.count):
        kind = rnd.choice(kinds)
        stamp, added = added_at(rnd)
        c = components(kind, rnd, added, a.last)
        c["timeZone"] = rnd.choice(ZONES)
        r = {"identifier": f"{kind}-{i:06d}", "content": {"title": f"{kind} {i}"}, "addedAt": stamp,
             "trigger": {"type": "calendar", "dateMatching": c, "repeats": True}}
        out.write(json.dumps(r, separators=(", ", ": ")) + "\n")


if __name__ == "__main__":
    main()
