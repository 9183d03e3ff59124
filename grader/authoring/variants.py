"""Variants of a lesson's solution, graded in one batch: what the mistakes corpus and the mutation audit share.

A variant is the lesson's solution notebook with one more code cell at the end: code that redefines some of
its answers, the way a learner (or a mutation of the solution) would write them. Variants are graded through
the normal ``grade batch`` path, so a variant is graded exactly as a learner's notebook would be, and the
teaching assistant's view of each report (full feedback, expected values kept) comes back.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.environment import SECRET_ENV
from grader.model import Lesson, Params
from grader.params import default_params, describe, draw, every_params

if TYPE_CHECKING:
    from grader.batch.progress import Progress

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


#: The course secret of a batch of variants graded on chosen learner parameters: each variant is named after an
#: identity that this secret draws its parameters for, so the batch grades it on them by the one rule
#: (grader/params.py) and never by a notebook's own copy. Known to all: it grades the instructor's own notebooks.
VARIANTS_SECRET = "variants-of-a-lesson-graded-on-chosen-numbers"


@dataclass(frozen=True)
class Variant:
    """One variant: a name (becomes the learner id, so keep it a safe file stem) and the code of its last cell.

    ``params``: the learner parameters to grade it on, for a lesson with some (() for the lesson page's); the
    notebook is then the solution built on those numbers, and ``code`` should be written for them too."""

    name: str
    code: str
    params: Params = ()
    notebook: Path | None = None
    """A whole notebook graded as it is, instead of the solution with ``code`` appended (``code`` unused): the
    lesson's own notebooks graded in the batch of its variants (the lesson gates grade the untouched one so)."""
    questions: frozenset[str] | None = None
    """Run only these questions' hidden tests (None: every question's): a mutant of one function is judged on
    that function's question alone, and its other questions are the solution's, so grading them proves nothing."""


def variant_notebook(solution: Path | dict[str, Any], code: str) -> dict[str, Any]:
    """The solution notebook's JSON (read from ``solution``, or given) with ``code`` appended as a last code cell."""
    notebook: dict[str, Any] = (
        json.loads(solution.read_text(encoding="utf-8")) if isinstance(solution, Path) else copy.deepcopy(solution)
    )
    notebook["cells"].append(
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": code}
    )
    return notebook


def write_variants(lesson: Lesson, variants: Sequence[Variant], folder: Path) -> list[Path]:
    """Write one notebook per variant into ``folder`` (a flat batch folder); names must be distinct."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    seen: set[str] = set()
    solutions: dict[Params, dict[str, Any]] = {}
    for variant in variants:
        stem = _SAFE.sub("_", variant.name)
        if stem in seen:
            raise ValueError(f"two variants are named {stem!r}; give each a distinct name")
        seen.add(stem)
        base: Path | dict[str, Any] = lesson.solution
        if lesson.params and variant.params:
            stem = named_for(lesson, stem, variant.params)
            if variant.params not in solutions:
                solutions[variant.params] = _solution_on(lesson, variant.params)
            base = solutions[variant.params]
        path = folder / f"{stem}.ipynb"
        if variant.notebook is not None:
            path.write_bytes(variant.notebook.read_bytes())
        else:
            path.write_text(json.dumps(variant_notebook(base, variant.code)), encoding="utf-8")
        paths.append(path)
    return paths


def named_for(lesson: Lesson, stem: str, params: Params) -> str:
    """``stem`` with the first suffix (``stem.p3``) whose identity :data:`VARIANTS_SECRET` draws ``params`` for."""
    if params == draw(lesson, stem, VARIANTS_SECRET.encode()):
        return stem
    for k in itertools.count(1):
        name = f"{stem}.p{k}"
        if draw(lesson, name, VARIANTS_SECRET.encode()) == params:
            return name
        if k > 100 * len(every_params(lesson)):
            break
    raise ValueError(f"no identity draws {describe(params)} for lesson {lesson.id!r}: are they its numbers?")


def _solution_on(lesson: Lesson, params: Params) -> dict[str, Any]:
    """The lesson's solution notebook built on ``params`` (from its source, as a release builds a learner's)."""
    from grader.authoring.build import Owner, build_notebooks, notebook_text, read_source

    built = build_notebooks(read_source(lesson), Owner("variant", params))
    solution: dict[str, Any] = json.loads(notebook_text(built.solution))
    return solution


def _stem_of(lesson: Lesson, variant: Variant) -> str:
    stem = _SAFE.sub("_", variant.name)
    return named_for(lesson, stem, variant.params) if lesson.params and variant.params else stem


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

    if lesson.params:  # each graded on its numbers, the page's by default, whatever secret the course has
        variants = [replace(v, params=v.params or default_params(lesson)) for v in variants]
    options = BatchOptions(
        grading=GradeOptions(lesson=lesson.id, suites=lesson.suites, lessons_root=lessons_root),
        jobs=jobs,
        questions={_stem_of(lesson, v): v.questions for v in variants if v.questions is not None},
    )
    with tempfile.TemporaryDirectory(prefix="grader-variants-") as scratch, _secret(lesson, variants):
        folder = Path(scratch) / "submissions"
        out = Path(scratch) / "results"
        write_variants(lesson, variants, folder)
        run_batch(folder, out, options, progress=progress)
        results: dict[str, dict[str, Any]] = {}
        for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            results[str(row["learner"])] = row
    return {v.name: results[_stem_of(lesson, v)] for v in variants}


@contextmanager
def _secret(lesson: Lesson, variants: Sequence[Variant]) -> Iterator[None]:
    """The batch's course secret is :data:`VARIANTS_SECRET` while variants on chosen numbers are graded (it wins over
    a course's own ``.grader-secret``); a lesson without parameters is graded as any batch is."""
    if not (lesson.params and any(v.params for v in variants)):
        yield
        return
    before = os.environ.get(SECRET_ENV)
    os.environ[SECRET_ENV] = VARIANTS_SECRET
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(SECRET_ENV, None)
        else:
            os.environ[SECRET_ENV] = before
