"""SIGTERM to the whole process group of `grade batch`, several times, as GNU `timeout`, systemd, a CI cancel or
`kill -TERM -PGID` do: does the batch exit, and how long after the first signal?
Usage: python3 attacks/sigterm_group.py [DELAYS] [SIGNALS]   e.g. 1,4,8 5   (GRADER_ISOLATION=process|bubblewrap)
"""
import sys, shutil, pathlib, signal, subprocess, time, os
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
delays = [float(x) for x in (sys.argv[1] if len(sys.argv) > 1 else "1,4,8,12").split(",")]
signals = int(sys.argv[2]) if len(sys.argv) > 2 else 5
d = pathlib.Path("/tmp/h5/sigterm_group"); shutil.rmtree(d, ignore_errors=True)
subs = d / "subs"; subs.mkdir(parents=True)
for f in ["ada", "grace", "alan", "katherine", "linus", "barbara", "edsger"]:
    shutil.copy(ROOT / "examples/submissions" / f"{f}.ipynb", subs / f"{f}.ipynb")
for delay in delays:
    out = d / f"out-{delay:g}"
    p = subprocess.Popen(["grade", "batch", str(subs), "--out", str(out), "--lesson", "decode", "--jobs", "2"],
                         env=ENV, cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    time.sleep(delay)
    sent = time.time()
    for _ in range(signals):
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            break
        time.sleep(0.02)
    try:
        _, err = p.communicate(timeout=60)
        print(f"delay {delay:g} s: exit {p.returncode} {time.time() - sent:.1f} s after the first signal; "
              f"stderr: {err.strip().splitlines()[-1:] }")
    except subprocess.TimeoutExpired:
        print(f"delay {delay:g} s: still running 60 s after the first signal (deadlock); kill -9")
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
