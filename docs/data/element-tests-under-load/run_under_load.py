#!/usr/bin/env python3
"""Runs one gst-check test (or a whole binary) again and again, arms taken in
turn, with the environment meson gives the test; prints one line a run (the
check summary, seconds, load average) and the failures per arm.

usage: run_under_load.py BUILD MESON_TEST CHECK RUNS LOG ARM=BINARY...
  CHECK: a test's name (GST_CHECKS), or 'all' for every test of the binary.
  ARM=BINARY: e.g. old=/tmp/old/element-tpba new=build/tests/check/element-tpba

The load is the caller's: the runs of docs/results.md had three busy loops
(sh -c 'while :; do :; done') beside six other sessions' jobs."""
import json
import os
import re
import subprocess
import sys
import time


def main():
    build, name, check, runs, log = sys.argv[1:6]
    arms = [a.split('=', 1) for a in sys.argv[6:]]
    tests = json.loads(subprocess.check_output(
        ['meson', 'introspect', build, '--tests']))
    test = next(t for t in tests if t['name'] == name)
    env = dict(os.environ, **test['env'])
    if check != 'all':
        env['GST_CHECKS'] = check
    failed = {arm: 0 for arm, _ in arms}
    with open(log, 'a') as f:
        for i in range(int(runs)):
            for arm, binary in arms:
                load = open('/proc/loadavg').read().split()[0]
                start = time.time()
                p = subprocess.run(['nice', '-n', '10', os.path.abspath(binary)],
                                   env=env, cwd=test['workdir'] or build,
                                   capture_output=True, text=True, timeout=600)
                out = p.stdout + p.stderr
                m = re.search(r'Checks: (\d+), Failures: (\d+), Errors: (\d+)', out)
                ok = (p.returncode == 0 and m is not None and m.group(2) == '0'
                      and m.group(3) == '0' and (check == 'all' or m.group(1) == '1'))
                failed[arm] += not ok
                line = '%s run %d rc=%d %s %.1fs load=%s' % (
                    arm, i, p.returncode, m.group(0) if m else 'no-summary',
                    time.time() - start, load)
                print(line, flush=True)
                f.write(line + '\n')
                if not ok:
                    f.write(out[-3000:] + '\n----\n')
                f.flush()
    for arm, _ in arms:
        print('%s: %d failed of %s' % (arm, failed[arm], runs))


if __name__ == '__main__':
    main()
