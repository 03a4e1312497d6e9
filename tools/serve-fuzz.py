#!/usr/bin/env python3
"""schemathesis against a live `triggerkit serve` (127.0.0.1, a fresh data directory),
driven by docs/openapi.json: every generated request must get an answer that is not a 5xx
and that the document describes (its status code, content type, headers and body schema).
The SSE route is left out (it streams until the client leaves). Bounded: --max-examples per
operation and a 600 s wall limit per server. Run twice: a server on the wall clock, then one
on the stream's clock (`--clock stream`, where `POST /v1/clock` is not refused).

  python3 tools/serve-fuzz.py [--bin .build/release/triggerkit] [--max-examples 30]
"""
import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile


def fuzz(binary, clock, max_examples):
    """One fresh server on `clock` (wall or stream) under schemathesis; True when it passed."""
    data = tempfile.mkdtemp(prefix="serve-fuzz-")
    token = "fuzz-token"
    server = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data, "--clock", clock,
                               "--tenant", "fuzz=" + hashlib.sha256(token.encode()).hexdigest()],
                              stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    port = None
    for _ in range(200):
        line = server.stderr.readline().decode()
        if "listening on http://127.0.0.1:" in line:
            port = int(line.rsplit(":", 1)[1])
            break
    try:
        if port is None:
            print("server did not start (--clock %s)" % clock)
            return False
        r = subprocess.run(["schemathesis", "run", "docs/openapi.json", "--url", f"http://127.0.0.1:{port}",
                            "-H", f"Authorization: Bearer {token}", "--max-examples", str(max_examples),
                            "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
                            "response_headers_conformance,response_schema_conformance", "--request-timeout", "5",
                            "--exclude-path", "/v1/events"], timeout=600, capture_output=True, text=True)
        print("--clock %s:" % clock)
        print(r.stdout[-3000:])
        # schemathesis exits 1 for its own warnings too (it cannot serialize NDJSON bodies,
        # some generated ids are unknown): the summary's failed cases are what count.
        failed = re.search(r"\b(\d+) failed\b", r.stdout)
        passed = re.search(r"(\d+) generated, (\d+) passed", r.stdout)
        alive = server.poll() is None
        print("server still running:", alive)
        return alive and passed is not None and failed is None and "Server error" not in r.stdout
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(data, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/triggerkit")
    ap.add_argument("--max-examples", type=int, default=30)
    a = ap.parse_args()
    # Both clocks: on the wall clock `POST /v1/clock` is refused (409), so only a server on
    # the stream's clock exercises it.
    results = [fuzz(a.bin, clock, a.max_examples) for clock in ("wall", "stream")]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
