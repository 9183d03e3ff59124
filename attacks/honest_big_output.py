"""Honest learners print a lot: a cell that prints a 2-million-element list (~16 MB), a cell that displays a
big value as its last expression, and a loop printing 200,000 lines. Score and reason?
Usage: python3 attacks/honest_big_output.py
"""
import sys, json
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
cases = {
 "print_big_list": "print(list(range(2_000_000)))",
 "display_big_value": "list(range(2_000_000))",
 "many_lines": "for i in range(200_000):\n    print('step', i, i * 0.5)",
 "big_error_message": "raise ValueError('x' * 5_000_000)",
 "many_small_errors": None,
}
for name, src in cases.items():
    nb = load("decode")
    if src is None:
        for i in range(400):
            nb = append(nb, f"assert {i} < 0, 'check {i}: ' + 'the value was not what I expected, see the plot above ' * 60")
    else:
        nb = append(nb, src)
    p, dt = run(["grade", str(write(nb, f"/tmp/h5/bigout/{name}.ipynb")), "--json"])
    r = json.loads(p.stdout)
    print(f"  [{name}] {r['score']}/{r['max_score']} {r['status']} errors[{len(r['errors'])}]: {[e[:250] for e in r['errors'][-1:]]}")
