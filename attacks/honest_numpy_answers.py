"""Honest learners who reach for numpy (request lesson): is the score right and the feedback sensible?
 - itl_from_timestamps = np.diff(times) (an array, not a list: wrong type, should be told so)
 - itl_from_timestamps = np.diff(times).tolist() (right)
 - percentile = float(np.percentile(samples, p)) (right: numpy's default method is the one asked for)
 - percentile = np.percentile(samples, p) (a numpy float64: right)
 - latency_summary with statistics.mean / np.percentile (right)
Usage: python3 attacks/honest_numpy_answers.py
"""
import sys, json
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
cases = {
 "diff_array": ("itl_from_timestamps", "import numpy as np\ndef itl_from_timestamps(times):\n    return np.diff(times)\n"),
 "diff_list": ("itl_from_timestamps", "import numpy as np\ndef itl_from_timestamps(times):\n    return np.diff(times).tolist()\n"),
 "pct_float": ("percentile", "import numpy as np\ndef percentile(samples, p):\n    return float(np.percentile(samples, p))\n"),
 "pct_np": ("percentile", "import numpy as np\ndef percentile(samples, p):\n    return np.percentile(samples, p)\n"),
 "summary_np": ("latency_summary", "import numpy as np, statistics\ndef latency_summary(latencies):\n    return (statistics.mean(latencies), float(np.percentile(latencies, 50)), float(np.percentile(latencies, 99)))\n"),
}
for name, (q, src) in cases.items():
    p, dt = run(["grade", str(write(replace(load("request"), q, src), f"/tmp/h5/numpy/{name}.ipynb")), "--json"])
    r = json.loads(p.stdout)
    bad = [(x["id"], x["score"], x["max_score"], x["feedback"][:2]) for x in r["questions"] if x["score"] != x["max_score"]]
    print(f"  [{name}] total {r['score']}/{r['max_score']}; not full: {bad}")
