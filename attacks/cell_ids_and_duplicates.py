"""Notebook-structure cases around cell ids and duplicated question cells (decode):
 A. the stub cell 'generate' left untouched, the right answer written in a NEW cell just below (honest):
    full marks expected for generate.
 B. two cells with id 'generate': the first right, the second the untouched stub (raises
    NotImplementedError when called): the notebook's final generate is the stub, 0 expected.
 C. a right answer in a cell whose id is 'check_generate' and tagged nothing; the real 'generate' cell stub.
 D. an answer cell tagged 'self-check' by mistake (not run): the note the learner gets?
 E. the learner redefines check/hint to do real work (a loop) in an answer cell.
Usage: python3 attacks/cell_ids_and_duplicates.py
"""
import sys, json, copy, pathlib
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
sol, stub = load("decode"), load("decode", "notebooks")
right = next("".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in sol["cells"] if c.get("id") == "generate")

def idx(nb, cid):
    return next(i for i, c in enumerate(nb["cells"]) if c.get("id") == cid)

cases = {}
a = copy.deepcopy(stub); a["cells"].insert(idx(a, "generate") + 1, code_cell(right, cid="my-own-cell")); cases["A_new_cell"] = a
b = copy.deepcopy(sol); st = copy.deepcopy(stub["cells"][idx(stub, "generate")]); b["cells"].insert(idx(b, "generate") + 1, st); cases["B_dup_id"] = b
c = copy.deepcopy(stub); cc = next(x for x in c["cells"] if x.get("id") == "check_generate"); cc["source"] = right; cc["metadata"] = {}; cases["C_check_id"] = c
dd = copy.deepcopy(sol); dd["cells"][idx(dd, "generate")]["metadata"]["tags"] = ["self-check"]; cases["D_tagged"] = dd
e = copy.deepcopy(sol); e["cells"].insert(idx(e, "generate") + 1, code_cell("def check(*a, **k):\n    while True: pass\nhint = check\n")); cases["E_check_loop"] = e
for name, nb in cases.items():
    path = write(nb, f"/tmp/h5/cellids/{name}.ipynb")
    p, dt = run(["grade", str(path), "--json"])
    r = json.loads(p.stdout)
    q = next(q for q in r["questions"] if q["id"] == "generate")
    print(f"  [{name}] total={r['score']} status={r['status']} generate={q['score']} {q['status']} {q['feedback'][:1]} errors={r['errors'][:1]}")
