"""Scan: for every answer cell of every lesson, the solution with just that cell put back to the learner's
stub (and, separately, deleted). Any OTHER question that loses points breaks "one bug costs once".
Usage: python3 attacks/stub_one_costs_others.py [LESSON...]
"""
import sys, json, copy
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
lessons = sys.argv[1:] or ["request", "prefill", "decode"]
for lesson in lessons:
    sol, stub = load(lesson), load(lesson, "notebooks")
    qids = [c["id"] for c in sol["cells"] if c["cell_type"] == "code" and not c["metadata"].get("tags") and not c["id"].startswith("co_")]
    for q in qids:
        for mode in ("stub", "deleted"):
            nb = copy.deepcopy(sol)
            i = next(i for i, c in enumerate(nb["cells"]) if c.get("id") == q)
            if mode == "stub":
                nb["cells"][i] = copy.deepcopy(next(c for c in stub["cells"] if c.get("id") == q))
            else:
                del nb["cells"][i]
            write(nb, f"/tmp/h5/stubscan/{lesson}-{q}-{mode}.ipynb")
            import subprocess
            out = subprocess.run(["nice", "-n", "10", "grade", f"/tmp/h5/stubscan/{lesson}-{q}-{mode}.ipynb", "--json"],
                                 capture_output=True, text=True, env=ENV, cwd=ROOT).stdout
            r = json.loads(out)
            others = [(x["id"], x["score"], x["max_score"], x["feedback"][:1]) for x in r["questions"] if x["id"] != q and x["score"] != x["max_score"]]
            if others:
                print(f"  COSTS TWICE [{lesson}] {q} {mode}: {others}")
    print(f"  [{lesson}] scanned {len(qids)} questions")
