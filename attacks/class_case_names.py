"""`grade class` on a class folder whose learners differ only in case / Unicode form.
request/: 'ada' (solution) and 'Ada' (untouched) ; decode/: 'Ada' (solution) ; prefill/: NFD 'jose\u0301' (solution)
and NFC 'jos\u00e9' (untouched) in decode. Are the feedback files / rows kept apart in a way that survives a
case-insensitive filesystem (macOS, Windows, a zip opened there)?  Usage: python3 attacks/class_case_names.py
"""
import sys, json, shutil, pathlib, csv, unicodedata
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
d = pathlib.Path("/tmp/h5/class_case"); shutil.rmtree(d, ignore_errors=True)
c = d / "class"
write(load("request"), c / "request" / "ada.ipynb")
write(load("request", "notebooks"), c / "request" / "Ada.ipynb")
write(load("decode"), c / "decode" / "Ada.ipynb")
write(load("prefill"), c / "prefill" / (unicodedata.normalize("NFD", "josé") + ".ipynb"))
write(load("decode", "notebooks"), c / "decode" / (unicodedata.normalize("NFC", "josé") + ".ipynb"))
p, dt = run(["grade", "class", str(c), "--out", str(d / "out")])
print(p.stdout[-2500:]); print(p.stderr[-1500:])
for row in csv.reader(open(d / "out/chapter/chapter.csv")):
    print(row)
for f in sorted((d / "out").rglob("feedback/*.html")):
    print(" ", f.relative_to(d))
lower = {}
for f in (d / "out").rglob("*"):
    lower.setdefault(str(f).lower(), []).append(str(f))
print("paths that collide on a case-insensitive filesystem:", [v for v in lower.values() if len(v) > 1])
