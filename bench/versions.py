"""One notebook, cold and warm, graded by two checkouts of the grader side by side, interleaved.

    git worktree add /tmp/before 56713a5
    python bench/versions.py NOTEBOOK /tmp/before .          # 11 runs of each, cold and warm
    python bench/versions.py NOTEBOOK /tmp/before . --python /tmp/rv/bin/python   # in a README install's venv

A machine's speed drifts by 10% over minutes, so a change to ``grade NOTEBOOK`` is measured against the code before
it in one sitting, each run of one next to a run of the other. Each checkout runs with ``PYTHONPATH`` at its tree
(the daemon it starts and its workers import from there too), its own lessons (``TREE/exercises``) and its own daemon
folder (``XDG_RUNTIME_DIR``); it is run as its ``grade`` script would run it (``grader.__main__.run`` where the tree
has one, else ``grader.cli.main``), by this interpreter or ``--python``'s: a learner's ``grade`` runs in the venv
the README's first command makes (``pip install .``), whose start differs from a development venv's (an editable
install's import hook, whatever ``.pth`` files the machine's Python adds to a ``--system-site-packages`` venv).
Each tree's daemon is started and warmed before the first timed run and stopped
at the end. Prints, per tree, cold (``GRADER_DAEMON=off``) and warm (a ready daemon) wall times, min / median /
max in milliseconds, and the scores seen (they must be one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _entry(tree: Path) -> str:
    """The ``grade`` script of ``tree``, as ``python -c`` code."""
    name = "run" if (tree / "grader" / "__main__.py").exists() else "main"
    module = "grader.__main__" if name == "run" else "grader.cli"
    return f"import sys; sys.argv[0] = 'grade'; from {module} import {name}; {name}()"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("trees", type=Path, nargs="+", help="checkouts of this repository to compare")
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--warm-up", type=float, default=8.0, help="seconds a started daemon gets to warm up")
    parser.add_argument(
        "--python", default=sys.executable, help="the interpreter to run each tree with (default: this one)"
    )
    args = parser.parse_args()
    trees = [t.resolve() for t in args.trees]
    notebook = str(args.notebook.resolve())
    folders = {tree: tempfile.mkdtemp(prefix="bv-") for tree in trees}  # short: a socket path has at most 107 bytes
    # Every run starts in an empty folder: `python -c` puts its working directory first on sys.path, so run from a
    # checkout it would import that checkout's grader whatever PYTHONPATH says (round 14's sittings did).
    neutral = tempfile.mkdtemp(prefix="bv-cwd-")

    def env(tree: Path, daemon: str) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(tree),
            "GRADER_LESSONS": str(tree / "exercises"),
            "XDG_RUNTIME_DIR": folders[tree],
            "GRADER_DAEMON": daemon,
        }

    def grade(tree: Path, daemon: str, *extra: str) -> tuple[float, subprocess.CompletedProcess[str]]:
        started = time.perf_counter()
        done = subprocess.run(
            [args.python, "-c", _entry(tree), *extra],
            capture_output=True,
            text=True,
            env=env(tree, daemon),
            cwd=neutral,
        )
        return time.perf_counter() - started, done

    for tree in trees:  # each tree's runs import that tree's grader, and nothing else's
        where = subprocess.run(
            [args.python, "-c", "import grader; print(grader.__file__)"],
            capture_output=True,
            text=True,
            env=env(tree, "off"),
            cwd=neutral,
            check=True,
        ).stdout.strip()
        if not Path(where).is_relative_to(tree):
            raise SystemExit(f"{tree}: its runs would import the grader at {where}, not the tree's")

    for tree in trees:
        # Each tree's bytecode compiled first, as `pip install` compiles an installed package's: a tree without it (a
        # new worktree, where PYTHONDONTWRITEBYTECODE is set) would compile every module it imports in every run.
        subprocess.run([args.python, "-m", "compileall", "-q", str(tree / "grader")], check=True)
    for tree in trees:  # cold, and starts the daemon the warm runs use
        grade(tree, "on", notebook, "--json")
    time.sleep(args.warm_up)
    times: dict[tuple[Path, str], list[float]] = {(t, m): [] for t in trees for m in ("cold", "warm")}
    scores = set()
    try:
        for _ in range(args.repeats):
            for tree in trees:
                for kind, daemon in (("cold", "off"), ("warm", "on")):
                    seconds, done = grade(tree, daemon, notebook, "--json")
                    if done.returncode != 0:
                        raise SystemExit(f"{tree}: grade failed ({done.returncode}): {done.stderr[-500:]}")
                    times[(tree, kind)].append(seconds)
                    scores.add(json.loads(done.stdout)["score"])
    finally:
        for tree in trees:
            grade(tree, "on", "daemon", "stop")
    for (tree, kind), values in times.items():
        low, mid, high = (1000 * v for v in (min(values), statistics.median(values), max(values)))
        print(f"{tree} {kind}: {low:.0f} / {mid:.0f} / {high:.0f} ms")
    print(f"scores: {sorted(scores)}; load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
