"""Hiding a copy from the similarity check: the README says cells longer than 20,000 characters are left
out of the comparison. A copier pads each copied answer cell with a long comment. Run twice: copy as it is
(should be flagged) and padded copy (is it?).  Usage: python3 attacks/similarity_padding.py
"""
import sys, json, shutil, pathlib
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *

answers = {
 "decode_step_seconds": "def decode_step_seconds(param_bytes, bandwidth):\n    seconds_needed = float(param_bytes)\n    seconds_needed = seconds_needed / float(bandwidth)\n    return seconds_needed\n",
 "tokens_per_second": "def tokens_per_second(param_bytes, bandwidth):\n    step = decode_step_seconds(param_bytes, bandwidth)\n    rate = 1.0 / step\n    return rate\n",
 "decode_time": "def decode_time(n_tokens, param_bytes, bandwidth):\n    total = 0.0\n    for _i in range(1):\n        total = total + n_tokens * decode_step_seconds(param_bytes, bandwidth)\n    return total\n",
 "generate": "def generate(next_token, prompt, n):\n    out = [t for t in prompt]\n    count = 0\n    while count < n:\n        nxt = next_token([t for t in out])\n        out = out + [nxt]\n        count += 1\n    return out\n",
 "call_order_is_sequential": "def call_order_is_sequential(next_token, prompt, n):\n    seen = []\n    def spy(seq):\n        seen.append(len(seq))\n        return next_token(seq)\n    generate(spy, prompt, n)\n    want = []\n    k = len(prompt)\n    while len(want) < n:\n        want.append(k)\n        k += 1\n    return seen == want\n",
}
def renamed(src):
    for a, b in [("seconds_needed", "s_n"), ("total", "acc"), ("out", "buf"), ("nxt", "tok"), ("seen", "lens"), ("spy", "rec"), ("want", "exp"), ("count", "c")]:
        src = src.replace(a, b)
    return src

d = pathlib.Path("/tmp/h5/similar"); shutil.rmtree(d, ignore_errors=True)
for mode in ["plain", "padded"]:
    subs = d / mode / "subs"
    for f in ["ada", "grace", "alan", "katherine", "linus"]:
        shutil.copy(ROOT / "examples/submissions" / f"{f}.ipynb", subs.mkdir(parents=True, exist_ok=True) or subs / f"{f}.ipynb")
    src_nb, copy_nb = load("decode"), load("decode")
    for q, a in answers.items():
        src_nb = replace(src_nb, q, a)
        c = renamed(a)
        if mode == "padded":
            c += "\n# " + "padding " * 2600 + "\n"
        copy_nb = replace(copy_nb, q, c)
    write(src_nb, subs / "original.ipynb"); write(copy_nb, subs / "copier.ipynb")
    p, dt = run(["grade", "batch", str(subs), "--out", str(d / mode / "out"), "--lesson", "decode"])
    s = json.loads((d / mode / "out" / "summary.json").read_text())
    print(mode, "similar pairs:", [(x.get("learners") or x.get("pair") or list(x)[:2], x.get("similarity")) for x in s.get("similar", [])])
    g = (d / mode / "out" / "grades.csv").read_text().splitlines()
    print("  ", [l.split(",")[0] + ":" + l.split(",")[4] for l in g[1:]])
