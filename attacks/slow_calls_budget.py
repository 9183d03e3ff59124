"""Every function answer is right but sleeps S seconds per call: how long does grading take in total?

Probes whether there is a per-notebook budget for the hidden tests' calls (not only a per-call deadline).
Usage: python3 attacks/slow_calls_budget.py LESSON SECONDS [sleep|busy]
"""
import sys, json
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *

lesson = sys.argv[1] if len(sys.argv) > 1 else "prefill"
s = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
mode = sys.argv[3] if len(sys.argv) > 3 else "sleep"   # sleep | busy (burn CPU instead of sleeping)
nb = load(lesson)
src = f'''
import time as _t, functools as _f
for _name, _obj in list(globals().items()):
    if callable(_obj) and getattr(_obj, "__module__", None) == "__main__" and not _name.startswith("_") and _name not in ("check", "check_all", "hint"):
        def _wrap(fn):
            @_f.wraps(fn)
            def slow(*a, **k):
                if "{mode}" == "busy":
                    _end = _t.perf_counter() + {s}
                    while _t.perf_counter() < _end:
                        pass
                else:
                    _t.sleep({s})
                return fn(*a, **k)
            return slow
        globals()[_name] = _wrap(_obj)
'''
nb = append(nb, src)
path = write(nb, f"/tmp/h5/slow/{lesson}-{mode}-{s}.ipynb")
p, dt = run_watch(["grade", str(path), "--json"], timeout=3000)
try:
    r = json.loads(p.stdout_text)
    print("score", r["score"], "/", r["max_score"], r["status"])
    for q in r["questions"]:
        print(" ", q["id"], q["score"], q["status"], q["feedback"][:1])
    print("errors", r["errors"][:3])
except Exception:
    print(p.stdout_text[-2000:], p.stderr_text[-2000:])
