#!/usr/bin/env python3
"""Parity rows an RMTP repair needs, by block size: a model of the server's
rule (docs/protocols/rmtp.md, "Repair by parity"), for blocks larger than
GF(2^8) allows. Each round gives each block its worst receiver's lack over
(1 - that receiver's measured loss share); rows are lost independently;
rounds go on until every receiver decodes every block. A block whose need
exceeds its unused rows would fall back to resending: the model reports it.

Checked against the simulator where both run (blocks of 128 and 200, 32
receivers, 10 %): docs/results.md, "RMTP parity: what GF(2^16) would change".
Usage: rmtp_parity_rows.py [receivers] [loss] [seeds]
"""
import random
import statistics
import sys

PACKETS = 2048  # 2 MiB in 1 KiB packets


def block_sizes(block):
    return [min(block, PACKETS - s) for s in range(0, PACKETS, block)]


def repair_rows(block, field, seed, receivers, loss):
    """(rows, rounds), or None if a block runs out of rows."""
    rng = random.Random(seed)
    sizes = block_sizes(block)
    lack = [[sum(rng.random() < loss for _ in range(k)) for k in sizes]
            for _ in range(receivers)]
    share = [sum(lk) / PACKETS for lk in lack]
    used = [0] * len(sizes)
    rows = rounds = 0
    while any(any(lk) for lk in lack):
        rounds += 1
        need = [0] * len(sizes)
        for i in range(receivers):
            keep = 1.0 - min(max(share[i], 0.0), 0.5)
            for b, lost in enumerate(lack[i]):
                if lost:
                    need[b] = max(need[b], int(lost / keep + 0.999))
        before = [sum(lk) for lk in lack]
        for b, k in enumerate(sizes):
            if need[b] > field - k - used[b]:
                return None
            used[b] += need[b]
            rows += need[b]
            for i in range(receivers):
                got = sum(rng.random() >= loss for _ in range(need[b]))
                lack[i][b] = max(0, lack[i][b] - got)
        # the server judges a share only on 16 packets or more
        for i in range(receivers):
            if before[i] >= 16:
                share[i] = sum(lack[i]) / before[i]
    return rows, rounds


def main():
    receivers = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    loss = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
    seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    print("| block | field | rows (median, range) | rounds |")
    print("|---|---|---|---|")
    for block, field in [(128, 256), (200, 256), (224, 256), (512, 65536),
                         (2048, 65536)]:
        runs = [repair_rows(block, field, s, receivers, loss)
                for s in range(1, seeds + 1)]
        name = "GF(2^8)" if field == 256 else "GF(2^16)"
        if any(r is None for r in runs):
            print(f"| {block} | {name} | falls back to resending | - |")
            continue
        rows = [r[0] for r in runs]
        print(f"| {block} | {name} | {statistics.median(rows):.0f} "
              f"({min(rows)}-{max(rows)}) | "
              f"{min(r[1] for r in runs)}-{max(r[1] for r in runs)} |")
    print(f"| ideal code | | {PACKETS * (1 / (1 - loss) - 1):.0f} | |")


if __name__ == "__main__":
    main()
