"""Count what the lender costs, deterministically: lender's workers started, solution runs, lent calls, round trips.

Wall time on a shared machine moves with its load; these counts do not. One warm :class:`grader.grader.Grader`
(as a batch's grading process holds) grades the notebooks of a folder in turn, and every lender's worker start,
run of the solution notebook, lent call (answered from the kept results or asked of the lender's worker) and
channel message to or from a lender's worker is counted; the learners' own channel messages are counted beside
them. Usage::

    python3 bench/lender_counts.py SUBMISSIONS [--lesson decode] [--json]

It patches the counted methods in this process only (nothing is changed in the grader); the scores it prints
are the total, so that a change to the lender that changed a grade shows.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from grader.execute import channel, lender, worker
from grader.grader import Grader
from grader.pipeline import GradeOptions, read_for_lesson

COUNTS: Counter[str] = Counter()


def _patch() -> None:
    """Wrap the counted methods; a lender's worker is the one whose submission is the lesson's solution."""
    start, run, ask, send, receive = (
        worker.LearnerProcess.__init__,
        worker.LearnerProcess.run_notebook,
        worker.LearnerProcess.call,
        channel.Endpoint.send,
        channel.Endpoint.receive,
    )
    lenders: set[int] = set()  # ids of the endpoints of lenders' workers

    def counted_start(self: Any, submission: Any, *args: Any, **kwargs: Any) -> None:
        start(self, submission, *args, **kwargs)
        is_lender = submission.path.name.startswith("solution") or "solutions" in submission.path.parts
        COUNTS["lender workers started" if is_lender else "learner workers started"] += 1
        if is_lender:
            lenders.add(id(self._endpoint))

    def counted_run(self: Any) -> Any:
        if id(self._endpoint) in lenders:
            COUNTS["lender solution runs"] += 1
        return run(self)

    def counted_ask(self: Any, *args: Any) -> Any:
        if id(self._endpoint) in lenders:
            COUNTS["lender round trips"] += 1
        return ask(self, *args)

    def counted_send(self: Any, message: Any, deadline: Any = None) -> None:
        COUNTS["lender messages" if id(self) in lenders else "learner messages"] += 1
        send(self, message, deadline)

    def counted_receive(self: Any, deadline: Any = None) -> Any:
        COUNTS["lender messages" if id(self) in lenders else "learner messages"] += 1
        return receive(self, deadline)

    worker.LearnerProcess.__init__ = counted_start  # type: ignore[method-assign]
    worker.LearnerProcess.run_notebook = counted_run  # type: ignore[method-assign]
    worker.LearnerProcess.call = counted_ask  # type: ignore[method-assign]
    channel.Endpoint.send = counted_send  # type: ignore[method-assign]
    channel.Endpoint.receive = counted_receive  # type: ignore[method-assign]
    _patch_lender()


def _patch_lender() -> None:
    call = lender.Lender.call

    def counted_call(self: Any, name: str, args: Any, kwargs: Any) -> Any:
        COUNTS["lent calls"] += 1
        return call(self, name, args, kwargs)

    lender.Lender.call = counted_call  # type: ignore[method-assign]
    renew = getattr(worker.LearnerProcess, "renew", None)
    if renew is not None:  # a lender's worker that serves each learner from a fresh child

        def counted_renew(self: Any) -> None:
            COUNTS["lender renewals (fresh child)"] += 1
            renew(self)

        worker.LearnerProcess.renew = counted_renew  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--lesson", default="decode")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    _patch()
    notebooks = sorted(args.submissions.glob("*.ipynb"))
    options = GradeOptions(lesson=args.lesson)
    total = 0.0
    with Grader(options) as grader:
        for path in notebooks:
            submission, lesson_id = read_for_lesson(path, options)
            before = COUNTS["lender round trips"]
            report = grader.grade(submission, lesson_id)
            COUNTS["notebooks that ask the lender"] += COUNTS["lender round trips"] > before
            total += report.score
    result = {"notebooks": len(notebooks), "total score": round(total, 2), **dict(sorted(COUNTS.items()))}
    per = {k: round(v / max(1, len(notebooks)), 2) for k, v in COUNTS.items()}
    if args.json:
        print(json.dumps({"counts": result, "per notebook": per}, indent=1))
    else:
        for key, value in result.items():
            print(f"{key:>26}: {value}" + (f"  ({per[key]} a notebook)" if key in per else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
