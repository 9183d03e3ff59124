"""The per-notebook cost of each lesson of the chapter, ``grade batch`` side by side with ``nbgrader autograde``.

    python bench/lessons.py                       # every lesson of exercises/chapter.toml, N = 40, 3 repeats
    python bench/lessons.py --lesson request --lesson prefill -n 10 --repeats 2

For each lesson: N submissions generated from its own notebooks and mistakes corpus (``bench/generate.py``,
``--lesson``), graded by ``grade batch SUBMISSIONS --lesson L --out RESULTS --jobs J`` from an empty results folder
each run, and by ``nbgrader autograde L --force`` in a course laid out from the same files
(``bench/nbgrader_course.py``, its venv made once), the repeats interleaved; the scores are compared. It prints a
Markdown table (a row per lesson: per-notebook wall time, min / median / max, for both; the ratio; the machine's CPU
seconds per notebook for both, medians, from ``/proc/stat``, which counts the sandboxed workers a process tree's own
accounting misses; the scores' agreement) and writes every raw run to ``OUT/lessons.json``. It does not touch
RESULTS.md: paste the table into a round there, with the load average it prints (figures taken on a loaded machine
are slower than on an idle one).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import generate  # noqa: E402
import measure  # noqa: E402
import nbgrader_course  # noqa: E402
from run import GRADE, batch_scores, compare_scores, log, series, summary  # noqa: E402


def bench_lesson(lesson: str, n: int, repeats: int, jobs: int, seed: int, out: Path, python: Path) -> dict[str, Any]:
    folder = out / f"lesson-{lesson}"
    shutil.rmtree(folder, ignore_errors=True)
    subs = folder / "submissions"
    learners = generate.generate(n, subs, seed=seed, lesson=lesson)
    kinds = [x.kind for x in learners]
    log(f"{lesson}: {n} submissions { ({k: kinds.count(k) for k in sorted(set(kinds))}) }")
    res = folder / "results"

    def ours(_: int) -> measure.Run:
        shutil.rmtree(res, ignore_errors=True)
        return measure.run([GRADE, "batch", str(subs), "--lesson", lesson, "--out", str(res), "--jobs", str(jobs)])

    course = folder / "nbgrader-course"
    nbgrader_course.lay_out_course(course, {x.id: subs / f"{x.id}.ipynb" for x in learners}, lesson=lesson)
    nbgrader_course.generate_assignment(python, course, folder / "nbgrader.log", lesson=lesson)
    env = nbgrader_course.venv_env()
    command = nbgrader_course.autograde_command(python, course, lesson=lesson)

    def theirs(_: int) -> measure.Run:
        return measure.run(command, cwd=course, env=env)

    # Interleaved (ours, nbgrader, ours, ...): a shared machine's speed drifts by 10% over minutes, and each pair
    # then sees the same drift.
    mine, nbgrader = measure.Series(f"{lesson}: grade batch", per=n), measure.Series(f"{lesson}: nbgrader", per=n)
    for _ in range(repeats):
        mine.runs += series(mine.name, 1, n, ours).runs
        nbgrader.runs += series(nbgrader.name, 1, n, theirs).runs
    batch, theirs_summary = summary(mine), summary(nbgrader)
    scores = {k: float(v["score"]) for k, v in nbgrader_course.scores(python, course, lesson).items()}
    return {
        "lesson": lesson,
        "n": n,
        "mix": {k: kinds.count(k) for k in sorted(set(kinds))},
        "batch": batch,
        "nbgrader": theirs_summary,
        "agreement": compare_scores(batch_scores(res), scores),
    }


def _mmm(values: list[float]) -> str:
    low, mid, high = values
    return f"{low:.3f} s / **{mid:.3f} s** / {high:.3f} s"


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| lesson | N | grade batch: per notebook | nbgrader autograde: per notebook | ratio (median) | "
        "CPU s per notebook (machine), ours / nbgrader | scores agree |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ours, theirs = r["batch"]["per_notebook_s"], r["nbgrader"]["per_notebook_s"]
        cpu_ours = r["batch"]["machine_cpu_s"][1] / r["n"]
        cpu_theirs = r["nbgrader"]["machine_cpu_s"][1] / r["n"]
        agree = r["agreement"]
        lines.append(
            f"| {r['lesson']} | {r['n']} | {_mmm(ours)} | {_mmm(theirs)} | {theirs[1] / ours[1]:.1f}x | "
            f"{cpu_ours:.3f} / {cpu_theirs:.3f} ({cpu_theirs / cpu_ours:.1f}x) | "
            f"{agree.get('agree', '?')} of {agree.get('compared', '?')} |"
        )
    return "\n".join(lines)


def chosen_lessons(given: list[str] | None) -> list[str]:
    """The lessons named with ``--lesson``, else every lesson of the chapter outline, in its order."""
    if given:
        return given
    from grader.lessons import available_lessons, load_outline

    outline = load_outline()
    return [e.id for e in outline.lessons] if outline else available_lessons()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lesson", action="append", help="repeat for several (default: the chapter's lessons)")
    parser.add_argument("-n", type=int, default=40, help="submissions per lesson (default 40)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    args = parser.parse_args()
    lessons = chosen_lessons(args.lesson)
    args.out.mkdir(parents=True, exist_ok=True)
    start = measure.load_average()
    python = nbgrader_course.ensure_venv(args.out / "nbgrader-venv.log")
    nbgrader_course.ensure_kernel(python)
    rows = [bench_lesson(lesson, args.n, args.repeats, args.jobs, args.seed, args.out, python) for lesson in lessons]
    end = measure.load_average()
    (args.out / "lessons.json").write_text(json.dumps({"load_average": [start, end], "rows": rows}, indent=1))
    print(table(rows))
    print(
        f"\nLoad average (1, 5, 15 min) at start: {start}; at end: {end}. N = {args.n}, {args.repeats} repeats, "
        f"--jobs {args.jobs}; medians of per-notebook wall time: "
        f"{statistics.median(r['batch']['per_notebook_s'][1] for r in rows):.3f} s ours."
    )


if __name__ == "__main__":
    main()
