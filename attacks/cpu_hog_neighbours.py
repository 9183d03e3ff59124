"""A notebook that forks N busy children (each spins for T s, then exits by itself), graded in one batch
next to honest solutions. Do the honest notebooks keep full marks, and how long does the batch take?
(Self-limiting: the children stop after T s whatever the grader does. Everything runs under nice.)
Usage: python3 attacks/cpu_hog_neighbours.py [N] [T] [HONEST]
"""
import sys, json, shutil, pathlib, csv
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
n = int(sys.argv[1]) if len(sys.argv) > 1 else 16
t = float(sys.argv[2]) if len(sys.argv) > 2 else 40
honest = int(sys.argv[3]) if len(sys.argv) > 3 else 6
d = pathlib.Path("/tmp/h5/cpuhog"); shutil.rmtree(d, ignore_errors=True)
subs = d / "subs"
hog = f'''
import os, time
_kids = 0
for _i in range({n}):
    try:
        if os.fork() == 0:
            _end = time.time() + {t}
            while time.time() < _end:
                pass
            os._exit(0)
        _kids += 1
    except OSError as _e:
        break
print("forked", _kids)
'''
write(append(load("decode"), hog), subs / "aaa_hog.ipynb")
for i in range(honest):
    write(load("decode"), subs / f"honest{i}.ipynb")
p, dt = run_watch(["grade", "batch", str(subs), "--out", str(d / "out"), "--lesson", "decode", "--jobs", "2"], timeout=1200)
print(p.stdout_text[-800:])
for row in csv.DictReader(open(d / "out/grades.csv")):
    print(" ", row["learner"], row["score"], row["status"], row["reason"][:200])
