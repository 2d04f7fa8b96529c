#!/usr/bin/env python3
"""`simtui dedup` of a generated JSON Lines corpus read from a local S3 server (moto, on
127.0.0.1) against the same files read from local disk.

Generates the corpus once (bench/data/, git-ignored; `simtui gen --format jsonl`, shards
of 100,000 documents), starts moto (tests/s3/.venv, made by .ci/s3-setup, or the PATH),
uploads the shards with plain HTTP PUTs, then times `simtui dedup CORPUS -o OUT -t 0.8
--id-field id` from disk and from `s3://` in turn (after one warm-up run of each), and
prints the median of each and their ratio, taken run pair by run pair.

    python3 bench/object_store.py                    # 1,000,000 documents, 3 runs
    python3 bench/object_store.py --docs 200000 --runs 5
"""
import argparse
import http.client
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import ROOT, generated, release_binary, timed  # noqa: E402

AUTH = ("AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/s3/aws4_request, "
        "SignedHeaders=host, Signature=0")


def moto_server():
    venv = os.path.join(ROOT, "tests", "s3", ".venv", "bin", "moto_server")
    exe = venv if os.path.exists(venv) else shutil.which("moto_server")
    if not exe:
        sys.exit("no moto_server: run .ci/s3-setup")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.Popen([exe, "-H", "127.0.0.1", "-p", str(port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return p, port
        except OSError:
            time.sleep(0.1)
    sys.exit("moto did not start")


def put(port, path, body):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    c.request("PUT", path, body=body, headers={
        "Authorization": AUTH, "Content-Type": "application/octet-stream"})
    r = c.getresponse()
    r.read()
    assert r.status == 200, (path, r.status)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--exe", help="the simtui binary (default: build this checkout)")
    a = ap.parse_args()
    exe = release_binary(a.exe)
    corpus = generated(exe, f"jsonl-{a.docs}", a.docs, 300, 42, ["--format", "jsonl"],
                       stdout=subprocess.DEVNULL)
    shards = sorted(f for f in os.listdir(corpus) if f.endswith(".jsonl"))
    size = sum(os.path.getsize(os.path.join(corpus, f)) for f in shards)
    server, port = moto_server()
    try:
        put(port, "/bench", b"")
        t = time.perf_counter()
        for f in shards:
            with open(os.path.join(corpus, f), "rb") as body:
                put(port, f"/bench/corpus/{f}", body)
        print(f"uploaded {len(shards)} shards, {size / 1e6:.0f} MB, "
              f"in {time.perf_counter() - t:.0f} s", flush=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update(AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}", AWS_ALLOW_HTTP="true",
                   AWS_REGION="us-east-1", AWS_ACCESS_KEY_ID="testing",
                   AWS_SECRET_ACCESS_KEY="testing")
        os.environ.clear()
        os.environ.update(env)
        out = tempfile.mkdtemp(prefix="simtui-bench-")
        walls = {"disk": [], "s3": []}
        for i in range(a.runs + 1):
            for name, src in (("disk", corpus), ("s3", "s3://bench/corpus/")):
                dest = os.path.join(out, f"{name}-{i}")
                wall, rss, _ = timed([exe, "dedup", src, "-o", dest, "-t", "0.8",
                                      "--id-field", "id"])
                shutil.rmtree(dest)
                os.remove(dest + ".removed.jsonl")
                if i > 0:
                    walls[name].append(wall)
                print(f"  {name:4} run {i}: {wall:.1f} s, {rss:.0f} MiB"
                      f"{' (warm-up)' if i == 0 else ''}", flush=True)
        ratios = [s / d for s, d in zip(walls["s3"], walls["disk"])]
        print(f"{a.docs} documents ({size / 1e6:.0f} MB): disk {statistics.median(walls['disk']):.1f} s, "
              f"s3 {statistics.median(walls['s3']):.1f} s, ratio {statistics.median(ratios):.2f}x "
              f"(load average {os.getloadavg()[0]:.1f})")
    finally:
        server.kill()


if __name__ == "__main__":
    main()
