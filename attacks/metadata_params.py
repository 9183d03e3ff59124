"""One notebook's metadata stopped the class (issue 29, item 4): `metadata.grader.params` in one learner's
notebook, in a course with no secret (as the repository ships). Before: `grade batch` exited 1 before grading
anyone ("create a secret"). Now: the honest learner is graded; `{"a": 1}` (no release writes it) is graded on the
page's numbers; a set the lesson gives other than the page's is refused alone, with a note.
Usage: python3 attacks/metadata_params.py [OUT]
"""
import json, pathlib, sys
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import ENV, load, run, write
from grader.lessons import load_lesson
from grader.params import default_params, every_params

top = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/h5/metadata")
lesson = load_lesson("decode")
other = next(dict(p) for p in every_params(lesson) if p != default_params(lesson))
for who, params in (("ada", None), ("eve", {"a": 1}), ("mal", other)):
    nb = load("decode")
    if params is not None:
        nb["metadata"].setdefault("grader", {})["params"] = params
    write(nb, top / "class" / f"{who}.ipynb")
env = {k: v for k, v in ENV.items() if k != "GRADER_COURSE_SECRET"}
p, _ = run(["grade", "batch", str(top / "class"), "--lesson", "decode", "--out", str(top / "results"), "--jobs", "1"],
           env=env)
print(p.stdout[-2000:], p.stderr[-1500:])
