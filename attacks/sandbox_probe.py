"""What can learner code see inside the worker sandbox? Raises the findings as a cell error, which the
report shows in `errors`.  Usage: python3 attacks/sandbox_probe.py [ISOLATION] [PYCODE-EXPR-LIST]
"""
import sys, json
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
iso = sys.argv[1] if len(sys.argv) > 1 else "bubblewrap"
src = r'''
import os, sys, glob
_r = []
_r.append("cwd=" + os.getcwd() + " uid=%d" % os.getuid())
_r.append("path=" + repr(sys.path[:4]))
for _d in ["/", "/work", "/work/wt", "/work/wt/hostile5", "/work/wt/hostile5/exercises", "/work/wt/hostile5/exercises/prefill", "/work/wt/.cache", "/work/wt/.cache/hostile5", "/root", "/tmp", os.getcwd()]:
    try:
        _r.append(_d + ": " + ",".join(sorted(os.listdir(_d))[:25]))
    except Exception as _e:
        _r.append(_d + ": " + type(_e).__name__)
try:
    import grader, grader.selfcheck
    _r.append("grader at " + grader.__file__)
except Exception as _e:
    _r.append("no grader " + repr(_e))
_r.append("env=" + ",".join(sorted(os.environ)))
'''
nb = append(load("prefill", "notebooks"), src)
for i in range(40):
    nb = append(nb, f"raise RuntimeError(_r[{i}][:300]) if {i} < len(_r) else None")
path = write(nb, f"/tmp/h5/probe/probe.ipynb")
p, dt = run(["grade", str(path), "--json"], env=dict(ENV, GRADER_ISOLATION=iso))
r = json.loads(p.stdout)
print(r["isolation"])
for e in r["errors"]:
    print(e.replace(" | ", "\n  "))
