#!/usr/bin/env python3
"""The library's code folders are the stages of a call, and dependencies run one way: a file
includes only headers of its own folder or of folders below it. Order, top to bottom:
compat (generated forwarders) and src/api (entry points), src/flow, src/cost, src/gpu, kernels,
src/cpu, src/util, include (the public header). Prints every include that points up and fails."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
order = ["compat", "src/api", "src/flow", "src/cost", "src/gpu", "kernels", "src/cpu", "src/util", "include"]
level = {folder: i for i, folder in enumerate(order)}
level["compat"] = level["src/api"]  # the same stage: the ABI

def folder_of(path):
    rel = os.path.relpath(path, root)
    for folder in order:
        if rel == folder or rel.startswith(folder + "/"):
            return folder
    return None

headers = {}
for folder in order:
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for name in files:
            if name.endswith((".h", ".cuh", ".inc")):
                headers.setdefault(name, []).append(os.path.join(dirpath, name))

bad = 0
checked = 0
for folder in order:
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for name in files:
            if not name.endswith((".c", ".h", ".cu", ".cuh", ".S")):
                continue
            path = os.path.join(dirpath, name)
            here = folder_of(path)
            for line_no, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                checked += 1
                target = os.path.basename(m.group(1))
                where = [folder_of(p) for p in headers.get(target, [])]
                if not where:
                    continue  # a system header or one of the build's own
                if os.path.dirname(path) in [os.path.dirname(p) for p in headers.get(target, [])]:
                    continue  # its own folder
                up = [w for w in where if level[w] < level[here]]
                if len(up) == len(where):
                    print(f"FAIL: {os.path.relpath(path, root)}:{line_no} ({here}) includes {target} ({where[0]}), a stage above it")
                    bad += 1
print(f"{checked} includes checked, {bad} pointing up")
sys.exit(1 if bad else 0)
