#!/usr/bin/env python3
"""simtui against datasketch and rensa, side by side, on the same generated corpora.

    python3 bench/peers/run.py                              # 5,000 and 50,000 documents, 3 rounds
    python3 bench/peers/run.py --docs 5000 --runs 1         # a quick check
    python3 bench/peers/run.py --docs 200000                # slow: see bench/peers/README.md

Needs python3 (3.11), pip and cargo. It makes the virtual environment bench/peers/.venv
(if missing) with the pinned requirements.txt, builds simtui, generates the corpora
(bench/data/gen{N}-w300-s42, shared with bench/e2e.py), writes the exact ground truth with
`simtui eval --write-truth` once, checks that the Python tokenisation gives exactly
simtui's Jaccard similarities, then runs every tool in its own fresh process, round-robin
(the order rotated each round, each round with a new hash seed for every tool), and
prints one markdown table per corpus: medians of the times, mean ± sd of the recall.
Raw results: bench/data/peers-results-{N}.json.

Every tool does the same job: k = 5 word shingles, 128 MinHash functions, LSH with 16
bands of 8 rows, and the exact Jaccard of every candidate pair. Recall is measured against
every pair with exact J >= 0.5 (brute force over shared shingles, by simtui eval).

This file is both the driver (standard library only, any python3) and the worker that runs
one peer (`run.py _worker TOOL DIR OUT`, started with the virtual environment's python).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(HERE, ".venv")
VPY = os.path.join(VENV, "bin", "python")
DATA = os.path.join(ROOT, "bench", "data")
BUILT = os.path.join(ROOT, "target", "release", "simtui")
# The binary measured: a copy taken right after the build, so that a rebuild in the same
# work tree during a long run can't swap it between rounds.
EXE = os.path.join(DATA, "peers-simtui-bin")
PINS = {"datasketch": "2.0.0", "rensa": "0.5.0", "pyarrow": "26.0.1"}

K, PERMS, BANDS, ROWS = 5, 128, 16, 8
WORDS, SEED = 300, 42
# The hash seed of the run in progress (a worker's argument): recall is a random variable
# of it, so each round gives every tool the same new seed, and the table shows the mean.
HASH_SEED = SEED
TOOLS = ["simtui", "datasketch", "datasketch-hash", "rensa"]
OPTIONAL_TOOLS = ["rensa-objects"]
API = {
    "simtui": f"`simtui pairs -k {K} --bands {BANDS} --rows {ROWS}`",
    "datasketch": "`MinHash.bulk`; `MinHashLSH(params=(16, 8))`: `insertion_session`, `query` per document",
    "datasketch-hash": "as datasketch, with `MinHash.bulk(..., hashfunc=lambda b: hash(b) & 0xFFFFFFFF)`",
    "rensa": "`digest_matrix_from_token_byte_sets`; `RMinHashLSH`: `insert_matrix`, "
    "`query_duplicate_flags_matrix`, then `from_token_sets` + `query_all` for the flagged rows",
    "rensa-objects": "`from_token_sets`; `RMinHashLSH`: `insert_many`, `query_all`",
}

# ---------------------------------------------------------------------------------------
# The Python side of the job (shared by the peers): read, tokenise, shingle, verify.
# ---------------------------------------------------------------------------------------

# Tokens are runs of [a-z0-9_] after ASCII lowercasing. On the generated corpora (ASCII
# words, spaces, newlines and , . ; : ! ? -) this equals simtui's UAX #29 words, and
# the reference regex below; `_check` verifies both claims on every corpus before timing.
_TABLE = bytes(
    (c + 32 if 65 <= c <= 90 else c) if (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95) else 32
    for c in range(256)
)
_REFERENCE = re.compile(r"[a-z0-9_]+(?:[.:'][a-z0-9_]+)*")


def tokens(data: bytes) -> list:
    return data.translate(_TABLE).split()


def reference_tokens(data: bytes) -> list:
    return [t.encode() for t in _REFERENCE.findall(data.decode("utf-8", "replace").lower())]


def shingles(toks: list) -> set:
    """The set of k-word windows joined by a space (bytes). Fewer than k words: one
    shingle of them all; none: the empty set."""
    if len(toks) >= K:
        return {b" ".join(w) for w in zip(*(toks[i:] for i in range(K)))}
    return {b" ".join(toks)} if toks else set()


def walk(root: str) -> list:
    """(id, path) of every regular, non-hidden file under root, sorted; ids use '/'."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if f.startswith("."):
                continue
            p = os.path.join(d, f)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append((os.path.relpath(p, root).replace(os.sep, "/"), p))
    return out


def load(root: str):
    """Reads and shingles every document, one at a time (the text is dropped once
    shingled). Returns ids, shingle sets (empty documents left out) and the seconds
    spent reading and shingling."""
    from time import perf_counter

    t0 = perf_counter()
    files = walk(root)
    t_read = perf_counter() - t0
    t_shingle = 0.0
    ids, sets = [], []
    for doc_id, path in files:
        a = perf_counter()
        with open(path, "rb") as f:
            data = f.read()
        b = perf_counter()
        s = shingles(tokens(data))
        if s:
            ids.append(doc_id)
            sets.append(s)
        c = perf_counter()
        t_read += b - a
        t_shingle += c - b
    return ids, sets, t_read, t_shingle


def jaccard(a: set, b: set) -> float:
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def verify(sets: list, candidates) -> list:
    return [(i, j, jaccard(sets[i], sets[j])) for i, j in candidates]


# ---------------------------------------------------------------------------------------
# The peers: each returns the candidate pairs (i < j) and the seconds of sketch and lsh.
# ---------------------------------------------------------------------------------------


def _builtin_hash32(b: bytes) -> int:
    return hash(b) & 0xFFFFFFFF


def run_datasketch(sets: list, hashfunc=None):
    """`MinHash.bulk` with the default SHA-1 hash, or with `hashfunc` (the docs suggest a
    faster hash such as farmhash; Python's own `hash` needs no extra package and is salted
    per process, which is fine within one run)."""
    from time import perf_counter

    from datasketch import MinHash, MinHashLSH

    kw = {"hashfunc": hashfunc} if hashfunc else {}
    kw["seed"] = HASH_SEED
    t0 = perf_counter()
    sketches = MinHash.bulk(sets, num_perm=PERMS, **kw)
    t1 = perf_counter()
    lsh = MinHashLSH(num_perm=PERMS, params=(BANDS, ROWS))
    with lsh.insertion_session() as session:
        for i, m in enumerate(sketches):
            session.insert(i, m, check_duplication=False)
    candidates = set()
    for i, m in enumerate(sketches):
        for j in lsh.query(m):
            if i < j:
                candidates.add((i, j))
    t2 = perf_counter()
    return candidates, t1 - t0, t2 - t1, [m.hashvalues for m in sketches]


def _rensa_lsh(threshold: float = 0.5):
    import rensa

    return rensa.RMinHashLSH(threshold=threshold, num_perm=PERMS, num_bands=BANDS)


def run_rensa(sets: list, threshold: float = 0.5):
    """The matrix path: one compact digest matrix, inserted at once; a row is flagged when
    it shares a band with another row, and only flagged rows (every member of every
    candidate pair) are turned into RMinHash objects to ask for their candidates, since
    `query`/`query_all` take RMinHash objects and a matrix row can't be turned into one."""
    from time import perf_counter

    from rensa import RMinHash

    t0 = perf_counter()
    matrix = RMinHash.digest_matrix_from_token_byte_sets(sets, num_perm=PERMS, seed=HASH_SEED)
    t1 = perf_counter()
    lsh = _rensa_lsh(threshold)
    lsh.insert_matrix(matrix)
    flagged = [i for i, f in enumerate(lsh.query_duplicate_flags_matrix(matrix)) if f]
    t2 = perf_counter()
    objects = RMinHash.from_token_sets([sets[i] for i in flagged], num_perm=PERMS, seed=HASH_SEED)
    t3 = perf_counter()
    candidates = set()
    for i, found in zip(flagged, lsh.query_all(objects)):
        for j in found:
            if i < j:
                candidates.add((i, j))
    t4 = perf_counter()
    return candidates, (t1 - t0) + (t3 - t2), (t2 - t1) + (t4 - t3), matrix


def run_rensa_objects(sets: list, threshold: float = 0.5):
    from time import perf_counter

    from rensa import RMinHash

    t0 = perf_counter()
    objects = RMinHash.from_token_sets(sets, num_perm=PERMS, seed=HASH_SEED)
    t1 = perf_counter()
    lsh = _rensa_lsh(threshold)
    lsh.insert_many(objects)
    candidates = set()
    for i, found in enumerate(lsh.query_all(objects)):
        for j in found:
            if i < j:
                candidates.add((i, j))
    t2 = perf_counter()
    return candidates, t1 - t0, t2 - t1, objects


PEERS = {
    "datasketch": run_datasketch,
    "datasketch-hash": lambda sets: run_datasketch(sets, _builtin_hash32),
    "rensa": run_rensa,
    "rensa-objects": run_rensa_objects,
}


def worker(tool: str, root: str, out: str, seed: str) -> None:
    """One timed run of one peer, in its own process; writes its stages and pairs."""
    from time import perf_counter

    global HASH_SEED
    HASH_SEED = int(seed)
    start = perf_counter()
    ids, sets, t_read, t_shingle = load(root)
    candidates, t_sketch, t_lsh, _ = PEERS[tool](sets)
    a = perf_counter()
    pairs = verify(sets, candidates)
    t_verify = perf_counter() - a
    total = perf_counter() - start
    with open(out + ".pairs.tsv", "w") as f:
        for i, j, jac in pairs:
            f.write(f"{ids[i]}\t{ids[j]}\t{jac!r}\n")
    with open(out, "w") as f:
        json.dump(
            {
                "stages": {
                    "read": t_read,
                    "shingle": t_shingle,
                    "sketch": t_sketch,
                    "lsh": t_lsh,
                    "verify": t_verify,
                    "total": total,
                },
                "documents": len(ids),
                "shingles": sum(map(len, sets)),
                "candidates": len(pairs),
            },
            f,
        )


def recall_worker(tool: str, root: str, out: str, seeds: str) -> None:
    """Recall only, over many hash seeds in one process: the documents are read and
    shingled once, then each seed's candidate pairs go to `out`.{seed}.tsv (untimed).
    datasketch-hash's Python `hash` keeps the process's one salt (PYTHONHASHSEED), while
    datasketch's own seed still changes its permutations every round."""
    global HASH_SEED
    ids, sets, _, _ = load(root)
    for seed in seeds.split(","):
        HASH_SEED = int(seed)
        candidates = PEERS[tool](sets)[0]
        with open(f"{out}.{seed}.tsv", "w") as f:
            for i, j in candidates:
                f.write(f"{ids[i]}\t{ids[j]}\n")


def banding(rows) -> set:
    """Candidate pairs of signature rows by plain banding: the reference the peers' LSH
    indexes are checked against."""
    out = set()
    for band in range(BANDS):
        buckets = {}
        for i, row in enumerate(rows):
            buckets.setdefault(tuple(int(x) for x in row[band * ROWS : (band + 1) * ROWS]), []).append(i)
        for members in buckets.values():
            for x, i in enumerate(members):
                for j in members[x + 1 :]:
                    out.add((i, j))
    return out


def check(root: str, simtui_pairs: str, n_pairs: int, n_lsh: int) -> None:
    """Fails loudly unless the Python side does the same job as simtui: the fast tokeniser
    equals the reference regex on every document, the exact Jaccard of n_pairs simtui pairs
    (spread over their range) equals simtui's to 1e-12, and each peer's LSH gives exactly
    the pairs that share a band of its own signatures (so no threshold prunes candidates)."""
    files = walk(root)
    by_id, bad = {}, []
    for doc_id, path in files:
        with open(path, "rb") as f:
            data = f.read()
        t = tokens(data)
        if t != reference_tokens(data):
            bad.append(doc_id)
        by_id[doc_id] = shingles(t)
    if bad:
        sys.exit(f"CHECK FAILED: the fast tokeniser differs from the reference regex on {len(bad)} documents, e.g. {bad[:3]}")
    with open(simtui_pairs) as f:
        reported = sorted((json.loads(line) for line in f), key=lambda p: (p["jaccard"], p["a"], p["b"]))
    if not reported:
        sys.exit("CHECK FAILED: simtui reported no pairs to compare with")
    step = max(1, (len(reported) - 1) / max(1, n_pairs - 1))
    picked = sorted({min(len(reported) - 1, round(x * step)) for x in range(n_pairs)})
    worst, wrong = 0.0, []
    for x in picked:
        p = reported[x]
        j = jaccard(by_id[p["a"]], by_id[p["b"]])
        worst = max(worst, abs(j - p["jaccard"]))
        if abs(j - p["jaccard"]) > 1e-12:
            wrong.append((p["a"], p["b"], p["jaccard"], j))
    if wrong:
        sys.exit(f"CHECK FAILED: {len(wrong)} of {len(picked)} pairs differ from simtui's Jaccard, e.g. (a, b, simtui, python) {wrong[:3]}")
    sets = [s for s in by_id.values() if s][:n_lsh]
    for hashfunc in (None, _builtin_hash32):
        cands, _, _, sigs = run_datasketch(sets, hashfunc)
        if cands != banding(sigs):
            sys.exit("CHECK FAILED: datasketch MinHashLSH candidates differ from plain banding of its signatures")
    cands, _, _, matrix = run_rensa(sets)
    if cands != banding(matrix.to_rows()):
        sys.exit("CHECK FAILED: rensa candidates (matrix path) differ from plain banding of its digest matrix")
    for threshold in (0.0, 0.95):
        if run_rensa(sets, threshold)[0] != cands or run_rensa_objects(sets, threshold)[0] != cands:
            sys.exit(f"CHECK FAILED: rensa candidates change with threshold={threshold}")
    print(
        f"check ok: tokens equal the reference regex on {len(files)} documents; "
        f"Jaccard of {len(picked)} simtui pairs (J {reported[picked[0]]['jaccard']:.3f}..{reported[picked[-1]]['jaccard']:.3f}) "
        f"equal to {worst:.1e}; datasketch and rensa candidates on {len(sets)} documents equal plain banding "
        f"of their signatures, rensa's for every threshold",
        flush=True,
    )


# ---------------------------------------------------------------------------------------
# The driver (standard library only).
# ---------------------------------------------------------------------------------------


def sh(cmd, **kw):
    print("$ " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def ensure_venv() -> None:
    if not os.path.exists(VPY):
        try:
            sh([sys.executable, "-m", "venv", VENV])
        except subprocess.CalledProcessError:
            sys.exit("cannot create the virtual environment (on Debian/Ubuntu: apt-get install python3-venv)")
    probe = "import importlib.metadata as m, json; print(json.dumps({p: m.version(p) for p in %r}))" % list(PINS)
    r = subprocess.run([VPY, "-c", probe], capture_output=True, text=True)
    if r.returncode != 0 or json.loads(r.stdout) != PINS:
        sh([VPY, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", os.path.join(HERE, "requirements.txt")])


def corpus(n: int) -> str:
    d = os.path.join(DATA, f"gen{n}-w{WORDS}-s{SEED}")
    if not os.path.isdir(d):
        os.makedirs(DATA, exist_ok=True)
        tmp = d + ".partial"
        shutil.rmtree(tmp, ignore_errors=True)
        sh([EXE, "gen", tmp, "--docs", str(n), "--words", str(WORDS), "--seed", str(SEED), "--truth", d + ".truth.jsonl"])
        os.rename(tmp, d)
    return d


def ground_truth(d: str) -> list:
    path = d + ".exact.jsonl"
    if not os.path.exists(path):
        tmp = path + ".partial"
        start = time.perf_counter()
        with open(d + ".eval.jsonl", "w") as report:
            sh([EXE, "eval", d, "-k", str(K), "--write-truth", tmp, "--format", "jsonl"], stdout=report)
        os.rename(tmp, path)
        print(f"ground truth: {path} ({time.perf_counter() - start:.1f} s)", flush=True)
    with open(path) as f:
        return [(p["a"], p["b"], p["jaccard"]) for p in map(json.loads, f)]


def simtui_cmd(d: str, seed: int = SEED) -> list:
    return [EXE, "pairs", d, "-k", str(K), "--bands", str(BANDS), "--rows", str(ROWS), "--seed", str(seed), "--stats", "--format", "jsonl"]


def measure(cmd: list, stdout_path: str, env=None):
    """Runs cmd in a fresh process: (wall seconds, peak RSS MiB, stderr, CPU seconds)."""
    start = time.perf_counter()
    with open(stdout_path, "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=env)
        err = p.stderr.read().decode()
        _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{err}")
    return wall, usage.ru_maxrss / 1024, err, usage.ru_utime + usage.ru_stime


def run_simtui(d: str, n: int, seed: int) -> dict:
    out = os.path.join(DATA, f"peers-simtui-{n}.jsonl")
    wall, rss, err, cpu = measure(simtui_cmd(d, seed), out)
    m = re.search(r"^time\s+(.*)$", err, re.M)
    if not m:
        sys.exit(f"no `time` line in simtui --stats:\n{err}")
    t = {k: float(v) for k, v in re.findall(r"(\w+) ([\d.]+) s", m.group(1))}
    pairs = []
    with open(out) as f:
        for line in f:
            p = json.loads(line)
            pairs.append((p["a"], p["b"]))
    stages = {
        "read": t["walk"] + t["read"],
        "shingle": t["shingle"],
        "sketch": t["sketch"],
        "lsh": t["band"],
        "verify": t["verify"],
        "total": t["total"],
    }
    return {"stages": stages, "simtui_stages": t, "wall": wall, "cpu": cpu, "rss": rss, "candidates": len(pairs), "pairs": pairs}


def run_peer(tool: str, d: str, n: int, seed: int) -> dict:
    out = os.path.join(DATA, f"peers-{tool}-{n}.json")
    # PYTHONHASHSEED makes datasketch-hash (Python's salted `hash`) repeatable per seed.
    env = dict(os.environ, PYTHONHASHSEED=str(seed))
    wall, rss, err, cpu = measure([VPY, os.path.abspath(__file__), "_worker", tool, d, out, str(seed)], os.devnull, env)
    with open(out) as f:
        r = json.load(f)
    with open(out + ".pairs.tsv") as f:
        r["pairs"] = [tuple(line.split("\t")[:2]) for line in f]
    r.update(wall=wall, cpu=cpu, rss=rss)
    return r


def extra_recall(tool: str, d: str, n: int, seeds: list, truth: list) -> list:
    """Recall-only rounds (--recall-seeds): marked "untimed", left out of the time medians."""
    out = []
    if tool == "simtui":
        for seed in seeds:
            pairs = run_simtui(d, n, seed)["pairs"]
            out.append({"untimed": True, "seed": seed, "recall": recall(truth, pairs)})
        return out
    stem = os.path.join(DATA, f"peers-{tool}-{n}.recall")
    env = dict(os.environ, PYTHONHASHSEED=str(seeds[0]))
    measure([VPY, os.path.abspath(__file__), "_recall", tool, d, stem, ",".join(map(str, seeds))], os.devnull, env)
    for seed in seeds:
        with open(f"{stem}.{seed}.tsv") as f:
            pairs = [tuple(line.rstrip("\n").split("\t")) for line in f]
        os.remove(f"{stem}.{seed}.tsv")
        out.append({"untimed": True, "seed": seed, "recall": recall(truth, pairs)})
    return out


def recall(truth: list, pairs: list) -> dict:
    """Recall at J >= 0.5 and 0.8, and the number of true pairs missed at each."""
    found = {(a, b) if a < b else (b, a) for a, b in pairs}
    out = {}
    for t in (0.5, 0.8):
        want = [(a, b) for a, b, j in truth if j >= t]
        hit = sum(1 for p in want if p in found)
        out[t] = hit / len(want) if want else float("nan")
        out[f"missed {t}"] = len(want) - hit
    return out


def machine() -> str:
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            mem = f"{int(f.readline().split()[1]) / 1024**2:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "src", "Cargo.toml", "Cargo.lock"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    built = time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(EXE)))
    sketch = re.search(r"--sketch.*?\[default: (\w+)\]", subprocess.run([EXE, "pairs", "--help"], capture_output=True, text=True).stdout, re.S)
    py = subprocess.run([VPY, "-c", "import platform; print(platform.python_version())"], capture_output=True, text=True).stdout.strip()
    return (
        f"`nproc` {len(os.sched_getaffinity(0))}, {model}, {mem} RAM; Python {py}; "
        f"simtui {head or '?'}{' + uncommitted changes' if dirty else ''} (binary built {built}, "
        f"default sketch {sketch.group(1) if sketch else '?'}); datasketch {PINS['datasketch']}, rensa {PINS['rensa']}"
    )


def fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def seed_note(results: dict) -> str:
    """Which seeds each tool's recall is over, e.g. "simtui, rensa: 42–81; datasketch: 42–46"."""
    groups = {}
    for tool, rs in results.items():
        seeds = sorted({r["seed"] for r in rs})
        span = f"{seeds[0]}–{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) and len(seeds) > 1 else ", ".join(map(str, seeds))
        groups.setdefault(span, []).append(tool)
    return "; ".join(f"{', '.join(ts)}: {span}" for span, ts in groups.items())


def table(n: int, size: float, results: dict, command: str, mach: str, runs: int, truth: list) -> str:
    med = statistics.median
    agg = {}
    for tool, every in results.items():
        rs = [r for r in every if not r.get("untimed")]
        st = {k: med(r["stages"][k] for r in rs) for k in rs[0]["stages"]}
        sd = (lambda xs: statistics.stdev(xs) if len(xs) > 1 else 0.0)
        r05 = [r["recall"][0.5] for r in every]
        r08 = [r["recall"][0.8] for r in every]
        agg[tool] = {
            "stages": st,
            "wall": med(r["wall"] for r in rs),
            "cpu": med(r["cpu"] for r in rs),
            "rss": med(r["rss"] for r in rs),
            "candidates": med(r["candidates"] for r in rs),
            # Recall depends on the hash seed, not on the machine: the mean over every
            # seed measured (timed rounds and --recall-seeds), its spread and the mean's
            # standard error.
            "seeds": len(every),
            "r05": statistics.mean(r05),
            "r08": statistics.mean(r08),
            "sd05": sd(r05),
            "sd08": sd(r08),
            "se08": sd(r08) / len(r08) ** 0.5,
            "missed05": statistics.mean(r["recall"]["missed 0.5"] for r in every),
            "missed08": statistics.mean(r["recall"]["missed 0.8"] for r in every),
        }
    base = agg.get("simtui")
    lines = [
        f"**{n:,} documents** ({size / 1e6:.1f} MB; {sum(1 for t in truth if t[2] >= 0.5):,} true pairs at J ≥ 0.5, "
        f"{sum(1 for t in truth if t[2] >= 0.8):,} at J ≥ 0.8), medians of {runs} alternating "
        f"run{'s' if runs > 1 else ''}, times in seconds; recall: mean ± sd over hash seeds "
        f"({seed_note(results)}; the R@0.8 cell also gives the mean's standard error):",
        "",
        "| tool | API | docs/s | read | shingle | sketch | lsh | verify | total (s) | process wall (s) | process CPU (s) | peak RSS (MiB) "
        "| candidates | R@0.5 | R@0.8 | total ÷ simtui | sketch+lsh ÷ simtui |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for tool, a in agg.items():
        s = a["stages"]
        if base:
            ratio = f"{s['total'] / base['stages']['total']:.1f}×"
            sl = s["sketch"] + s["lsh"]
            bsl = base["stages"]["sketch"] + base["stages"]["lsh"]
            ratio_sl = f"{sl / bsl:.1f}×" if bsl > 0 else "–"
        else:
            ratio = ratio_sl = "–"
        lines.append(
            f"| {tool} | {API[tool]} | {n / s['total']:,.0f} | {fmt_s(s['read'])} | {fmt_s(s['shingle'])} | "
            f"{fmt_s(s['sketch'])} | {fmt_s(s['lsh'])} | {fmt_s(s['verify'])} | **{fmt_s(s['total'])}** | "
            f"{fmt_s(a['wall'])} | {fmt_s(a['cpu'])} | {a['rss']:,.0f} | {a['candidates']:,.0f} | "
            f"{a['r05']:.4f} ± {a['sd05']:.4f} ({a['missed05']:,.1f} missed) | "
            f"{a['r08']:.4f} ± {a['sd08']:.4f}, se {a['se08']:.4f} ({a['missed08']:,.1f} missed, {a['seeds']} seeds) | "
            f"{ratio} | {ratio_sl} |"
        )
    lines += ["", f"Machine: {mach}.", f"Command: `{command}`"]
    return "\n".join(lines), agg


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_worker":
        return worker(*sys.argv[2:6])
    if len(sys.argv) > 1 and sys.argv[1] == "_recall":
        return recall_worker(*sys.argv[2:6])
    if len(sys.argv) > 1 and sys.argv[1] == "_check":
        return check(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", default="5000,50000", help="corpus sizes, comma-separated (200000 works but is slow)")
    ap.add_argument("--runs", type=int, default=3, help="alternating rounds; the table shows medians")
    ap.add_argument(
        "--tools",
        default=",".join(TOOLS),
        help=f"comma-separated, from {', '.join(TOOLS + OPTIONAL_TOOLS)} (rensa-objects: rensa's object batch path)",
    )
    ap.add_argument("--no-build", action="store_true", help="use the existing target/release/simtui")
    ap.add_argument(
        "--fixed-seed",
        action="store_true",
        help=f"hash seed {SEED} in every round (default: round r uses {SEED} + r for every tool, and recall is averaged)",
    )
    ap.add_argument(
        "--recall-seeds",
        type=int,
        default=0,
        help="after the timed rounds, this many more hash seeds for the recall columns of --recall-tools (untimed; "
        "a peer reads and shingles once for all of them)",
    )
    ap.add_argument("--recall-tools", default="simtui,rensa", help="the tools --recall-seeds applies to")
    ap.add_argument("--check-pairs", type=int, default=50, help="simtui pairs whose Jaccard the Python side must reproduce")
    ap.add_argument("--check-lsh-docs", type=int, default=3000, help="documents on which the peers' LSH is checked")
    a = ap.parse_args()
    sizes = [int(x) for x in a.docs.split(",") if x]
    tools = [t for t in a.tools.split(",") if t]
    for t in tools:
        if t not in TOOLS + OPTIONAL_TOOLS:
            ap.error(f"unknown tool {t!r}")
    recall_tools = [t for t in a.recall_tools.split(",") if t in tools] if a.recall_seeds else []
    if a.recall_seeds and a.fixed_seed:
        ap.error("--recall-seeds needs a new seed per round (drop --fixed-seed)")
    command = "python3 bench/peers/run.py " + " ".join(sys.argv[1:])

    ensure_venv()
    if not a.no_build:
        try:
            sh(["cargo", "build", "--release", "--quiet"], cwd=ROOT)
        except subprocess.CalledProcessError:
            sys.exit("cargo build --release failed (use --no-build to measure the binary already in target/release)")
    if not os.path.exists(BUILT):
        sys.exit(f"no {BUILT}")
    os.makedirs(DATA, exist_ok=True)
    shutil.copy2(BUILT, EXE)
    mach = machine()
    print(f"machine: {mach}", flush=True)

    tables = []
    for n in sizes:
        d = corpus(n)
        size = sum(os.path.getsize(os.path.join(p, f)) for p, _, fs in os.walk(d) for f in fs)
        truth = ground_truth(d)
        # Warm-up (page cache) and the check that the Python side matches simtui.
        warm = os.path.join(DATA, f"peers-simtui-{n}.jsonl")
        measure(simtui_cmd(d), warm)
        sh([VPY, os.path.abspath(__file__), "_check", d, warm, str(a.check_pairs), str(a.check_lsh_docs)])
        results = {t: [] for t in tools}
        for r in range(a.runs):
            order = tools[r % len(tools) :] + tools[: r % len(tools)]
            for tool in order:
                seed = SEED if a.fixed_seed else SEED + r
                res = run_simtui(d, n, seed) if tool == "simtui" else run_peer(tool, d, n, seed)
                res["recall"] = recall(truth, res.pop("pairs"))
                res["round"] = r
                res["seed"] = seed
                results[tool].append(res)
                print(
                    f"  N={n} round {r + 1}/{a.runs} {tool:<13} total {res['stages']['total']:7.2f} s  "
                    f"wall {res['wall']:7.2f} s  CPU {res['cpu']:7.2f} s  RSS {res['rss']:7.0f} MiB  candidates {res['candidates']}  "
                    f"R@0.5 {res['recall'][0.5]:.4f}  R@0.8 {res['recall'][0.8]:.4f}",
                    flush=True,
                )
        extra = list(range(SEED + a.runs, SEED + a.runs + a.recall_seeds))
        for tool in recall_tools:
            print(f"  N={n} {tool}: recall over {len(extra)} more seeds ({extra[0]}..{extra[-1]})", flush=True)
            results[tool] += extra_recall(tool, d, n, extra, truth)
        text, agg = table(n, size, results, command, mach, a.runs, truth)
        tables.append(text)
        raw = {
            "documents": n,
            "bytes": size,
            "truth_pairs": {"0.5": sum(1 for t in truth if t[2] >= 0.5), "0.8": sum(1 for t in truth if t[2] >= 0.8)},
            "command": command,
            "machine": mach,
            "api": {t: API[t] for t in tools},
            "runs": {t: [{k: v for k, v in r.items() if k != "recall"} | {"recall": {str(k): v for k, v in r["recall"].items()}} for r in rs] for t, rs in results.items()},
            "medians": agg,
        }
        with open(os.path.join(DATA, f"peers-results-{n}.json"), "w") as f:
            json.dump(raw, f, indent=1)
        print("\n" + text + "\n", flush=True)

    if len(tables) > 1:
        print("\n\n".join(tables))


if __name__ == "__main__":
    main()
