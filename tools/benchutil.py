"""Helpers shared by the whole-process benchmark scripts in tools/."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def generate(data, name, args):
    """tools/gen-geo.py ARGS into DATA/NAME once (kept as a cache); returns the path."""
    path = os.path.join(data, name)
    if not os.path.exists(path):
        tmp = path + ".tmp"
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen-geo.py")] + args + ["--out", tmp], check=True)
        os.replace(tmp, path)
    return path
