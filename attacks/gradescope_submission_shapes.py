"""Gradescope submissions as learners really upload them, graded by `grade gradescope --root`:
 - macOS zip junk beside the notebook (__MACOSX/._decode.ipynb, an AppleDouble file)
 - a Jupyter checkpoint copy (.ipynb_checkpoints/decode-checkpoint.ipynb) uploaded with the folder
 - a symbolic link decode.ipynb -> the solution on the autograder's disk
 - submission_metadata.json with odd content (read at all?)
Usage: python3 attacks/gradescope_submission_shapes.py
"""
import sys, json, shutil, pathlib, os
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
base = pathlib.Path("/tmp/h5/gs"); shutil.rmtree(base, ignore_errors=True)

def case(name, build):
    root = base / name
    (root / "submission").mkdir(parents=True); (root / "results").mkdir()
    build(root)
    p, dt = run(["grade", "gradescope", "--root", str(root), "--lesson", "decode"])
    r = json.loads((root / "results/results.json").read_text())
    print(f"  [{name}] score={r.get('score')} output={r.get('output', '')[:220]!r}")

sol = load("decode")
def macosx(root):
    write(sol, root / "submission/decode.ipynb")
    (root / "submission/__MACOSX").mkdir()
    (root / "submission/__MACOSX/._decode.ipynb").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")
def checkpoint(root):
    write(sol, root / "submission/decode.ipynb")
    write(load("decode", "notebooks"), root / "submission/.ipynb_checkpoints/decode-checkpoint.ipynb")
def symlink(root):
    os.symlink(ROOT / "solutions/decode.ipynb", root / "submission/decode.ipynb")
def metadata(root):
    write(load("decode", "notebooks"), root / "submission/decode.ipynb")
    (root / "submission_metadata.json").write_text(json.dumps({"users": [{"name": "x" * 10**6}], "assignment": {"title": "\u202e"}}))
for n, b in [("macosx", macosx), ("checkpoint", checkpoint), ("symlink", symlink), ("metadata", metadata)]:
    case(n, b)
