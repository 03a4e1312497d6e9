"""Helpers shared by the whole-process benchmark scripts in tools/."""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def add_common_arguments(ap, data_default="/tmp/triggerkit-geo"):
    """--runs, --data (generated inputs, cached; BENCH_DATA overrides the default) and
    --triggerkit (the release binary), as every whole-process benchmark here takes them."""
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--data", default=os.environ.get("BENCH_DATA", data_default))
    ap.add_argument("--triggerkit", default=os.path.join(ROOT, ".build", "release", "triggerkit"))


def generate(data, name, args):
    """tools/gen-geo.py ARGS into DATA/NAME once (kept as a cache); returns the path."""
    path = os.path.join(data, name)
    if not os.path.exists(path):
        tmp = path + ".tmp"
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen-geo.py")] + args + ["--out", tmp], check=True)
        os.replace(tmp, path)
    return path


def timed(cmd, stdin_path, out_path, timeout):
    """Runs cmd with stdin from a file and stdout to a file; (wall s, cpu s, peak MiB, exit)."""
    with open(stdin_path, "rb") as fin, open(out_path, "wb") as fout:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=fin, stdout=fout, stderr=subprocess.PIPE)
        try:
            _, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return (float("nan"),) * 3 + (-9,)
        wall = time.perf_counter() - t0
    # The child is reaped by communicate(); its rusage is in RUSAGE_CHILDREN deltas.
    return wall, None, None, p.returncode, err.decode(errors="replace")


def run_measured(cmd, stdin_path, out_path, timeout):
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, _, _, rc, err = timed(cmd, stdin_path, out_path, timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = after.ru_maxrss / 1024.0  # the largest child so far, MiB
    return wall, cpu, peak, rc, err


def count_lines(path):
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)
