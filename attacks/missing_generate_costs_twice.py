"""One bug costs twice: the solution with only `generate` missing (cell tagged self-check, or left as the
stub, or deleted) also loses points on call_order_is_sequential, whose own answer is right.
Usage: python3 attacks/missing_generate_costs_twice.py
"""
import sys, json, copy
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
sol, stub = load("decode"), load("decode", "notebooks")
def idx(nb, cid):
    return next(i for i, c in enumerate(nb["cells"]) if c.get("id") == cid)
cases = {}
n = copy.deepcopy(sol); n["cells"][idx(n, "generate")] = copy.deepcopy(stub["cells"][idx(stub, "generate")]); cases["stub"] = n
n = copy.deepcopy(sol); del n["cells"][idx(n, "generate")]; cases["deleted"] = n
n = replace(sol, "generate", "def generate(next_token, prompt, n):\n    return None\n"); cases["returns_None"] = n
n = replace(sol, "generate", "def generate(next_token, prompt, n):\n    return list(prompt) + [next_token(list(prompt)) for _ in range(n)]\n"); cases["wrong_same_seq"] = n
for name, nb in cases.items():
    p, dt = run(["grade", str(write(nb, f"/tmp/h5/twice/{name}.ipynb")), "--json"])
    r = json.loads(p.stdout)
    qs = {q["id"]: q for q in r["questions"]}
    c = qs["call_order_is_sequential"]
    print(f"  [{name}] generate={qs['generate']['score']} ({qs['generate']['status']}); call_order_is_sequential={c['score']}/{c['max_score']} ({c['status']}): {c['feedback'][:2]}")
