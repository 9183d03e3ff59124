"""Where one notebook's time goes, per lesson: the phases of grading, with the in-process floor beside them.

    python bench/phases.py                         # every lesson of exercises/chapter.toml, N = 20
    python bench/phases.py --lesson decode -n 40

For each lesson, N submissions are generated from its notebooks and mistakes corpus (``bench/generate.py``) and
graded one after another by one warm :class:`grader.grader.Grader` in this process, as a batch's grading
process grades them (workers forked from a warm zygote at the best isolation level here). The grader's own
methods are wrapped with timers (an instrument, as ``bench/lender_counts.py`` is: nothing of ``grader`` changes),
so each phase's wall time is measured where it happens:

- ``boot``: the worker's (and the lender's) start for the notebook (``Workers.boot`` and ``Workers.start``);
- ``cells``: the notebook's cells run in the worker (``LearnerProcess.run_notebook``);
- ``suites``: the hidden tests against the worker (``SuiteSession.run``: test bodies, generated inputs, the
  reference calls, every turn of the channel), of which ``lent`` is the part spent in lent calls
  (``Lender.call``) and ``rerun`` the other-numbers check (``other_numbers``);
- ``score``: outcomes to a report (``score``);
- ``close``: the notebook's workers ended and swept (``Workers.close``).

CPU, per notebook: this process's (``time.process_time``: the suites, pytest, hypothesis, scoring), and the
machine's (every process's user and system time from ``/proc/stat``: this process, the zygote, the workers and
the lender's worker, which run in their own namespaces where ``RUSAGE_CHILDREN`` does not reach them, and also
whatever else runs: take it on a quiet machine; the load average is printed).
``floor`` is ``bench/floor.py``'s figure for the same files: the same suites on the cells ``exec``'d in one
process, no isolation. Prints a Markdown table; writes every raw figure to ``OUT/profile.json``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import floor  # noqa: E402
import generate  # noqa: E402
from lessons import chosen_lessons  # noqa: E402

PHASES = ("boot", "cells", "suites", "lent", "rerun", "score", "close")


class Timers:
    """Wall seconds per phase, summed over notebooks; a phase inside another is counted in both."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def wrap(self, owner: Any, name: str, phase: str) -> Callable[[], None]:
        """Time every call of ``owner.name`` as ``phase``; returns the undo."""
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[phase] += time.perf_counter() - start

        setattr(owner, name, timed)
        return lambda: setattr(owner, name, original)


@contextmanager
def instrumented(timers: Timers) -> Iterator[None]:
    import grader.params as params
    import grader.pipeline as pipeline
    from grader.execute import lender, runner, worker
    from grader.suites.session import SuiteSession

    undo = [
        timers.wrap(runner.Workers, "boot", "boot"),
        timers.wrap(runner.Workers, "start", "boot"),
        timers.wrap(worker.LearnerProcess, "run_notebook", "cells"),
        timers.wrap(SuiteSession, "run", "suites"),
        timers.wrap(lender.Lender, "call", "lent"),
        timers.wrap(params, "other_numbers", "rerun"),
        timers.wrap(pipeline, "score", "score"),
        timers.wrap(runner.Workers, "close", "close"),
    ]
    try:
        yield
    finally:
        for step in reversed(undo):
            step()


def profile_lesson(lesson: str, n: int, seed: int, out: Path) -> dict[str, Any]:
    from grader.grader import Grader
    from grader.pipeline import GradeOptions, read_for_lesson

    folder = out / f"profile-{lesson}"
    shutil.rmtree(folder, ignore_errors=True)
    generate.generate(n, folder, seed=seed, lesson=lesson)
    paths = sorted(folder.glob("*.ipynb"))
    options = GradeOptions(lesson=lesson)
    timers = Timers()
    with Grader(options.for_any_lesson()) as grader:
        t0 = time.perf_counter()
        grader.warm(lesson)  # suites collected, a zygote booted: what a batch pays once per process
        warm_s = time.perf_counter() - t0
        first = read_for_lesson(paths[0], options)[0]
        grader.grade(first, lesson)  # the first notebook also records or loads the examples: not profiled
        cpu0, machine0, wall0 = time.process_time(), machine_cpu_s(), time.perf_counter()
        scores: dict[str, float] = {}
        with instrumented(timers):
            for path in paths:
                submission, _ = read_for_lesson(path, options)
                scores[path.stem] = grader.grade(submission, lesson).score
            cpu, machine = time.process_time() - cpu0, machine_cpu_s() - machine0
        wall = time.perf_counter() - wall0
    ground = floor.main(folder, lesson)
    agree = sum(1 for k, v in scores.items() if abs(v - ground["scores"].get(k, float("nan"))) < 1e-9)
    return {
        "lesson": lesson,
        "n": len(paths),
        "warm_s": warm_s,
        "per_notebook_wall_s": wall / len(paths),
        "per_notebook_cpu_s": cpu / len(paths),
        "per_notebook_machine_cpu_s": machine / len(paths),
        "load_average": os.getloadavg(),
        "phases_s": {p: timers.seconds[p] / len(paths) for p in PHASES},
        "floor_per_notebook_s": ground["per_notebook_s"],
        "scores_agree_with_floor": f"{agree} of {len(paths)}",
    }


def machine_cpu_s() -> float:
    """Seconds of CPU every process of the machine has used since boot (user, nice, system, irq, softirq)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]
    user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields)
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def table(rows: list[dict[str, Any]]) -> str:
    ms = 1e3
    head = "| lesson | N | wall | CPU: grader | CPU: machine | " + " | ".join(PHASES) + " | floor | x floor |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        phases = " | ".join(f"{r['phases_s'][p] * ms:.0f}" for p in PHASES)
        cpu = r["per_notebook_machine_cpu_s"]
        lines.append(
            f"| {r['lesson']} | {r['n']} | {r['per_notebook_wall_s'] * ms:.0f} | {r['per_notebook_cpu_s'] * ms:.0f} | "
            f"{cpu * ms:.0f} | {phases} | {r['floor_per_notebook_s'] * ms:.0f} | "
            f"{cpu / r['floor_per_notebook_s']:.1f}x |"
        )
    return "\n".join(lines) + (
        "\n\n(milliseconds per notebook; 'x floor' is the machine's CPU over the floor's time; load average "
        f"at the end: {rows[-1]['load_average'] if rows else '?'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lesson", action="append", help="repeat for several (default: the chapter's lessons)")
    parser.add_argument("-n", type=int, default=20, help="submissions per lesson (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    args = parser.parse_args()
    lessons = chosen_lessons(args.lesson)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [profile_lesson(lesson, args.n, args.seed, args.out) for lesson in lessons]
    (args.out / "profile.json").write_text(json.dumps(rows, indent=1))
    print(table(rows))


if __name__ == "__main__":
    main()
