"""NumPy from PyPI with and without libshimblas: float32 a @ b on n x n squares and float32
matrix @ vector on n x n matrices, timed in NumPy itself. Every (product, size) runs twice, each
time in a process of its own: without the shim (NumPy's own OpenBLAS, bundled in the wheel) and
with libshimblas preloaded (SHIMBLAS_MODE from the environment, auto by default; one cost-model
cache for the whole run, in a fresh folder). Each time is the median of several calls after
warm-up calls (at least 3 timed, more while under --budget seconds); the shim's counters over the
timed calls say where it sent them. With the shim, a @ b is also timed into a preallocated output
(np.matmul(a, b, out=c)): a fresh result's first touch of its pages is part of a @ b.
A sample of every result is checked against float64.

Prints a markdown table and the targets (at least 25x NumPy's own for a @ b at n = 8192; never
slower than NumPy's own at any size in auto mode), writes a CSV. Exit status 1 when a run failed,
a result was wrong, or the shim did not serve the calls (none counted, rejected, failed on the
GPU); the targets are reported, not enforced.

Each side runs in --processes processes, the two sides alternating: the same product's time moves
by tens of percent from one process to the next (where a large array's pages land: measured 7.3 to
11.6 ms for one 1 GB matrix @ vector), so a single process per side cannot tell 10 % apart. A
side's time is the median over its processes of each process's median; the CSV keeps every process's.

Usage: python3 bench/numpy_matmul.py [--python PY] [--lib LIBSHIMBLAS] [--csv OUT.csv]
           [--sgemm N,N,...] [--sgemv N,N,...] [--budget SECONDS] [--processes P]
  PY: the python with NumPy from PyPI (default: the one running this); LIBSHIMBLAS default
  build/libshimblas.so. Defaults: --sgemm 1024,2048,4096,8192,16384 --sgemv 4096,8192,16384
  --budget 3 --processes 3. The driver needs only the standard library; NumPy runs in PY's processes."""
import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


class Counts(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in ("calls", "gpu", "cpu", "trivial", "errors", "gpu_failed")]


class Stats(ctypes.Structure):
    _fields_ = [("sgemv", Counts), ("sgemm", Counts)]


# Warm-up: at least one call; then more until both 3 calls and 0.3 s have passed, or 5 s. (Short
# products need the time: NumPy's own matrix @ vector at n = 8192, with or without the shim, got
# faster call after call for the first ten or so, 2.4 -> 1.5 ms, as its threads and the CPU's
# clocks settle; three warm-up calls left that in the timed samples, and in the medians.)
WARMUP_CALLS, WARMUP_MIN_SECONDS, WARMUP_SECONDS = 3, 0.3, 5.0
MIN_REPS, MAX_REPS = 3, {"sgemm": 15, "sgemv": 31}
TARGET_N, TARGET_SPEEDUP = 8192, 25.0


# --- one measurement, in its own process ----------------------------------------------------------
def time_calls(f, kind, budget, after_warmup):
    """warm-up calls, after_warmup(), then the timed ones: (median ms, samples in ms, warm-up calls,
    last result)"""
    start, warm = time.perf_counter(), 0
    while warm < 1 or ((warm < WARMUP_CALLS or time.perf_counter() - start < WARMUP_MIN_SECONDS)
                       and time.perf_counter() - start < WARMUP_SECONDS):
        out = f()
        warm += 1
    after_warmup()
    samples = []
    start = time.perf_counter()
    while len(samples) < MIN_REPS or (len(samples) < MAX_REPS[kind] and time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        out = f()
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples), samples, warm, out


def check_sample(kind, a, y, got, rng):
    """a sample of got against float64: the worst |error| / (4 (k + 2) eps |a||y|), <= 1 is right"""
    n = a.shape[0]
    rows = rng.integers(0, n, 64)
    a64 = a[rows].astype(np.float64)
    if kind == "sgemm":
        cols = rng.integers(0, y.shape[1], 64)
        y64 = y[:, cols].astype(np.float64)
        exact = np.einsum("ij,ji->i", a64, y64)
        scale = np.einsum("ij,ji->i", np.abs(a64), np.abs(y64))
        value = got[rows, cols]
    else:
        y64 = y.astype(np.float64)
        exact, scale, value = a64 @ y64, np.abs(a64) @ np.abs(y64), got[rows]
    bound = 4 * (a.shape[1] + 2) * np.finfo(np.float32).eps * scale
    return float(np.max(np.abs(value - exact) / np.where(bound > 0, bound, 1)))


def loaded(fragment):
    with open("/proc/self/maps") as f:
        paths = {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
    return sorted(os.path.basename(p) for p in paths if fragment in os.path.basename(p))


def worker(kind, n, shim, budget):
    global np
    import numpy as np
    lib = None
    if shim:
        if not loaded("libshimblas"):
            print(f"libshimblas is not mapped: LD_PRELOAD={os.environ.get('LD_PRELOAD')}", file=sys.stderr)
            return 1
        lib = ctypes.CDLL(os.environ["SHIMBLAS_LIB"])

    def stats():
        st = Stats()
        lib.shimblas_get_stats(ctypes.byref(st))
        return {r: {f: getattr(getattr(st, r), f) for f, _ in Counts._fields_} for r in ("sgemm", "sgemv")}

    rng = np.random.default_rng(n)
    a = rng.random((n, n), dtype=np.float32)
    a -= 0.5
    y = rng.random((n, n) if kind == "sgemm" else n, dtype=np.float32)
    y -= 0.5
    result = {"kind": kind, "n": n, "shim": shim, "numpy": np.__version__}
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        result["numpy_blas"] = f"{deps.get('name')} {deps.get('version')}"
    except Exception:
        result["numpy_blas"] = "?"

    def measure(f, key):
        # the shim's counters over the timed calls only
        ms, samples, warm, out = time_calls(f, kind, budget, lib.shimblas_reset_stats if lib else lambda: None)
        if lib:
            result[key + "counts"] = stats()
        result[key + "ms"] = ms
        result[key + "samples"] = samples
        result[key + "warmup"] = warm
        result[key + "check"] = check_sample(kind, a, y, out, rng)

    measure(lambda: a @ y, "")
    if shim and kind == "sgemm":
        c = np.empty((n, n), dtype=np.float32)
        measure(lambda: np.matmul(a, y, out=c), "out_")
    result["blas_libs"] = loaded("blas")  # after the calls: a CPU BLAS the shim opened is there now
    print("RESULT " + json.dumps(result), flush=True)
    return 0


# --- the driver -----------------------------------------------------------------------------------
def run_worker(python, kind, n, env, budget):
    """one process; (result dict or None, lines for the log)"""
    cmd = [python, os.path.abspath(__file__), "--worker", kind, str(n), "1" if "LD_PRELOAD" in env else "0",
           str(budget)]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, [f"{kind} {n}: timed out after 300 s"]
    result = None
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
    notes = [line for line in p.stderr.splitlines() if line.strip()]
    if p.returncode != 0 or result is None:
        return None, [f"{kind} {n}{' with the shim' if 'LD_PRELOAD' in env else ''}: exit status {p.returncode}"] + \
            (p.stdout.splitlines() + notes)[-20:]
    return result, notes[:10]


def where(counts):
    if counts is None:
        return ""
    total = {f: counts["sgemm"][f] + counts["sgemv"][f] for f in counts["sgemm"]}
    parts = [f"{total[f]} {f}" for f in ("gpu", "cpu", "trivial", "errors", "gpu_failed") if total[f]]
    return ", ".join(parts) or "none"


def main(argv):
    ap = argparse.ArgumentParser(description="NumPy from PyPI with and without libshimblas")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--lib", default="build/libshimblas.so")
    ap.add_argument("--csv")
    ap.add_argument("--sgemm", default="1024,2048,4096,8192,16384")
    ap.add_argument("--sgemv", default="4096,8192,16384")
    ap.add_argument("--budget", type=float, default=3.0, help="seconds of timed calls per measurement, at most")
    ap.add_argument("--processes", type=int, default=3, help="processes per side of every product")
    args = ap.parse_args(argv)
    python = os.path.abspath(args.python) if os.sep in args.python else (shutil.which(args.python) or args.python)
    lib = os.path.realpath(args.lib)
    if not os.path.exists(lib):
        print(f"{args.lib}: no such library", file=sys.stderr)
        return 2
    mode = os.environ.get("SHIMBLAS_MODE", "auto") or "auto"
    cases = [("sgemm", int(n)) for n in args.sgemm.split(",") if n] + \
        [("sgemv", int(n)) for n in args.sgemv.split(",") if n]
    cache = tempfile.mkdtemp(prefix="shimblas-cache-")
    base = dict(os.environ, SHIMBLAS_LIB=lib, SHIMBLAS_CACHE_DIR=cache)
    base.pop("LD_PRELOAD", None)
    shim_env = dict(base, LD_PRELOAD=lib, SHIMBLAS_MODE=mode)
    rows, problems, started = [], [], time.time()
    try:
        for kind, n in cases:
            row = {"kind": kind, "n": n}
            runs = {"own": [], "shim": []}
            for attempt in range(max(1, args.processes)):
                for side, env in (("own", base), ("shim", shim_env)):
                    t0 = time.time()
                    result, notes = run_worker(python, kind, n, env, args.budget)
                    print(f"{kind} n={n} {'NumPy alone' if side == 'own' else 'with the shim'} "
                          f"(process {attempt + 1}): "
                          f"{'failed' if result is None else format(result['ms'], '.3f') + ' ms'} "
                          f"({time.time() - t0:.1f} s)", flush=True)
                    for line in notes:
                        print("    " + line)
                    if result is None:
                        problems.append(f"{kind} n={n} ({side}): the run failed")
                        continue
                    runs[side].append(result)
                    for key in ("", "out_"):
                        if key + "check" in result and not result[key + "check"] <= 1.0:
                            problems.append(f"{kind} n={n} ({side}{', out=' if key else ''}): wrong result "
                                            f"({result[key + 'check']:.3g} of the error bound)")
                    for key in ("", "out_") if side == "shim" else ():
                        c = result.get(key + "counts")
                        if c is None:
                            continue
                        what = f"{kind} n={n}{' (into out=)' if key else ''}"
                        if sum(c[r]["calls"] for r in c) == 0:
                            problems.append(f"{what}: the shim counted no call (NumPy's calls did not reach it)")
                        elif sum(c[r]["errors"] + c[r]["gpu_failed"] for r in c):
                            problems.append(f"{what}: the shim's calls: {where(c)}")
            for side, results in runs.items():
                if results:
                    # the process whose median is the median of the processes' (the lower of the two
                    # middle ones for an even count) stands for the side; every process's time is kept
                    ordered = sorted(results, key=lambda r: r["ms"])
                    row[side] = dict(ordered[(len(ordered) - 1) // 2], process_ms=[r["ms"] for r in results])
            rows.append(row)
    finally:
        shutil.rmtree(cache, ignore_errors=True)

    first = next((r.get("own") or r.get("shim") for r in rows if r.get("own") or r.get("shim")), None)
    shim_libs = next((r["shim"]["blas_libs"] for r in rows if r.get("shim")), [])
    print()
    if first:
        blas_env = "".join(f"; {v}={os.environ[v]}" for v in ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS",
                                                            "OMP_NUM_THREADS") if v in os.environ)
        print(f"NumPy {first['numpy']} ({first['numpy_blas']}), {python}; {os.cpu_count()} cores{blas_env}; "
              f"shim mode {mode}; BLAS libraries in the shim's process: {', '.join(shim_libs)}; "
              f"{time.time() - started:.0f} s in all")
    print()
    print("| product | n | NumPy's own ms | with the shim ms | speedup | shim, into out= ms | shim's calls (timed) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    csv_lines = ["product,n,numpy,numpy_blas,mode,own_ms,shim_ms,speedup,shim_out_ms,own_reps,shim_reps,"
                 "shim_gpu_calls,shim_cpu_calls,shim_calls,own_samples_ms,shim_samples_ms,shim_blas_libs,"
                 "own_process_ms,shim_process_ms"]
    slower, at_target = [], None
    for r in rows:
        own, shim = r.get("own"), r.get("shim")
        name = "a @ b" if r["kind"] == "sgemm" else "matrix @ vector"
        speedup = own["ms"] / shim["ms"] if own and shim else None
        fmt = lambda v: "" if v is None else f"{v:.3f}"
        print(f"| {name} | {r['n']} | {fmt(own and own['ms'])} | {fmt(shim and shim['ms'])} | "
              f"{'' if speedup is None else f'{speedup:.2f}x'} | {fmt(shim and shim.get('out_ms'))} | "
              f"{where(shim and shim.get('counts'))} |")
        if speedup is not None:
            if speedup < 1.0:
                slower.append(f"{name} n={r['n']} ({speedup:.2f}x)")
            if r["kind"] == "sgemm" and r["n"] == TARGET_N:
                at_target = speedup
        c = (shim or {}).get("counts") or {}
        gpu = sum(c[x]["gpu"] for x in c) if c else ""
        cpu = sum(c[x]["cpu"] for x in c) if c else ""
        calls = sum(c[x]["calls"] for x in c) if c else ""
        csv_lines.append(",".join(str(v) for v in (
            r["kind"], r["n"], (own or shim or {}).get("numpy", ""), (own or shim or {}).get("numpy_blas", ""), mode,
            fmt(own and own["ms"]), fmt(shim and shim["ms"]), "" if speedup is None else f"{speedup:.3f}",
            fmt(shim and shim.get("out_ms")), len(own["samples"]) if own else "", len(shim["samples"]) if shim else "",
            gpu, cpu, calls, " ".join(f"{v:.3f}" for v in own["samples"]) if own else "",
            " ".join(f"{v:.3f}" for v in shim["samples"]) if shim else "", " ".join(shim_libs),
            " ".join(f"{v:.3f}" for v in own["process_ms"]) if own else "",
            " ".join(f"{v:.3f}" for v in shim["process_ms"]) if shim else "")))
    print()
    if at_target is None:
        print(f"target a @ b at least {TARGET_SPEEDUP:.0f}x NumPy's own at n = {TARGET_N}: not measured")
    else:
        print(f"target a @ b at least {TARGET_SPEEDUP:.0f}x NumPy's own at n = {TARGET_N}: "
              f"{'met' if at_target >= TARGET_SPEEDUP else 'NOT met'} ({at_target:.1f}x)")
    print(f"target never slower than NumPy's own ({mode} mode): "
          + ("met at every size" if not slower else "NOT met: " + ", ".join(slower)))
    for p in problems:
        print("FAIL: " + p)
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("\n".join(csv_lines) + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        kind, n, shim, budget = sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", float(sys.argv[5])
        sys.exit(worker(kind, n, shim, budget))
    sys.exit(main(sys.argv[1:]))
