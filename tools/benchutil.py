"""Helpers shared by the whole-process benchmark scripts in tools/."""
import os
import signal
import subprocess
import sys
import threading
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


def run_child(cmd, stdin_path, out_path, err_path, timeout):
    """Runs cmd (its own process group) with stdin from a file (or /dev/null), stdout and
    stderr to files; returns (wall s, cpu s, peak KiB, exit status, timed out).

    The child is reaped with wait4(2), which blocks until it exits and gives its own rusage:
    exact wall and CPU. (`subprocess.run(..., timeout=)` and `communicate(timeout=)` poll with
    sleeps that grow to 50 ms: a process that exits at 70 ms or at 110 ms is seen at ~115 ms.)
    A timer kills the group after `timeout` seconds."""
    with open(stdin_path or os.devnull, "rb") as fin, open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=fin, stdout=out, stderr=err, start_new_session=True)
        timed_out = []

        def kill():
            timed_out.append(True)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from waiting again
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode, bool(timed_out)


def run_measured(cmd, stdin_path, out_path, timeout):
    """run_child with stderr kept: (wall s, cpu s, peak MiB, exit status, stderr text)."""
    err_path = out_path + ".err"
    wall, cpu, peak, rc, timed_out = run_child(cmd, stdin_path, out_path, err_path, timeout)
    with open(err_path, "rb") as fh:
        err = fh.read().decode(errors="replace")
    os.remove(err_path)
    if timed_out:
        return float("nan"), float("nan"), float("nan"), -9, err
    return wall, cpu, peak / 1024.0, rc, err


def count_lines(path):
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def start_serve(binary, args, timeout=120):
    """Starts `binary serve --port 0 ARGS`; returns (process, port, seconds from exec to its
    "listening" line), then drains its log so the server never blocks on a full pipe.
    (None, None, None) when it did not start within `timeout` seconds (it is killed)."""
    t = time.perf_counter()
    p = subprocess.Popen([binary, "serve", "--port", "0"] + args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = p.stderr.readline().decode()
        if not line:
            break
        if "listening on http://127.0.0.1:" in line:
            took = time.perf_counter() - t
            subprocess.Popen(["cat"], stdin=p.stderr, stdout=subprocess.DEVNULL)
            return p, int(line.rsplit(":", 1)[1]), took
    p.kill()
    return None, None, None


def status_mib(pid, key):
    """A live process's memory figure `key` from /proc/PID/status (VmHWM, VmRSS), MiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_mib(pid):
    """A live process's peak resident memory so far (VmHWM from /proc), MiB."""
    return status_mib(pid, "VmHWM")


def stop(process, directory=None):
    """Ends a server (SIGTERM, then SIGKILL after 30 s) and removes its data `directory`."""
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
    if directory:
        import shutil
        shutil.rmtree(directory, ignore_errors=True)
