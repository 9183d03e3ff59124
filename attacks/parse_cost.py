"""A notebook built to be expensive to parse in the batch's own process (it has no memory limit): nbformat_minor
4.0, a float, keeps it off the fast path, so nbformat reads and validates what it holds. `metadata`: ~3.95 million
`{}` in the notebook's metadata (16 MB, under the value cap); `outputs`: 1.8 million bogus outputs (47 MB).
With `v3`, the same junk in an nbformat 3 notebook (upgraded by nbformat, so read, not refused).
Writes the notebook and parses it as the batch does, one process per case, under /usr/bin/time -v.
Usage: python3 attacks/parse_cost.py [metadata|outputs] [OUT_FOLDER] [v3]
"""
import json, pathlib, subprocess, sys
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import ROOT, ENV, load

case = sys.argv[1] if len(sys.argv) > 1 else "metadata"
out = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/h5/parse")
out.mkdir(parents=True, exist_ok=True)
nb = load("decode")
nb["nbformat_minor"] = 4.0
if case == "metadata":
    nb["metadata"]["junk"] = [{}] * 3_950_000
else:
    first = next(c for c in nb["cells"] if c["cell_type"] == "code")
    first["outputs"] = [{"output_type": "x"}] * 1_800_000
v3 = len(sys.argv) > 3 and sys.argv[3] == "v3"
if v3:  # nbformat 3: one worksheet, code cells' source under "input"
    cells = [dict(c, input=c.pop("source"), language="python") if c["cell_type"] == "code" else c
             for c in (dict(c) for c in nb.pop("cells"))]
    for c in cells:
        c.pop("id", None), c.pop("execution_count", None)
    nb.update(nbformat=3, nbformat_minor=0, worksheets=[{"cells": cells, "metadata": {}}])
path = out / f"{case}{'-v3' if v3 else ''}.ipynb"
path.write_text(json.dumps(nb, separators=(",", ":")))
print(f"{path}: {path.stat().st_size / 1e6:.1f} MB")
code = (
    "import sys, pathlib; from grader.read import parse_submission\n"
    "p = pathlib.Path(sys.argv[1])\n"
    "try:\n    s = parse_submission(p.read_bytes(), p); print('read', len(s.cells), 'code cells')\n"
    "except Exception as e:\n    print(type(e).__name__, e)\n"
)
r = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                   env=ENV, cwd=ROOT)
print(r.stdout.strip())
for line in r.stderr.splitlines():
    if any(k in line for k in ("Elapsed (wall", "Maximum resident", "User time")):
        print(" ", line.strip())
