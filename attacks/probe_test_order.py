"""Probe: in which order are the questions' hidden tests run, and does the worker (its globals) persist
across questions? Every function answer logs its name in a worker global and returns the log so far (a
wrong answer), which the feedback shows.  Usage: python3 attacks/probe_test_order.py LESSON
"""
import sys, json
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
lesson = sys.argv[1] if len(sys.argv) > 1 else "decode"
src = '''
import functools as _f
_LOG = []
for _name, _obj in list(globals().items()):
    if callable(_obj) and getattr(_obj, "__module__", None) == "__main__" and not _name.startswith("_") and _name not in ("check", "check_all", "hint"):
        def _wrap(name):
            def logged(*a, **k):
                if not _LOG or _LOG[-1] != name:
                    _LOG.append(name)
                return "|".join(_LOG)
            return logged
        globals()[_name] = _wrap(_name)
'''
p, dt = run(["grade", str(write(append(load(lesson), src), f"/tmp/h5/order/{lesson}.ipynb")), "--json"])
r = json.loads(p.stdout)
for q in r["questions"]:
    if q["feedback"] and "returned" in q["feedback"][0]:
        print(f"  {q['id']}: {q['feedback'][0][:400]}")
