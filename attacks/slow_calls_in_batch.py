"""A batch of the bundled honest examples plus one notebook whose every function call sleeps S s (full
marks): how long does the TA wait, compared with the same batch without it?
Usage: python3 attacks/slow_calls_in_batch.py [S] [JOBS]
"""
import sys, json, shutil, pathlib, csv, time
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
s = float(sys.argv[1]) if len(sys.argv) > 1 else 4.5
jobs = sys.argv[2] if len(sys.argv) > 2 else "2"
d = pathlib.Path("/tmp/h5/slow_batch"); shutil.rmtree(d, ignore_errors=True)
for mode in ["honest-only", "with-slow"]:
    subs = d / mode / "subs"; subs.mkdir(parents=True)
    for f in ["ada", "grace", "alan", "katherine", "linus"]:
        shutil.copy(ROOT / "examples/submissions" / f"{f}.ipynb", subs / f"{f}.ipynb")
    if mode == "with-slow":
        src = f'''
import time as _t, functools as _f
for _name, _obj in list(globals().items()):
    if callable(_obj) and getattr(_obj, "__module__", None) == "__main__" and not _name.startswith("_") and _name not in ("check", "check_all", "hint"):
        def _wrap(fn):
            @_f.wraps(fn)
            def slow(*a, **k):
                _t.sleep({s})
                return fn(*a, **k)
            return slow
        globals()[_name] = _wrap(_obj)
'''
        write(append(load("decode"), src), subs / "mallory.ipynb")
    p, dt = run(["grade", "batch", str(subs), "--out", str(d / mode / "out"), "--lesson", "decode", "--jobs", jobs], timeout=3000)
    print(p.stdout.splitlines()[0] if p.stdout else p.stderr[-500:])
    for row in csv.DictReader(open(d / mode / "out/grades.csv")):
        print("  ", row["learner"], row["score"], row["status"])
