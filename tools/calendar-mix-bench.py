#!/usr/bin/env python3
"""Whole process against whole process: `triggerkit next` vs a plain-Foundation tool on one mix.

    tools/calendar-mix-bench.py [--count 12000] [--seed 1] [--runs 3] [--dates 32]
    tools/calendar-mix-bench.py --requests FILE

Needs both release builds:
    swift build -c release --product triggerkit                                  (repository root)
    cd Benchmarks && swift build -c release --product FoundationNext

1. Generates the calendar mix (tools/gen-calendar-mix.py) or takes --requests FILE.
2. Runs `triggerkit next --requests F --count 32` and `FoundationNext --requests F --count 32`
   --runs times each, alternating (T F T F ...), output to a file; reports medians of wall and
   CPU (user+sys of the reaped child, os.wait4), peak RSS, dates produced, us per date
   (arithmetic: median time / dates) and the ratio Foundation/TriggerKit.
3. Per kind (the identifier's prefix): both tools on that kind's subset file (--kind-runs
   each, alternating), a markdown table of us/date (wall and CPU); the `all` row is step 2.
   FoundationNext runs there with --stats, which also gives the time inside nextDate alone.
4. Compares the two outputs request by request: per kind, how many date lists differ, with up
   to 5 examples (identifier, addedAt, components, first differing position and both elements).
   Requests that `triggerkit next` refuses (no output line) are counted apart.
Every child run is bounded by --timeout seconds (killed with its process group beyond).
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchutil import run_child

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_next(path):
    """identifier -> list of dates, from a `next` output file."""
    res = {}
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                o = json.loads(line)
                res[o["identifier"]] = o["next"]
    return res


def kind_of(identifier):
    return identifier.rsplit("-", 1)[0] if "-" in identifier else identifier


def load_requests(path):
    reqs = collections.OrderedDict()
    lines = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            o = json.loads(s)
            reqs[o["identifier"]] = o
            lines[o["identifier"]] = line if line.endswith("\n") else line + "\n"
    return reqs, lines


def fmt(x, digits=2):
    return f"{x:,.{digits}f}"


def git_state():
    def g(*a):
        try:
            return subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True, timeout=20).stdout.strip()
        except Exception as e:  # noqa: BLE001
            return f"? ({e})"
    head = g("log", "-1", "--format=%h %cI %s")
    dirty = g("status", "--porcelain", "--", "Sources")
    return head, dirty


def stderr_notes(path):
    """Lines of a tool's stderr worth showing: fallback counts, stats, and a count of errors."""
    notes, errors = [], 0
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("error:"):
                errors += 1
            elif "fallback" in line.lower() or line.startswith("stats:"):
                notes.append(line.rstrip())
    return notes, errors


def paired(cmd_t, cmd_f, runs, workdir, tag, timeout):
    """Alternating runs. Returns dict tool -> list of (wall, cpu, rss, rc, timed_out) and output paths."""
    res = {"T": [], "F": []}
    outs = {}
    for i in range(runs):
        for tool, cmd in (("T", cmd_t), ("F", cmd_f)):
            out = os.path.join(workdir, f"{tag}.{tool}.{i}.out")
            err = os.path.join(workdir, f"{tag}.{tool}.{i}.err")
            r = run_child(cmd, None, out, err, timeout)
            res[tool].append(r)
            outs.setdefault(tool, (out, err))
            if i > 0:  # keep only the first run's output
                os.unlink(out)
            if r[4]:
                print(f"  {tag} {tool} run {i + 1}: killed after {timeout} s", file=sys.stderr)
    return res, outs


def medians(rows):
    return (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows),
            max(r[2] for r in rows), [r[3] for r in rows])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", help="requests file (NDJSON); default: generate the mix")
    ap.add_argument("--count", type=int, default=12000, help="requests to generate (default 12000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-last", action="store_true", help="generate without weekdayOrdinal -1")
    ap.add_argument("--dates", type=int, default=32, help="--count given to both tools (default 32)")
    ap.add_argument("--runs", type=int, default=3, help="whole-mix runs per tool, alternating (default 3)")
    ap.add_argument("--kind-runs", type=int, default=1, help="runs per tool per kind (default 1)")
    ap.add_argument("--no-kinds", action="store_true", help="skip the per-kind runs")
    ap.add_argument("--timeout", type=float, default=300, help="bound on each child run, seconds (default 300)")
    ap.add_argument("--triggerkit", default=os.path.join(ROOT, ".build/release/triggerkit"))
    ap.add_argument("--foundation", default=os.path.join(ROOT, "Benchmarks/.build/release/FoundationNext"))
    ap.add_argument("--keep", help="directory for the generated files and outputs (default: a temp dir, removed)")
    a = ap.parse_args()

    for path, how in ((a.triggerkit, "swift build -c release --product triggerkit"),
                      (a.foundation, "cd Benchmarks && swift build -c release --product FoundationNext")):
        if not os.access(path, os.X_OK):
            sys.exit(f"missing {path}: build it with `{how}`")

    tmp = None
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        workdir = a.keep
    else:
        tmp = tempfile.TemporaryDirectory(prefix="calendar-mix-")
        workdir = tmp.name

    if a.requests:
        requests_path = a.requests
    else:
        requests_path = os.path.join(workdir, "calendar-mix.ndjson")
        gen = [sys.executable, os.path.join(ROOT, "tools/gen-calendar-mix.py"), "--count", str(a.count),
               "--seed", str(a.seed)] + (["--no-last"] if a.no_last else [])
        with open(requests_path, "wb") as f:
            subprocess.run(gen, stdout=f, check=True, timeout=120)
    reqs, lines = load_requests(requests_path)
    order = ["time", "weekday", "nthweekday", "monthday", "yearly", "weekofyear", "weekofmonth", "yearpinned"]
    grouped = collections.defaultdict(list)
    for ident in reqs:
        grouped[kind_of(ident)].append(ident)
    kinds = collections.OrderedDict(
        (k, grouped[k]) for k in sorted(grouped, key=lambda k: (order.index(k) if k in order else len(order), k)))

    head, dirty = git_state()
    tk_built = os.path.getmtime(a.triggerkit)
    tk_mtime = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(tk_built))
    print(f"# Calendar mix: triggerkit next vs Foundation (whole processes, --count {a.dates})\n")
    print(f"- repository HEAD: {head}; binary built {tk_mtime}"
          + ("; Sources has uncommitted changes (binary may not match HEAD)" if dirty else ""))
    print(f"- requests: {len(reqs)} from {'generated mix, seed ' + str(a.seed) if not a.requests else requests_path}; "
          f"kinds: {', '.join(f'{k} {len(v)}' for k, v in kinds.items())}")
    print(f"- {os.cpu_count()} cores; {a.runs} alternating runs per tool on the whole mix, medians; "
          f"per kind {a.kind_runs} run(s) each\n")

    cmd_t = [a.triggerkit, "next", "--requests", requests_path, "--count", str(a.dates), "--stats"]
    cmd_f = [a.foundation, "--requests", requests_path, "--count", str(a.dates)]
    res, outs = paired(cmd_t, cmd_f, a.runs, workdir, "all", a.timeout)
    t_next = read_next(outs["T"][0])
    f_next = read_next(outs["F"][0])
    t_dates = sum(len(v) for v in t_next.values())
    f_dates = sum(len(v) for v in f_next.values())
    tw, tc, trss, trc = medians(res["T"])
    fw, fc, frss, frc = medians(res["F"])

    print("## Whole mix\n")
    print("| tool | wall s (median) | cpu s (median) | peak RSS MiB | exit | requests out | dates | us/date wall | us/date cpu |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for name, w, c, rss, rc, n, d in (("triggerkit next", tw, tc, trss, trc, len(t_next), t_dates),
                                      ("FoundationNext", fw, fc, frss, frc, len(f_next), f_dates)):
        print(f"| {name} | {fmt(w, 3)} | {fmt(c, 3)} | {fmt(rss / 1024, 1)} | {','.join(map(str, sorted(set(rc))))} "
              f"| {n:,} | {d:,} | {fmt(w / max(d, 1) * 1e6)} | {fmt(c / max(d, 1) * 1e6)} |")
    t_us_w, f_us_w = tw / max(t_dates, 1) * 1e6, fw / max(f_dates, 1) * 1e6
    t_us_c, f_us_c = tc / max(t_dates, 1) * 1e6, fc / max(f_dates, 1) * 1e6
    print(f"\nRatio Foundation/TriggerKit per date (arithmetic, total time / total dates): "
          f"**{fmt(f_us_w / t_us_w, 1)}x wall**, {fmt(f_us_c / t_us_c, 1)}x cpu. "
          f"All runs wall T: {', '.join(fmt(r[0], 3) for r in res['T'])}; F: {', '.join(fmt(r[0], 3) for r in res['F'])}")
    notes, errors = stderr_notes(outs["T"][1])
    print(f"\ntriggerkit stderr: {errors} error lines"
          + (f" (requests refused; {len(reqs) - len(t_next)} without an output line)" if errors else ""))
    fallback_lines = [n for n in notes if "fallback" in n.lower()]
    print("Foundation fallbacks reported by triggerkit: "
          + ("; ".join(fallback_lines) if fallback_lines else "not reported by this binary (no 'fallback' line on stderr)"))

    # Per kind.
    kind_rows = []
    if not a.no_kinds:
        for k, ids in kinds.items():
            sub = os.path.join(workdir, f"kind-{k}.ndjson")
            with open(sub, "w", encoding="utf-8") as f:
                f.writelines(lines[i] for i in ids)
            kres, kouts = paired([a.triggerkit, "next", "--requests", sub, "--count", str(a.dates)],
                                 [a.foundation, "--requests", sub, "--count", str(a.dates), "--stats"],
                                 a.kind_runs, workdir, f"kind-{k}", a.timeout)
            kt = sum(len(v) for v in read_next(kouts["T"][0]).values())
            kf = sum(len(v) for v in read_next(kouts["F"][0]).values())
            stats = [n for n in stderr_notes(kouts["F"][1])[0] if n.startswith("stats:")]
            in_next = None
            if stats and "(" in stats[0]:
                in_next = float(stats[0].split("(")[1].split(" us/date")[0])
            kind_rows.append((k, len(ids), kt, kf, medians(kres["T"]), medians(kres["F"]), in_next))
        for metric, idx in (("wall", 0), ("cpu", 1)):
            print(f"\n## Per kind, us/date ({metric}; each tool as a whole process on that kind's file)\n")
            print("| kind | requests | dates | TriggerKit us/date | Foundation us/date | ratio |")
            print("|---|---:|---:|---:|---:|---:|")
            for k, n, kt, kf, mt, mf, _ in kind_rows:
                tu = mt[idx] / max(kt, 1) * 1e6
                fu = mf[idx] / max(kf, 1) * 1e6
                dates = f"{kt:,}" if kt == kf else f"{kt:,} / {kf:,}"
                print(f"| {k} | {n:,} | {dates} | {fmt(tu)} | {fmt(fu)} | {fmt(fu / tu, 1) if tu else '-'}x |")
            tu, fu = (t_us_w, f_us_w) if idx == 0 else (t_us_c, f_us_c)
            dates = f"{t_dates:,}" if t_dates == f_dates else f"{t_dates:,} / {f_dates:,}"
            print(f"| **all** (whole mix, medians) | {len(reqs):,} | {dates} | {fmt(tu)} | {fmt(fu)} | **{fmt(fu / tu, 1)}x** |")
        print("\n`dates` shows `TriggerKit / Foundation` where they differ. Foundation inside `nextDate` alone "
              "(FoundationNext --stats): "
              + ", ".join(f"{row[0]} {fmt(row[6])}" for row in kind_rows if row[6] is not None)
              + " us/date.")

    # Differences.
    print("\n## Differences (first whole-mix run of each)\n")
    per_kind = collections.OrderedDict((k, []) for k in kinds)
    refused = collections.Counter()
    refused_dates = collections.Counter()
    identical_bytes = 0
    f_lines = {}
    with open(outs["F"][0], "rb") as f:
        for line in f:
            f_lines[json.loads(line)["identifier"]] = line
    with open(outs["T"][0], "rb") as f:
        for line in f:
            if f_lines.get(json.loads(line)["identifier"]) == line:
                identical_bytes += 1
    for ident, r in reqs.items():
        k = kind_of(ident)
        if ident not in t_next:
            refused[k] += 1
            refused_dates[k] += len(f_next.get(ident, []))
            continue
        ta, fa = t_next[ident], f_next.get(ident)
        if fa is None or ta != fa:
            per_kind[k].append(ident)
    ndiff = sum(len(v) for v in per_kind.values())
    print(f"{ndiff} of {len(t_next):,} requests answered by both have different date lists; "
          f"{identical_bytes:,} output lines are byte-identical.")
    if refused:
        print(f"Refused by triggerkit (no output line): {sum(refused.values())} "
              f"({', '.join(f'{k} {n}' for k, n in refused.items())}); Foundation gave them "
              f"{sum(refused_dates.values())} dates.")
    print("\n| kind | requests | differing |\n|---|---:|---:|")
    for k, ids in kinds.items():
        print(f"| {k} | {len(ids):,} | {len(per_kind[k])} |")
    for k, ids in per_kind.items():
        if not ids:
            continue
        print(f"\n{k}: {len(ids)} differ; examples:")
        for ident in ids[:5]:
            ta, fa = t_next[ident], f_next.get(ident) or []
            pos = next((j for j in range(max(len(ta), len(fa)))
                        if (ta[j] if j < len(ta) else None) != (fa[j] if j < len(fa) else None)), None)
            comps = {x: y for x, y in reqs[ident]["trigger"]["dateMatching"].items()}
            tv = ta[pos] if pos is not None and pos < len(ta) else "(none)"
            fv = fa[pos] if pos is not None and pos < len(fa) else "(none)"
            print(f"- {ident} addedAt {reqs[ident].get('addedAt')} {json.dumps(comps, separators=(',', ':'))}: "
                  f"date #{pos} ({len(ta)} vs {len(fa)} dates) TriggerKit {tv}, Foundation {fv}")
    if os.path.getmtime(a.triggerkit) != tk_built:
        print(f"\nWARNING: {a.triggerkit} was rebuilt during the run: figures may mix two binaries.")
    if a.keep:
        print(f"\nFiles kept in {workdir}")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
