#!/usr/bin/env python3
"""The parity decoder's symbols in the perf record samples, summed per arm
(ms a receiver, mean over receivers and runs). Usage: record_decode_syms.py DIR"""
import collections
import os
import re
import subprocess
import sys

from record_split import GROUPS, MS

DECODE = GROUPS[0][1]


def main():
    d = sys.argv[1]
    arms = collections.defaultdict(collections.Counter)
    files = collections.Counter()
    for f in sorted(os.listdir(d)):
        m = re.match(r"(.*)-(\d+)-r(\d+)\.data$", f)
        if not m:
            continue
        files[m[1]] += 1
        out = subprocess.run(["perf", "report", "-i", os.path.join(d, f),
                              "--stdio", "-n", "--sort", "symbol"],
                             capture_output=True, text=True).stdout
        for ln in out.splitlines():
            s = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[\.\]\s+(\S+)", ln)
            if s and DECODE.search(s[2]):
                arms[m[1]][s[2]] += int(s[1])
    for arm, syms in arms.items():
        print(f"\n{arm}: {files[arm]} receiver runs\n")
        print("| symbol | ms a receiver |\n|---|---|")
        for sym, n in syms.most_common():
            print(f"| {sym} | {n * MS / files[arm]:.2f} |")


if __name__ == "__main__":
    main()
