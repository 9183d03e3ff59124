"""Where one notebook's CPU and time go, per lesson: a grading process's start, the phases of grading each notebook,
the channel's round trips and the costliest hidden tests, with the in-process floor beside them.

    python bench/phases.py                         # every lesson of exercises/chapter.toml, N = 20
    python bench/phases.py --lesson decode -n 40

For each lesson, N submissions are generated from its notebooks and mistakes corpus (``bench/generate.py``) and
graded one after another by one :class:`grader.grader.Grader` in this process, kept to one CPU with its workers,
as a batch's grading process grades them (workers forked from a warm zygote at the best isolation level here). The
grader's own methods are wrapped with timers and counters (an instrument, as ``bench/lender_counts.py`` is:
nothing of ``grader`` changes), so each figure is taken where it happens:

- ``start``: what the process pays before its steady state, from a new Grader to the end of its first notebook
  (pytest and hypothesis imported, the suites collected, the examples loaded, the zygote and the lender's worker
  booted), wall and the machine's CPU;
- per notebook, wall time by phase: ``boot``, the worker's (and the lender's) start (``Workers.boot`` and
  ``Workers.start``); ``cells``, the notebook's cells run in the worker (``LearnerProcess.run_notebook``);
  ``suites``, the hidden tests against the worker (``SuiteSession.run``: test bodies, generated inputs, the
  reference calls, every turn of the channel), of which ``lent`` is the part spent in lent calls (``Lender.call``)
  and ``rerun`` the other-numbers check (``other_numbers``); ``score``, outcomes to a report (``score``);
  ``close``, the notebook's workers ended and swept (``Workers.close``);
- per notebook, CPU: the hidden tests' thread's (``time.thread_time`` around each test: pytest, hypothesis's
  replay, the suites' checks and reference calls, the trusted end of the channel), this process's
  (``time.process_time``) and the machine's (every process's user and system time from ``/proc/stat``: this
  process, the zygote, the workers and the lender's worker, which run in their own namespaces where
  ``RUSAGE_CHILDREN`` does not reach them, and also whatever else runs: take it on a quiet machine; the load
  average is printed); ``worker side`` is the machine's less this process's;
- ``trips``: round trips on the learners' channels per notebook, the tests' requests and the learner's callbacks
  (a stand-in, a lent function) the trusted end answered;
- the costliest tests: the tests' thread's CPU per notebook, with their round trips.

``floor`` is ``bench/floor.py``'s figure for the same files: the same suites on the cells ``exec``'d in one
process, no isolation. ``x floor`` is the machine's CPU over the floor's time, over all N notebooks; the columns
"without the slow one" are the same over every notebook but ``generate.py``'s slow learner, each notebook's machine
CPU taken around its own grading (and the floor's time around its own). That learner's cell spins for a second of
CPU, which both sides pay in full: over N = 40 it is 25 ms of every notebook's average, about half the floor's, so the
ratio over all N reads far lower than what isolation costs a typical notebook. Prints Markdown tables; writes every
raw figure to ``OUT/profile.json``.
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
from measure import machine_cpu_s  # noqa: E402

PHASES = ("boot", "cells", "suites", "lent", "rerun", "score", "close")
TOP_TESTS = 5


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


class Counters:
    """Round trips on the learners' channels, and each hidden test's CPU (its thread's) and round trips."""

    def __init__(self) -> None:
        self.requests = self.callbacks = 0
        self.test_cpu: dict[str, float] = defaultdict(float)
        self.test_trips: dict[str, int] = defaultdict(int)
        self._test = ""

    def wrap(self) -> Callable[[], None]:
        from grader.execute.channel import Endpoint
        from grader.suites.session import _Plugin

        counters, exchange, answer, run = self, Endpoint._exchange, Endpoint.answer, _Plugin._run

        def counted_exchange(endpoint: Endpoint, *args: Any, **kwargs: Any) -> Any:
            if endpoint._guard is not None:  # the trusted end: a test's request, or a lent call to the lender
                counters.requests += 1
                counters.test_trips[counters._test] += 1
            return exchange(endpoint, *args, **kwargs)  # whatever the method takes: a wrapper must change nothing

        def counted_answer(endpoint: Endpoint, *args: Any, **kwargs: Any) -> Any:
            if endpoint._guard is not None:  # a callback the learner's code made
                counters.callbacks += 1
                counters.test_trips[counters._test] += 1
            return answer(endpoint, *args, **kwargs)

        def timed_run(plugin: Any, item: Any, *args: Any, **kwargs: Any) -> Any:
            counters._test, started = item.nodeid, time.thread_time()
            try:
                return run(plugin, item, *args, **kwargs)
            finally:
                counters.test_cpu[item.nodeid] += time.thread_time() - started

        Endpoint._exchange, Endpoint.answer, _Plugin._run = counted_exchange, counted_answer, timed_run  # type: ignore[method-assign]

        def undo() -> None:
            Endpoint._exchange, Endpoint.answer, _Plugin._run = exchange, answer, run  # type: ignore[method-assign]

        return undo


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
    from grader.execute.upkeep import keep_to_one_cpu
    from grader.grader import Grader
    from grader.pipeline import GradeOptions, read_for_lesson

    folder = out / f"profile-{lesson}"
    shutil.rmtree(folder, ignore_errors=True)
    generate.generate(n, folder, seed=seed, lesson=lesson)
    paths = sorted(folder.glob("*.ipynb"))
    options = GradeOptions(lesson=lesson)
    timers, counters = Timers(), Counters()
    keep_to_one_cpu()  # as a batch's grading process: it, its zygote and its workers on one CPU
    machine0, wall0 = machine_cpu_s(), time.perf_counter()
    with Grader(options.for_any_lesson()) as grader:
        grader.warm_soon()  # as a grading process starts (batch/work.py)
        first = read_for_lesson(paths[0], options)[0]
        grader.grade(first, lesson)  # imports, collects, loads the examples: the process's start, not profiled
        start_s, start_cpu = time.perf_counter() - wall0, machine_cpu_s() - machine0
        cpu0, machine0, wall0 = time.process_time(), machine_cpu_s(), time.perf_counter()
        scores: dict[str, float] = {}
        each: dict[str, float] = {}
        undo = counters.wrap()
        try:
            with instrumented(timers):
                for path in paths:
                    before = machine_cpu_s()
                    submission, _ = read_for_lesson(path, options)
                    scores[path.stem] = grader.grade(submission, lesson).score
                    each[path.stem] = machine_cpu_s() - before
                cpu, machine = time.process_time() - cpu0, machine_cpu_s() - machine0
        finally:
            undo()
        wall = time.perf_counter() - wall0
    ground = floor.main(folder, lesson)
    typical = [p.stem for p in paths if p.stem not in _slow_learners(folder)]
    agree = sum(1 for k, v in scores.items() if abs(v - ground["scores"].get(k, float("nan"))) < 1e-9)
    count = len(paths)
    costliest = sorted(counters.test_cpu, key=lambda t: -counters.test_cpu[t])[:TOP_TESTS]
    return {
        "lesson": lesson,
        "n": count,
        "start_s": start_s,
        "start_machine_cpu_s": start_cpu,
        "per_notebook_wall_s": wall / count,
        "per_notebook_tests_cpu_s": sum(counters.test_cpu.values()) / count,
        "per_notebook_cpu_s": cpu / count,
        "per_notebook_machine_cpu_s": machine / count,
        "per_notebook_requests": counters.requests / count,
        "per_notebook_callbacks": counters.callbacks / count,
        "costliest_tests": [
            {"test": t, "cpu_s": counters.test_cpu[t] / count, "trips": counters.test_trips[t] / count}
            for t in costliest
        ],
        "load_average": os.getloadavg(),
        "phases_s": {p: timers.seconds[p] / count for p in PHASES},
        "floor_per_notebook_s": ground["per_notebook_s"],
        "typical_n": len(typical),
        "typical_machine_cpu_s": sum(each[k] for k in typical) / max(1, len(typical)),
        "typical_floor_s": sum(ground["seconds"][k] for k in typical) / max(1, len(typical)),
        "scores_agree_with_floor": f"{agree} of {count}",
    }


def _slow_learners(folder: Path) -> set[str]:
    """The learners ``generate.py`` made slow on purpose (a second of CPU in a cell, in the floor's time too)."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return {x["id"] for x in manifest["learners"] if x["kind"] == "slow"}


def table(rows: list[dict[str, Any]]) -> str:
    ms = 1e3
    head = (
        "| lesson | N | start: wall / CPU | wall | "
        + " | ".join(PHASES)
        + " | CPU: tests | CPU: grading process | CPU: worker side | CPU: machine | trips | floor | x floor "
        + "| without the slow one: CPU / floor | x floor | scores as the floor's |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        phases = " | ".join(f"{r['phases_s'][p] * ms:.0f}" for p in PHASES)
        cpu, process = r["per_notebook_machine_cpu_s"], r["per_notebook_cpu_s"]
        lines.append(
            f"| {r['lesson']} | {r['n']} | {r['start_s'] * ms:.0f} / {r['start_machine_cpu_s'] * ms:.0f} | "
            f"{r['per_notebook_wall_s'] * ms:.0f} | {phases} | {r['per_notebook_tests_cpu_s'] * ms:.0f} | "
            f"{process * ms:.0f} | {(cpu - process) * ms:.0f} | {cpu * ms:.0f} | "
            f"{r['per_notebook_requests']:.0f} + {r['per_notebook_callbacks']:.0f} | "
            f"{r['floor_per_notebook_s'] * ms:.0f} | {cpu / r['floor_per_notebook_s']:.1f}x | "
            f"{r['typical_machine_cpu_s'] * ms:.0f} / {r['typical_floor_s'] * ms:.0f} | "
            f"**{r['typical_machine_cpu_s'] / r['typical_floor_s']:.1f}x** | {r['scores_agree_with_floor']} |"
        )
    lines.append(
        "\n(milliseconds; start once per grading process, the rest per notebook; trips: the tests' requests + the "
        "learner's callbacks; 'x floor' is the machine's CPU over the floor's time, over all N notebooks; 'without the "
        "slow one': the same over the notebooks other than generate.py's slow learner, whose second of CPU in a cell "
        "both sides pay and which is most of the floor's time over N = 40; load average at the end: "
        f"{rows[-1]['load_average'] if rows else '?'})\n\nThe costliest tests (the tests' thread's CPU per notebook, "
        "and their round trips):\n"
    )
    for r in rows:
        tests = "; ".join(
            f"{t['test'].split('::')[-1]} {t['cpu_s'] * ms:.1f} ms ({t['trips']:.0f} trips)"
            for t in r["costliest_tests"]
        )
        lines.append(f"- {r['lesson']}: {tests}")
    return "\n".join(lines)


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
