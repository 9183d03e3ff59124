"""Variants of a lesson's solution, graded in one batch: what the mistakes corpus and the mutation audit share.

A variant is the lesson's solution notebook with one more code cell at the end: code that redefines some of
its answers, the way a learner (or a mutation of the solution) would write them. Variants are graded through
the normal ``grade batch`` path, so a variant is graded exactly as a learner's notebook would be, and the
teaching assistant's view of each report (full feedback, expected values kept) comes back.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.model import Lesson

if TYPE_CHECKING:
    from grader.batch.progress import Progress

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class Variant:
    """One variant: a name (becomes the learner id, so keep it a safe file stem) and the code of its last cell."""

    name: str
    code: str


def variant_notebook(solution: Path, code: str) -> dict[str, Any]:
    """The solution notebook's JSON with ``code`` appended as a last code cell."""
    notebook: dict[str, Any] = json.loads(solution.read_text(encoding="utf-8"))
    notebook["cells"].append(
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": code}
    )
    return notebook


def write_variants(lesson: Lesson, variants: Sequence[Variant], folder: Path) -> list[Path]:
    """Write one notebook per variant into ``folder`` (a flat batch folder); names must be distinct."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    seen: set[str] = set()
    for variant in variants:
        stem = _SAFE.sub("_", variant.name)
        if stem in seen:
            raise ValueError(f"two variants are named {stem!r}; give each a distinct name")
        seen.add(stem)
        path = folder / f"{stem}.ipynb"
        path.write_text(json.dumps(variant_notebook(lesson.solution, variant.code)), encoding="utf-8")
        paths.append(path)
    return paths


def grade_variants(
    lesson: Lesson,
    variants: Sequence[Variant],
    *,
    lessons_root: Path | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> dict[str, dict[str, Any]]:
    """Grade every variant in one batch; each variant's name maps to its ``results.jsonl`` object.

    The object is the one ``grade --json`` prints plus ``learner``: ``score``, ``status``, and per question
    ``id``, ``score``, ``max_score``, ``status`` and ``feedback`` (the teaching assistant's full feedback).
    They are graded against ``lesson.suites`` (a private copy when the lesson was loaded with one).
    ``progress`` hears of each graded variant, as ``grade batch``'s bar does.
    """
    from grader.batch import BatchOptions, run_batch
    from grader.pipeline import GradeOptions

    options = BatchOptions(
        grading=GradeOptions(lesson=lesson.id, suites=lesson.suites, lessons_root=lessons_root), jobs=jobs
    )
    with tempfile.TemporaryDirectory(prefix="grader-variants-") as scratch:
        folder = Path(scratch) / "submissions"
        out = Path(scratch) / "results"
        write_variants(lesson, variants, folder)
        run_batch(folder, out, options, progress=progress)
        results: dict[str, dict[str, Any]] = {}
        for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            results[str(row["learner"])] = row
    return {v.name: results[_SAFE.sub("_", v.name)] for v in variants}
