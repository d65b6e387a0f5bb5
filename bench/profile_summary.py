#!/usr/bin/env python3
"""Reduces bench/profile_sgemm.sh's raw Nsight Compute CSV to one markdown row per kernel: duration,
clock, SM and FMA-pipe load, issue rate, occupancy, registers, the leading stall reasons, shared-memory
bank conflicts and DRAM/L2 traffic.

    profile_summary.py ncu_raw.csv"""
import csv
import re
import sys

WANT = [  # (column title, metric, scale)
    ("us", "gpu__time_duration.sum", 1e-3),
    ("MHz", "sm__cycles_elapsed.avg.per_second", 1e-6),
    ("grid", "launch__grid_size", 1),
    ("thr", "launch__block_size", 1),
    ("regs", "launch__registers_per_thread", 1),
    ("smem KB", "launch__shared_mem_per_block", 1 / 1024),
    ("SM %", "sm__throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("FMA pipe %", "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", 1),
    ("issue %", "smsp__issue_active.avg.pct_of_peak_sustained_active", 1),
    ("warps/SM", "sm__warps_active.avg.per_cycle_active", 1),
    ("eligible", "smsp__warps_eligible.avg.per_cycle_active", 1),
    ("DRAM %", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("L2 hit %", "lts__t_sector_hit_rate.pct", 1),
    ("LDS conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1),
    ("STS conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 1),
    ("inst", "smsp__inst_executed.sum", 1e-6),
]
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def main(path):
    rows = list(csv.reader(open(path)))
    header, body = None, []
    for r in rows:
        if len(r) > 2 and r[1] == "ID":
            header = r  # ncu repeats its header (and a units row) for every profiled program
            continue
        if header and len(r) == len(header) and number(r[1]) is not None:
            body.append(dict(zip(header, r)) | {"case": r[0]})
    cols = [w for w in WANT if any(w[1] in b for b in body)]
    print("| case | kernel | " + " | ".join(c[0] for c in cols) + " | leading stalls (cycles per issue) |")
    print("| --- | --- |" + " ---: |" * len(cols) + " --- |")
    for b in body:
        name = b.get("Kernel Name", "?")
        name = re.sub(r"\(.*", "", name)[:90]
        cells = []
        for _, metric, scale in cols:
            v = number(b.get(metric, ""))
            cells.append("" if v is None else f"{v * scale:.3g}")
        stalls = sorted(((number(v) or 0.0, STALL.match(k).group(1)) for k, v in b.items() if STALL.match(k)),
                        reverse=True)
        lead = ", ".join(f"{n} {v:.2f}" for v, n in stalls[:4] if v > 0)
        print(f"| {b['case']} | {name} | " + " | ".join(cells) + f" | {lead} |")


if __name__ == "__main__":
    main(sys.argv[1])
