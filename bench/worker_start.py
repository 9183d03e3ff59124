"""Worker start: a spawned worker (a new interpreter, as a single cold ``grade``) against one forked from
the grader's real zygote (``grader/execute/zygote.py``, as ``grade batch`` and the warm daemon do), both
started through execute's door, a ``Runner``, as every grading process starts them.

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
from grader.execute.runner import Runner  # noqa: E402
from grader.read import read_submission  # noqa: E402


def _stats(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def _life(submission, runner: Runner) -> tuple[float, bool]:  # type: ignore[no-untyped-def]
    """Seconds of one worker's whole life, and whether it was forked."""
    t = time.perf_counter()
    with runner.workers() as workers:
        worker = workers.start(submission)
        worker.run_notebook()
        worker.call("tokens_per_second", [14e9, 1e12], {}, {})
        forked = worker.forked
    return time.perf_counter() - t, forked


def main(n: int) -> dict[str, object]:
    os.environ.pop("GRADER_WORKERS", None)
    submission = read_submission(REPO / "solutions" / "decode.ipynb")
    bare = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t)
    cold = Runner(DEFAULT_LIMITS, DEFAULT_MODE, fork=False)
    try:
        spawned = [_life(submission, cold) for _ in range(n)]
    finally:
        cold.close()
    assert not any(forked for _, forked in spawned), "a runner that must not fork forked a worker"
    spawn = [seconds for seconds, _ in spawned]
    warm = Runner(DEFAULT_LIMITS, DEFAULT_MODE)
    try:
        t = time.perf_counter()
        warm.warm()
        boot = time.perf_counter() - t
        lives = [_life(submission, warm) for _ in range(n)]
    finally:
        warm.close()
    if not all(forked for _, forked in lives):
        return {"bare_python_s": _stats(bare), "spawn_worker_s": _stats(spawn), "fork_worker_s": None,
                "zygote_boot_s": None, "note": "no zygote here (no bubblewrap, or GRADER_WORKERS=spawn)"}
    fork = [seconds for seconds, _ in lives]
    return {"bare_python_s": _stats(bare), "spawn_worker_s": _stats(spawn), "zygote_boot_s": boot, "fork_worker_s": _stats(fork)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10)
    args = parser.parse_args()
    print(json.dumps(main(args.n)))
