"""Worker start: a spawned worker (a new interpreter, as a single cold ``grade``) against one forked from
the grader's real zygote (``grader/execute/zygote.py``, as ``grade batch`` and the warm daemon do).

Each sample is the whole life of one learner's worker: start it, run the solution notebook's cells, answer
one call, and close it (for a forked one: the zygote's sweep included). Same isolation level for both (the
strongest available here). Prints one JSON object: seconds, min / median / max over ``--n`` workers, and the
zygote's one-time boot.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from grader.config import DEFAULT_LIMITS, DEFAULT_MODE  # noqa: E402
from grader.execute.process import Spawned  # noqa: E402
from grader.execute.worker import LearnerProcess  # noqa: E402
from grader.execute.zygote import Zygote  # noqa: E402
from grader.read import read_submission  # noqa: E402


def _stats(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def _life(submission, zygote: Zygote | None) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    worker = LearnerProcess(submission, DEFAULT_LIMITS, DEFAULT_MODE, zygote)
    try:
        worker.run_notebook()
        worker.call("tokens_per_second", [14e9, 1e12], {}, {})
        forked = not isinstance(worker._os, Spawned)
    finally:
        worker.close()
    assert forked == (zygote is not None), "the worker was not started the way it was asked"
    return time.perf_counter() - t


def main(n: int) -> dict[str, object]:
    os.environ.pop("GRADER_WORKERS", None)
    submission = read_submission(REPO / "solutions" / "decode.ipynb")
    bare = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t)
    spawn = [_life(submission, None) for _ in range(n)]
    t = time.perf_counter()
    zygote = Zygote.start(DEFAULT_LIMITS, DEFAULT_MODE)
    boot = time.perf_counter() - t
    if zygote is None:
        return {"bare_python_s": _stats(bare), "spawn_worker_s": _stats(spawn), "fork_worker_s": None,
                "zygote_boot_s": None, "note": "no zygote here (no bubblewrap, or GRADER_WORKERS=spawn)"}
    try:
        fork = [_life(submission, zygote) for _ in range(n)]
    finally:
        zygote.close()
    return {"bare_python_s": _stats(bare), "spawn_worker_s": _stats(spawn), "zygote_boot_s": boot, "fork_worker_s": _stats(fork)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10)
    args = parser.parse_args()
    print(json.dumps(main(args.n)))
