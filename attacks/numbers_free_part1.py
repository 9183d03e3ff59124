"""Carried credit for a numbers-free Part 1 (issue 29, item 7): kv_cache `token_bytes = 1`, `budget_gb = -1e-300`,
`sequences_fit = -1` earned sequences_fit's 2 points on every learner's numbers (floor of a tiny negative is -1).
Now an earlier answer no set of the lesson's numbers could give (its sign, integrality, magnitude) carries nothing.
Usage: python3 attacks/numbers_free_part1.py [OUT]
"""
import json, pathlib, sys
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import load, replace, run, write

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/h5/part1")
nb = load("kv_cache")
for cid, src in (("token_bytes", "token_bytes = 1"), ("budget_gb", "budget_gb = -1e-300"),
                 ("sequences_fit", "sequences_fit = -1")):
    nb = replace(nb, cid, src)
p, _ = run(["grade", str(write(nb, out / "kv_cache.ipynb")), "--json"])
report = json.loads(p.stdout)
for q in report["questions"]:
    if q["id"] in ("token_bytes", "budget_gb", "sequences_fit"):
        print(f"  {q['id']}: {q['score']}/{q['max_score']} {q['feedback'][0][:160]}")
