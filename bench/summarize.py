#!/usr/bin/env python3
"""Turns the benchmarks' CSV files into the tables of docs/perf.md and the plots next to it.

    summarize.py host OUT_DIR host_e2e.csv      time per engine and shape, targets
    summarize.py device OUT_DIR sgemv_device.csv sgemm_device.csv
    summarize.py overhead OUT_DIR overhead_<situation>_<blas>.csv...   ns a CPU-served call adds
Tables go to stdout (markdown); plots (PNG) to OUT_DIR when matplotlib is available."""
import csv
import os
import re
import sys
from collections import defaultdict


def read_rows(path):
    with open(path) as f:
        return [r for r in csv.reader(line for line in f if not line.startswith("#")) if r]


def auto_sides(path):
    """(routine, m, n, k) -> {side: calls} from the auto run's SHIMBLAS_VERBOSE trace"""
    sides = defaultdict(lambda: defaultdict(int))
    if not os.path.exists(path):
        return sides
    pat = re.compile(r"^shimblas: (sgemm|sgemv) \S+ m=(\d+) n=(\d+)(?: k=(\d+))? .*-> (\w+);")
    with open(path) as f:
        for line in f:
            hit = pat.match(line)
            if hit:
                routine, m, n, k, side = hit.groups()
                sides[(routine, int(m), int(n), int(k or 0))][side] += 1
    return sides


def host(out_dir, path):
    rows = read_rows(path)
    engines = []
    times = defaultdict(dict)  # (routine, shape) -> engine -> ms
    dims = {}  # (routine, shape) -> (m, n, k) of the Fortran call
    wrong = []
    for label, routine, shape, m, n, k, ms, rate, ok in rows:
        if label not in engines:
            engines.append(label)
        times[(routine, shape)][label] = float(ms)
        dims[(routine, shape)] = (int(m), int(n), int(k))
        if ok != "ok":
            wrong.append(f"{label} {routine} {shape}")
    sides = auto_sides(path[: -len(".csv")] + "_auto_trace.txt")
    # cpu-blas@ENGINE: the CPU BLAS timed in the same process as ENGINE, right after it;
    # auto mode is judged against the one in its own process (processes differ by +-30 % on
    # memory-bound calls, more than the 5 % being judged)
    main = [e for e in engines if "@" not in e]
    print("| routine | shape | " + " | ".join(main)
          + " | CPU in auto's process | auto / CPU | auto / best | auto's calls (trace run) | faster side |")
    print("| --- | --- | " + " | ".join("---" for _ in main) + " | --- | --- | --- | --- | --- |")
    misses = []
    wrong_side = []
    for (routine, shape), t in times.items():
        cells = [f"{t[e]:.3f}" if e in t else "-" for e in main]
        took = sides.get((routine,) + dims[(routine, shape)], {})
        side_cell = ", ".join(f"{v} {s}" for s, v in sorted(took.items(), key=lambda kv: -kv[1]))
        cpu_t = t.get("cpu-blas@shimblas-auto", t.get("cpu-blas"))
        gpu_t = t.get("shimblas-gpu")
        faster = ""
        if cpu_t and gpu_t:
            faster = "gpu" if gpu_t < cpu_t else "cpu"
            # a clear call (one side 1.5x faster) that auto mostly sent to the other side
            if took and max(cpu_t, gpu_t) > 1.5 * min(cpu_t, gpu_t) and max(took, key=took.get) != faster:
                wrong_side.append(f"{routine} {shape}: auto mostly {max(took, key=took.get)}, {faster} is faster")
        side_cell = side_cell or "-"
        ratio_cpu = ratio_best = base_cell = ""
        cpu = t.get("cpu-blas@shimblas-auto", t.get("cpu-blas"))
        if "shimblas-auto" in t and cpu:
            auto = t["shimblas-auto"]
            base_cell = f"{cpu:.3f}"
            best = min(cpu, t.get("shimblas-gpu", cpu))
            ratio_cpu, ratio_best = f"{auto / cpu:.2f}", f"{auto / best:.2f}"
            if auto > 1.05 * cpu:
                misses.append(f"auto {auto / cpu:.2f}x the CPU BLAS on {routine} {shape}")
            if auto > 1.1 * best:
                misses.append(f"auto {auto / best:.2f}x the better side on {routine} {shape}")
        print(f"| {routine} | {shape} | " + " | ".join(cells)
              + f" | {base_cell} | {ratio_cpu} | {ratio_best} | {side_cell} | {faster} |")
    print()
    for shape, target in (("8192x8192x8192", 30.0), ("4096x4096x4096", 6.0)):
        got = times.get(("sgemm", shape), {}).get("shimblas-gpu")
        if got is not None:
            print(f"- target sgemm {shape} host data in gpu mode <= {target} ms: {got:.2f} ms, "
                  f"{'met' if got <= target else 'MISSED'}")
    for m in misses:
        print(f"- target MISSED: {m}")
    # how far the same CPU BLAS call moves between two processes of the same run: the noise floor
    # under the 1.05x comparisons
    for routine in ("sgemm", "sgemv"):
        spread = [max(t["cpu-blas"], t["cpu-blas@shimblas-auto"]) / min(t["cpu-blas"], t["cpu-blas@shimblas-auto"])
                  for (r, _), t in times.items() if r == routine and "cpu-blas" in t and "cpu-blas@shimblas-auto" in t]
        if spread:
            print(f"- noise: the CPU BLAS's own {routine} time differs between two processes by up to "
                  f"{max(spread):.2f}x (median {sorted(spread)[len(spread) // 2]:.2f}x)")
    for w in wrong_side:
        print(f"- auto chose the slower side: {w}")
    if sides and not wrong_side:
        print("- auto sent every shape where one side is at least 1.5x faster mostly to that side")
    if not misses:
        print("- auto mode within 1.05x of the CPU BLAS and 1.1x of the better side on every shape: met")
    for w in wrong:
        print(f"- WRONG RESULT: {w}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    squares = [s for (r, s) in times if r == "sgemm" and len(set(s.split("x"))) == 1]
    squares.sort(key=lambda s: int(s.split("x")[0]))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for e in main:
        xs = [int(s.split("x")[0]) for s in squares if e in times[("sgemm", s)]]
        ys = [times[("sgemm", s)][e] for s in squares if e in times[("sgemm", s)]]
        ax.plot(xs, ys, marker="o", label=e)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (sgemm n x n x n, host data)")
    ax.set_ylabel("time per call (ms)")
    ax.set_title("sgemm on host data, end to end")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "host_sgemm.png"), dpi=110)


def print_device_tables(routine, header, rows, metric):
    """markdown: the selector against cuBLAS per shape and case, then every variant where it ran"""
    col = {h: i for i, h in enumerate(header)}
    unit = "GB/s" if routine == "sgemv" else "TFLOP/s"
    rate = "gbps" if routine == "sgemv" else "tflops"
    by_case = defaultdict(dict)  # (shape, case) -> variant -> row
    order = []
    for r in rows:
        key = (r[col["shape"]], r[col["case"]])
        if key not in by_case:
            order.append(key)
        by_case[key][r[col["variant"]]] = r
    pct = "% of copy" if metric == "pct_copy" else "% of peak"
    print(f"\n#### {routine}: the selector against cuBLAS\n")
    print(f"| shape | case | cuBLAS {unit} | cuBLAS {pct} | selector's choice | {unit} | {pct} | x cuBLAS | best FP32 variant (x cuBLAS) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key in order:
        vs = by_case[key]
        sel = next((v for v in vs if v.startswith("selected:") or v.startswith("selector")), None)
        cub = vs.get("cublas")
        if not sel or not cub:
            continue
        name = sel.split(":", 1)[1] if ":" in sel else sel[sel.find("[") + 1 : -1]
        s_row = vs[sel]
        # the best of the selector's own class: the tensor-core variants (tf32*) are another arithmetic
        best = max((v for v in vs if v != "cublas" and v != sel and not v.startswith("tf32")
                    and vs[v][col["ratio_cublas"]] not in ("", "-")),
                   key=lambda v: float(vs[v][col["ratio_cublas"]]), default=None)
        best_cell = f"{best} ({float(vs[best][col['ratio_cublas']]):.2f})" if best else "-"
        print(f"| {key[0]} | {key[1]} | {float(cub[col[rate]]):.1f} | {float(cub[col[metric]]):.1f} | {name} | "
              f"{float(s_row[col[rate]]):.1f} | {float(s_row[col[metric]]):.1f} | {float(s_row[col['ratio_cublas']]):.2f} | {best_cell} |")


def device(out_dir, paths):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    for path in paths:
        rows = read_rows(path)
        header, rows = rows[0], rows[1:]
        col = {h: i for i, h in enumerate(header)}
        metric = "pct_copy" if "pct_copy" in col else "pct_peak"
        routine = rows[0][col["routine"]] if rows else os.path.basename(path)
        series = defaultdict(dict)
        labels = []
        for r in rows:
            x = f"{r[col['shape']]} {r[col['case']]}"
            if x not in labels:
                labels.append(x)
            variant = r[col["variant"]]
            if variant.startswith("selected:") or variant.startswith("selector"):
                variant = "selector"  # the selector's choice, whichever variant it was
            try:
                series[variant][x] = float(r[col[metric]])
            except ValueError:
                pass
        print_device_tables(routine, header, rows, metric)
        if plt is None or not labels:
            continue
        fig, ax = plt.subplots(figsize=(max(8, len(labels) * 0.45), 5))
        for v, pts in series.items():
            xs = [i for i, l in enumerate(labels) if l in pts]
            style = dict(marker="o", linestyle="-") if v in ("selector", "cublas") else dict(marker=".", linestyle="")
            ax.plot(xs, [pts[labels[i]] for i in xs], label=v, **style)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=75, fontsize=7)
        ax.set_ylabel("% of measured copy bandwidth" if metric == "pct_copy" else "% of FP32 peak (66.9 TFLOP/s)")
        ax.set_title(f"{routine}, device-resident data")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, f"{routine}_device.png"), dpi=110)


def overhead(paths):
    """one row per call, one column per (situation, CPU BLAS): the median ns the shim adds, with the
    direct call's own ns in parentheses"""
    cells = defaultdict(dict)
    calls, columns = [], []
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(line for line in f if not line.startswith("#")):
                blas = "reference" if os.path.basename(os.path.dirname(r["cpu_blas"])) == "blas" else "OpenBLAS"
                column = (r["situation"], blas)
                if column not in columns:
                    columns.append(column)
                fortran = r["interface"] == "fortran"
                shape = "x".join(r[d] for d in (("m", "n", "k") if r["routine"] == "sgemm" else ("m", "n")))
                call = f"{'' if fortran else 'cblas_'}{r['routine']}{'_' if fortran else ''} {r['trans']} {shape}"
                if call not in calls:
                    calls.append(call)
                cells[call][column] = (float(r["overhead_median_ns"]), float(r["direct_median_ns"]),
                                       r["verdict"] == "ok")
    print("| call | " + " | ".join(f"{s}, {b}" for s, b in columns) + " |")
    print("| --- |" + " ---: |" * len(columns))
    worst = {}
    for call in calls:
        row = []
        for column in columns:
            added, direct, ok = cells[call].get(column, (float("nan"), float("nan"), False))
            row.append(f"{added:+.0f} ({direct:.0f})" + ("" if ok else " **missed**"))
            worst[column] = max(worst.get(column, float("-inf")), added)
        print(f"| {call} | " + " | ".join(row) + " |")
    for column in columns:
        print(f"- {column[0]}, {column[1]}: at most {worst[column]:+.0f} ns per call (median)")


if __name__ == "__main__":
    kind, out_dir, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    if kind == "host":
        host(out_dir, paths[0])
    elif kind == "overhead":
        overhead(paths)
    else:
        device(out_dir, paths)
