"""A lent call with a big argument: ttft_seconds calls the lent prefill_flops with a list of N ints.
The argument must cross from the learner's worker to wherever the reference runs (through the trusted
process?). Measures every process's peak RSS.  Usage: python3 attacks/lent_call_big_argument.py N [REPEAT]
"""
import sys, json
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
rep = int(sys.argv[2]) if len(sys.argv) > 2 else 1
src = f'''
_big = list(range({n}))
def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    for _ in range({rep}):
        try:
            prefill_flops(_big, 1)
        except BaseException as e:
            pass
    return 2 * n_params * prompt_len / (peak_flops * utilisation)
'''
nb = replace(load("prefill"), "ttft_seconds", src)
path = write(nb, f"/tmp/h5/lent_big/ttft_{n}.ipynb")
p, dt = run_watch(["grade", str(path), "--json"])
try:
    r = json.loads(p.stdout_text)
    print("score", r["score"], "/", r["max_score"], r["status"])
    for q in r["questions"]:
        if q["id"] in ("ttft_seconds",):
            print(" ", q["id"], q["score"], q["status"], q["feedback"][:2])
    print("errors", r["errors"][:3])
except Exception:
    print(p.stdout_text[-2000:], p.stderr_text[-2000:])
