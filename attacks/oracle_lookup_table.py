"""Feedback as an oracle: the hidden tests' inputs are the same on every run (derandomized, replayed), and a
function question's feedback shows the failing call and its expected result. A learner who cannot write the
function loops `grade` locally, adding each revealed (input -> expected) pair to a lookup table, until the
table alone passes. Then hands in the table.  Usage: python3 attacks/oracle_lookup_table.py LESSON QUESTION [MAX_RUNS]
"""
import sys, json, re, ast
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
lesson, q = sys.argv[1], sys.argv[2]
max_runs = int(sys.argv[3]) if len(sys.argv) > 3 else 40
sol = load(lesson)
cell = next(c for c in sol["cells"] if c.get("id") == q)
sig = re.search(r"def \w+\((.*?)\):", "".join(cell["source"])).group(1)
table = {}
def g6(x):
    return float(f"{x:.6g}") if isinstance(x, (int, float)) and not isinstance(x, bool) else x
pat = re.compile(re.escape(q) + r"\((.*?)\) returned .*?expected ([-+0-9.e]+)")
for i in range(max_runs):
    src = f'''
_TABLE = {table!r}
def _g6(x):
    return float(f"{{x:.6g}}") if isinstance(x, (int, float)) and not isinstance(x, bool) else x
def {q}({sig}):
    key = repr(tuple(_g6(v) for v in ({sig},)))
    if key in _TABLE:
        return _TABLE[key]
    return -1000.0 - (hash(key) % 997)
'''
    nb = replace(sol, q, src)
    p, dt = run(["grade", str(write(nb, f"/tmp/h5/oracle/{lesson}-{q}.ipynb")), "--json"])
    r = json.loads(p.stdout)
    qq = next(x for x in r["questions"] if x["id"] == q)
    print(f"run {i}: table {len(table)} entries -> {qq['score']}/{qq['max_score']} {qq['feedback'][-1]}")
    if qq["score"] == qq["max_score"]:
        break
    new = 0
    for fb in qq["feedback"]:
        for m in pat.finditer(fb):
            try:  # positional or keyword arguments, mapped onto the signature
                args = eval(f"(lambda {sig}: ({sig},))({m.group(1)})", {})
            except Exception:
                continue
            key = repr(tuple(g6(v) for v in args))
            val = ast.literal_eval(m.group(2))
            if table.get(key) != val:
                table[key] = val; new += 1
    if not new:
        print("no new pair revealed:", qq["feedback"][:2]); break
print("final table:", table)
