"""The in-process floor: the same hidden tests on the same notebooks, with no isolation at all.

One process reads every submission, ``exec``s its cells (self-check cells skipped, an error in a cell
recorded and execution going on, as the grader does) into a fresh namespace, and runs the lesson's hidden
suites against that namespace through one :class:`grader.suites.session.SuiteSession` and
:class:`grader.selfcheck.NamespaceTarget`, then scores it with :func:`grader.score.score`. What ``grade
batch`` costs beyond this is the price of isolation (a worker process per notebook and the channel).

Prints one JSON object: timings (``seconds``: each notebook's, read to score) and every learner's score.
Usage: ``python bench/floor.py FOLDER [LESSON]`` (the lesson defaults to decode)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def main(folder: Path, lesson_id: str = "decode") -> dict[str, Any]:
    t0 = time.perf_counter()
    from grader.lessons import load_lesson
    from grader.model import Execution
    from grader.read import read_submission
    from grader.score import score
    from grader.selfcheck import NamespaceTarget
    from grader.suites.session import SuiteSession

    lesson = load_lesson(lesson_id)
    paths = sorted(folder.glob("*.ipynb"))
    t1 = time.perf_counter()
    scores: dict[str, float] = {}
    seconds: dict[str, float] = {}
    exec_seconds = 0.0
    with SuiteSession(lesson) as suites:
        t2 = time.perf_counter()
        for path in paths:
            r0 = time.perf_counter()
            submission = read_submission(path)
            e0 = time.perf_counter()
            namespace: dict[str, object] = {"__name__": "__main__"}
            for cell in submission.cells:
                if cell.skip:
                    continue
                try:
                    exec(compile(cell.source, f"{path.name}[{cell.index}]", "exec"), namespace)
                except Exception:  # noqa: BLE001 - recorded by the grader; the floor just goes on
                    pass
            exec_seconds += time.perf_counter() - e0
            outcomes = suites.run(NamespaceTarget(namespace))
            scores[path.stem] = score(lesson, submission, Execution(isolation="none"), outcomes).score
            seconds[path.stem] = time.perf_counter() - r0
        t3 = time.perf_counter()
    return {
        "notebooks": len(paths),
        "import_s": t1 - t0,
        "session_start_s": t2 - t1,
        "grading_s": t3 - t2,
        "exec_s": exec_seconds,
        "per_notebook_s": (t3 - t2) / max(1, len(paths)),
        "scores": scores,
        "seconds": seconds,
    }


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), *sys.argv[2:3])))
