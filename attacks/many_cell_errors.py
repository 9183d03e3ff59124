"""N tiny cells that each raise an exception carrying a 4,000-character message: is the number of
recorded cell errors bounded? Measures the trusted processes' RSS and the size of the batch's outputs.
Usage: python3 attacks/many_cell_errors.py N [MSGLEN]
"""
import sys, json, shutil, pathlib, os
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
m = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
d = pathlib.Path("/tmp/h5/many_errors"); shutil.rmtree(d, ignore_errors=True)
nb = load("decode")
nb = append(nb, f"_msg = 'E' * {m}")
for i in range(n):
    nb["cells"].append(code_cell("raise ValueError(_msg)"))
subs = d / "subs"
write(nb, subs / "mallory.ipynb")
shutil.copy(ROOT / "examples/submissions/ada.ipynb", subs / "ada.ipynb")
print("notebook bytes", (subs / "mallory.ipynb").stat().st_size)
p, dt = run_watch(["grade", "batch", str(subs), "--out", str(d / "out"), "--lesson", "decode"])
print(p.stdout_text[-1500:], p.stderr_text[-1500:])
for f in sorted((d / "out").rglob("*")):
    if f.is_file():
        print(f"  {f.stat().st_size:>12,}  {f.relative_to(d)}")
