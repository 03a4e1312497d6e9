#!/usr/bin/env python3
"""Proves `triggerkit run --state` records as delivered only what it wrote, once.

Scenarios, each on a fresh state file and the same generated input:
  full      stdout on /dev/full
  pipe      stdout into a pipe the reader closes after a few KB (SIGPIPE default)
  pipe-ign  the same with SIGPIPE ignored (the process sees EPIPE)
  two       two concurrent writers on one state file
After each, the run is resumed to completion with stdout captured, and:
  - every event `triggerkit delivered` lists was written to a consumer (never recorded
    unwritten);
  - no event is listed twice;
  - the events written across attempts cover every event of an uninterrupted reference run,
    and nothing else.
Exit status 0 only when every scenario holds. Usage:
  tools/durability-test.py --bin .build/release/triggerkit [--lines 200000]
"""
import argparse, json, os, signal, subprocess, sys, tempfile, time

def gen(dirpath, lines):
    req = os.path.join(dirpath, "requests.ndjson")
    with open(req, "w") as f:
        f.write(json.dumps({"identifier": "tick", "content": {"title": "t"}, "addedAt": "2026-11-23T00:00:00Z",
                            "trigger": {"type": "timeInterval", "timeInterval": 60, "repeats": True}}) + "\n")
        f.write(json.dumps({"identifier": "office", "content": {"body": "b"}, "addedAt": "2026-11-23T00:00:00Z",
                            "trigger": {"type": "location", "repeats": True,
                                        "region": {"center": {"latitude": 40.75, "longitude": -73.99}, "radius": 200}}}) + "\n")
    inp = os.path.join(dirpath, "fixes.ndjson")
    t0 = 1795910400
    with open(inp, "w") as f:
        for i in range(lines):
            lat = 40.75 + (0.004 if (i // 50) % 2 else 0.0)
            f.write('{"device": "d%d", "t": %d, "lat": %.6f, "lon": -73.99}\n' % (i % 7, t0 + i * 10, lat))
    return req, inp

def run(bin, args, inp, stdout, preexec=None):
    with open(inp, "rb") as fin:
        return subprocess.Popen([bin] + args, stdin=fin, stdout=stdout, stderr=subprocess.PIPE, preexec_fn=preexec)

def lines_of(b):
    return [l for l in b.decode("utf-8", "replace").split("\n") if l.startswith("{") and l.endswith("}")]

def delivered(bin, state):
    p = subprocess.run([bin, "delivered", "--state", state], capture_output=True)
    return lines_of(p.stdout)

def finish(bin, req, inp, state):
    p = run(bin, ["run", "--requests", req, "--state", state], inp, subprocess.PIPE)
    out, err = p.communicate()
    return p.returncode, lines_of(out), err.decode()

def check(name, bin, req, inp, state, written, reference):
    rc, out, err = finish(bin, req, inp, state)
    written = written + out
    listed = delivered(bin, state)
    ws = set(written)
    unwritten = [e for e in listed if e not in ws]
    dups = len(listed) - len(set(listed))
    missing = set(reference) - ws
    invented = ws - set(reference)
    ok = rc == 0 and not unwritten and dups == 0 and not missing and not invented and len(listed) == len(reference)
    print("| %-9s | %8d | %8d | %10d | %4d | %7d | %8d | %s |" % (name, len(written), len(listed), len(unwritten), dups,
          len(missing), len(invented), "PASS" if ok else "FAIL rc=%d %s" % (rc, err.strip()[-120:])))
    return ok

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--lines", type=int, default=200000)
    a = ap.parse_args()
    bin = os.path.abspath(a.bin)
    d = tempfile.mkdtemp(prefix="tk-durability-")
    req, inp = gen(d, a.lines)
    p = run(bin, ["run", "--requests", req], inp, subprocess.PIPE)
    ref_out, _ = p.communicate()
    reference = lines_of(ref_out)
    print("reference run: %d events from %d lines\n" % (len(reference), a.lines))
    print("| scenario  | written  | recorded | unwritten+ | dups | missing | invented | verdict |")
    print("|-----------|---------:|---------:|-----------:|-----:|--------:|---------:|---------|")
    ok = True
    # 1. /dev/full
    state = os.path.join(d, "full.db")
    with open("/dev/full", "wb") as full:
        p = run(bin, ["run", "--requests", req, "--state", state], inp, full)
        p.wait()
    ok &= p.returncode == 3
    ok &= check("full", bin, req, inp, state, [], reference)
    # 2, 3. a pipe closed midway, SIGPIPE default / ignored
    for name, pre in (("pipe", None), ("pipe-ign", lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN))):
        state = os.path.join(d, name + ".db")
        p = run(bin, ["run", "--requests", req, "--state", state], inp, subprocess.PIPE, pre)
        got = p.stdout.read(30000)
        p.stdout.close()
        p.wait()
        ok &= check(name, bin, req, inp, state, lines_of(got[: got.rfind(b"\n") + 1]), reference)
    # 4. two concurrent writers
    state = os.path.join(d, "two.db")
    p1 = run(bin, ["run", "--requests", req, "--state", state], inp, subprocess.PIPE)
    time.sleep(0.05)
    p2 = run(bin, ["run", "--requests", req, "--state", state], inp, subprocess.PIPE)
    o1, _ = p1.communicate()
    o2, e2 = p2.communicate()
    both_ran = p1.returncode == 0 and p2.returncode == 0
    ok &= not both_ran
    ok &= check("two", bin, req, inp, state, lines_of(o1) + lines_of(o2), reference)
    print("\nsecond writer: exit %d, %s" % (p2.returncode, e2.decode().strip().splitlines()[-1] if e2 else ""))
    print("RESULT:", "PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    main()
