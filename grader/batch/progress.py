"""What a person sees of a batch: a bar with an ETA on a terminal (plain lines otherwise: CI, logs), then a summary."""

from __future__ import annotations

import sys
from typing import IO, Protocol

from grader.report.rows import STATUSES, BatchSummary, Row
from grader.text import num, plain


class Progress(Protocol):
    """What a batch reports while it runs; the library never prints by itself."""

    def start(self, total: int) -> None: ...

    def done(self, row: Row, skipped: bool = False) -> None: ...

    def stop(self) -> None: ...


class NoProgress:
    def start(self, total: int) -> None:
        pass

    def done(self, row: Row, skipped: bool = False) -> None:
        pass

    def stop(self) -> None:
        pass


def describe(row: Row, skipped: bool = False) -> str:
    """``ada: graded 28/28``, ``bob: timed-out``, with `` (unchanged, skipped)`` for rows kept from before."""
    if row.status == "graded" and row.max_score is not None:
        text = f"{row.learner}: graded {num(row.score)}/{num(row.max_score)}"
    else:
        text = f"{row.learner}: {row.status}"
    return plain(text + (" (unchanged, skipped)" if skipped else ""))


class LineProgress:
    """``[3/8] ada: graded 28/28``: one line per notebook, for logs and pipes."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream or sys.stderr
        self._total = 0
        self._count = 0

    def start(self, total: int) -> None:
        self._total = total

    def done(self, row: Row, skipped: bool = False) -> None:
        self._count += 1
        print(f"[{self._count}/{self._total}] {describe(row, skipped)}", file=self._stream, flush=True)

    def stop(self) -> None:
        pass


class BarProgress:
    """A rich progress bar with elapsed time and ETA, for a terminal."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        self._bar = RichProgress(
            TextColumn("grading"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.description}", markup=False),
            console=Console(stderr=True),
        )
        self._task = self._bar.add_task("", total=None)

    def start(self, total: int) -> None:
        self._bar.start()
        self._bar.update(self._task, total=total)

    def done(self, row: Row, skipped: bool = False) -> None:
        self._bar.update(self._task, advance=1, description=describe(row, skipped))

    def stop(self) -> None:
        self._bar.stop()


def progress_for(stream: IO[str] | None = None) -> Progress:
    """A bar when ``stream`` (default stderr) is a terminal, plain lines otherwise."""
    stream = stream or sys.stderr
    return BarProgress() if stream.isatty() else LineProgress(stream)


def format_summary(summary: BatchSummary) -> str:
    """What ``grade batch`` prints at the end: one line (what this run graded, what it kept, how the rows ended,
    the mean score), then its notes and where the results are."""
    from collections import Counter

    counts = Counter(r.status for r in summary.rows)
    scored = [r for r in summary.rows if r.max_score]
    line = (
        f"{len(summary.rows)} submissions ({summary.layout}): {summary.graded} graded now, "
        f"{summary.skipped} unchanged and kept, "
        f"in {summary.seconds:.1f} s; of the {len(summary.rows)}: "
        + ", ".join(f"{counts[s]} {_STATUS_WORDS[s]}" for s in STATUSES)
    )
    if scored:  # the scores grades.csv and the import hold: after any late penalty, and said when there is one
        mean = sum(r.final_score / (r.max_score or 1) for r in scored) / len(scored)
        penalised = any(r.lateness is not None and r.lateness.points_off for r in scored)
        line += f"; mean score {mean:.0%} of the maximum" + (" after the late penalty" if penalised else "")
    lines = [line + "."]
    lines += [f"  note: {note}" for note in summary.notes]
    lines.append(
        f"Results in {summary.out}: grades.csv, results.jsonl, feedback/, summary.html, summary.json, gradebook.sqlite"
    )
    return "\n".join(lines)


#: How the one summary line words each status: "graded" there means "graded now", so a row that ran says so.
_STATUS_WORDS = {"graded": "ran to the end", "timed-out": "timed out", "crashed": "crashed", "unreadable": "unreadable"}
