#!/usr/bin/env python3
"""Issue 20: what the retried RELs to given-up members cost when the member
is dead. The "killed" transfer of tests/net/test_rmtp_transfer.py (2 MB, 4
receivers, 1 % loss, receiver 2 killed 1 s after the sender's start), the
sink with gone-rel-retries=0 (none, as before) and the default (3),
alternated run by run. Prints one line a run: the sink's time (rmtp-done
seconds), the last surviving receiver's EOS from the sender's start, the
counts and gone-rel-sent.

Run as root from the worktree, GST_PLUGIN_PATH set to the build's gst/rmtp:
  python3 docs/data/rmtp-gone-rel/ab_killed.py PAIRS"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "net"))
import netbed  # noqa: E402
import test_rmtp_transfer as t  # noqa: E402

ARMS = (("gone-rel-retries=0", "&gone-rel-retries=0"), ("default (3)", ""))


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    tmp = tempfile.mkdtemp(prefix="rmtp-gone-rel-")
    src = os.path.join(tmp, "in.bin")
    with open(src, "wb") as f:
        f.write(os.urandom(t.SIZE))
    digest = t.sha256(src)
    with netbed.NetBed() as bed:
        _, snd, hosts, loss = t.build_bed(bed, t.RECEIVERS)
        for imp in loss:
            imp.change(percent=1)
        for i in range(pairs):
            for label, extra in ARMS:
                name = f"run{i}-{len(extra)}"
                tx, rxs, t0 = t.transfer(hosts, snd, src, tmp, name, kill=1,
                                         extra=extra)
                done, st = t.done_message(tx), t.last_stats(tx)
                alive = [rx for j, rx in enumerate(rxs) if j != 1]
                whole = all(t.sha256(rx["out"]) == digest for rx in alive)
                last = max(rx["ended"] - t0 for rx in alive)
                print(f"{label}: sink {float(done.get('seconds', 'nan')):.2f} s, "
                      f"last survivor EOS {last:.2f} s, complete "
                      f"{done.get('receivers-complete')}, failed "
                      f"{done.get('receivers-failed')}, gone-rel-sent "
                      f"{st.get('gone-rel-sent')}, rel-sent {st.get('rel-sent')}, "
                      f"whole {whole}", flush=True)


if __name__ == "__main__":
    main()
