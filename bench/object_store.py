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

With --parquet, the corpus is one Parquet file of the same documents (row groups of
10,000) with an extra column `blob` never read, five times the text's size (random hex),
and the command is `pairs -t 0.8 --id-field id` (dedup writes every column of a Parquet
file, so it fetches the whole object). The store is reached through a relay that counts
the bytes it sends back, printed for each run. Writing the file needs pyarrow (in the
Python running this). --before EXE also times another binary from the store (the same
relay), for a before/after in one run.

    python3 bench/object_store.py --parquet --docs 200000 --runs 1 --before OLD/simtui

moto reads a whole object for each ranged GET (about a second per GB here), which a
real store does not: with --parquet, the wall time from moto is moto's more than
simtui's; the bytes fetched are the measure.
"""
import argparse
import http.client
import multiprocessing
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
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


def relay(to):
    """A TCP relay to 127.0.0.1:`to` on a port of its own; returns the port and a list
    whose one item counts the bytes the server sent back through it."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    sent = [0]
    lock = threading.Lock()

    def pipe(src, dst, count):
        try:
            while data := src.recv(1 << 16):
                if count:
                    with lock:
                        sent[0] += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def serve():
        while True:
            client, _ = listener.accept()
            server = socket.create_connection(("127.0.0.1", to))
            threading.Thread(target=pipe, args=(client, server, False), daemon=True).start()
            threading.Thread(target=pipe, args=(server, client, True), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1], sent


def parquet_corpus(exe, docs):
    """bench/data/parquet-DOCS/data.parquet: the JSON Lines corpus's documents, with a
    `blob` column 5x each text (random hex), in row groups of 10,000."""
    folder = os.path.join(ROOT, "bench", "data", f"parquet-{docs}")
    path = os.path.join(folder, "data.parquet")
    if os.path.exists(path):
        return folder
    jsonl = generated(exe, f"jsonl-{docs}", docs, 300, 42, ["--format", "jsonl"],
                      stdout=subprocess.DEVNULL)
    os.makedirs(folder, exist_ok=True)
    # Written by a child process: the runs' peak RSS (wait4's ru_maxrss) counts what
    # this process held when it forked them.
    child = multiprocessing.Process(target=write_parquet, args=(jsonl, path))
    child.start()
    child.join()
    assert child.exitcode == 0, "writing the Parquet file failed"
    return folder


def write_parquet(jsonl, path):
    import json
    import pyarrow as pa
    import pyarrow.parquet as pq
    ids, texts = [], []
    for f in sorted(f for f in os.listdir(jsonl) if f.endswith(".jsonl")):
        with open(os.path.join(jsonl, f)) as lines:
            for line in lines:
                d = json.loads(line)
                ids.append(d["id"])
                texts.append(d["text"])
    blob = [os.urandom(len(t.encode()) * 5 // 2).hex() for t in texts]
    table = pa.table({"id": ids, "text": texts, "blob": blob})
    pq.write_table(table, path + ".tmp", row_group_size=10_000)
    os.rename(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--exe", help="the simtui binary (default: build this checkout)")
    ap.add_argument("--parquet", action="store_true",
                    help="one Parquet file with an unread column; `pairs`; bytes counted")
    ap.add_argument("--before", help="another simtui binary, also timed from the store")
    a = ap.parse_args()
    exe = release_binary(a.exe)
    if a.parquet:
        corpus = parquet_corpus(exe, a.docs)
        shards = ["data.parquet"]
    else:
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
        store = port
        if a.parquet:
            store, sent = relay(port)
        env.update(AWS_ENDPOINT_URL=f"http://127.0.0.1:{store}", AWS_ALLOW_HTTP="true",
                   AWS_REGION="us-east-1", AWS_ACCESS_KEY_ID="testing",
                   AWS_SECRET_ACCESS_KEY="testing")
        os.environ.clear()
        os.environ.update(env)
        out = tempfile.mkdtemp(prefix="simtui-bench-")
        url = "s3://bench/corpus/"
        runs = [("disk", exe, corpus), ("s3", exe, url)]
        if a.before:
            runs.append(("s3-before", a.before, url))
        walls = {name: [] for name, _, _ in runs}
        for i in range(a.runs + 1):
            for name, binary, src in runs:
                dest = os.path.join(out, f"{name}-{i}")
                if a.parquet:
                    sent[0] = 0
                    cmd = [binary, "pairs", src, "-t", "0.8", "--id-field", "id"]
                else:
                    cmd = [binary, "dedup", src, "-o", dest, "-t", "0.8", "--id-field", "id"]
                wall, rss, _ = timed(cmd)
                if not a.parquet:
                    shutil.rmtree(dest)
                    os.remove(dest + ".removed.jsonl")
                if i > 0:
                    walls[name].append(wall)
                fetched = f", {sent[0] / 1e6:.0f} MB fetched" if a.parquet and name != "disk" else ""
                print(f"  {name:9} run {i}: {wall:.1f} s, {rss:.0f} MiB{fetched}"
                      f"{' (warm-up)' if i == 0 else ''}", flush=True)
        ratios = [s / d for s, d in zip(walls["s3"], walls["disk"])]
        before = (f", s3 before {statistics.median(walls['s3-before']):.1f} s"
                  if a.before else "")
        print(f"{a.docs} documents ({size / 1e6:.0f} MB): disk {statistics.median(walls['disk']):.1f} s, "
              f"s3 {statistics.median(walls['s3']):.1f} s{before}, "
              f"ratio {statistics.median(ratios):.2f}x "
              f"(load average {os.getloadavg()[0]:.1f})")
    finally:
        server.kill()


if __name__ == "__main__":
    main()
