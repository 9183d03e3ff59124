"""What a warm "zygote" worker would save: spawn a fresh worker vs fork one from a pre-imported parent.

Not the grader's code (isolation lives in ``grader/execute/``); a measurement for the proposal in
RESULTS.md. Both ways end with an IPython shell that has run the solution notebook's cells:

- ``spawn``: ``python -I`` + import the worker + IPython + make the shell + run the cells (today's worker);
- ``fork``: a parent that already imported IPython forks; the child makes a fresh shell and runs the cells.

Prints one JSON object with the per-worker seconds (min / median / max over ``--n`` workers).
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

CHILD = """
import sys, json
sys.path.insert(0, {repo!r})
from grader.execute.worker_main import _make_shell
shell = _make_shell()
for source in json.load(open({cells!r})):
    shell.run_cell(source, store_history=False)
"""


def _cells(tmp: Path) -> Path:
    nb = json.loads((REPO / "solutions" / "decode.ipynb").read_text(encoding="utf-8"))
    cells = [
        c["source"] if isinstance(c["source"], str) else "".join(c["source"])
        for c in nb["cells"]
        if c["cell_type"] == "code" and "self-check" not in c.get("metadata", {}).get("tags", [])
    ]
    path = tmp / "cells.json"
    path.write_text(json.dumps(cells))
    return path


def _stats(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def main(n: int, tmp: Path) -> dict[str, object]:
    tmp.mkdir(parents=True, exist_ok=True)
    cells = _cells(tmp)
    code = CHILD.format(repo=str(REPO), cells=str(cells))
    bare, spawn = [], []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", code], check=True, stdout=subprocess.DEVNULL)
        spawn.append(time.perf_counter() - t)

    sys.path.insert(0, str(REPO))
    t = time.perf_counter()
    import IPython.core.interactiveshell  # noqa: F401 - the zygote's one-time import
    from grader.execute.worker_main import _make_shell  # noqa: F401

    zygote_import = time.perf_counter() - t
    sources = json.loads(cells.read_text())
    fork = []
    for _ in range(n):
        t = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # the child: what a forked worker would do before answering calls
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                shell = _make_shell()
                for source in sources:
                    shell.run_cell(source, store_history=False)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        fork.append(time.perf_counter() - t)
    return {
        "bare_python_s": _stats(bare),
        "spawn_worker_s": _stats(spawn),
        "zygote_import_once_s": zygote_import,
        "fork_worker_s": _stats(fork),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--tmp", type=Path, default=REPO / "bench" / "out" / "zygote")
    args = parser.parse_args()
    print(json.dumps(main(args.n, args.tmp)))
