#!/usr/bin/env python3
"""Issue 13, item 4, on the group transport: with 40 ms of one-way delay and
no loss, parity of the redundant phase comes after its first packets were
delivered and left the FEC store; at the switch out of the redundant phase
the receiver rebuilt them and delivered them a second time, counted as
recovered. tpsssink streams L16 (1000 packets/s) to tpsssrc across a link
that delays but drops nothing (one packet in 10^6 at most).

Passes when the receiver delivered exactly what was offered (no packet
twice) and recovered nothing (nothing was lost)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
from test_tpss_burst_loss import run_mode  # noqa: E402


def main():
    netbed.require_or_skip(nfq=True)
    with netbed.NetBed() as bed:
        snd, rcv = bed.host("snd"), bed.host("rcv")
        bed.link(snd, rcv, "10.77.4.1/24", "10.77.4.2/24")
        r = run_mode(bed, snd, rcv, "tpss", seconds=6, every=1_000_000,
                     burst=1, delay_ms=40)
    print(f"offered={r['offered']} delivered={r['delivered']} "
          f"recovered={r['recovered']} raw-lost={r['raw_lost']} "
          f"parity={r['parity']} impairment-dropped={r['dropped']}")
    if r["stderr"]:
        print(r["stderr"])
    check = netbed.Checks()
    check("parity was sent (redundant phase)", r["parity"] > 0,
          f"{r['parity']}")
    check("the link dropped nothing", r["dropped"] == 0, f"{r['dropped']}")
    check("every packet delivered once", r["delivered"] == r["offered"],
          f"{r['delivered']} of {r['offered']}")
    check("nothing recovered (nothing was lost)", r["recovered"] == 0,
          f"{r['recovered']}")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
