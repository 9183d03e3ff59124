"""Build every artefact of a lesson from its one source: ``grade build exercises/decode``.

An author writes one plain-text notebook, ``exercises/<lesson>/<lesson>.py`` in jupytext's percent format
(reviewers diff text, not JSON; the file runs as a script, with the solution). In it, an answer cell names
its question in the cell's metadata and marks the answer as nbgrader does::

    # %% question="decode_time"
    def decode_time(n_tokens, param_bytes, bandwidth):
        \"\"\"...\"\"\"
        ### BEGIN SOLUTION
        return n_tokens * decode_step_seconds(param_bytes, bandwidth)
        ### END SOLUTION

The learner gets the stub in place of the solution region: ``raise NotImplementedError(...)`` at the
region's indentation, or the author's own ``### STUB <line>`` lines (``### STUB x = None  # in GB``), which
the solution leaves out. Cells tagged ``self-check`` are for the learner and never graded. A cell that is only
``# %% include="chapter"`` stands for the chapter's reference section, ``chapter_reference.py`` beside the
lesson folders: authored once for the whole chapter, its cells are put there in every lesson that marks a
place for them, so the section is the same on every lesson. That is all an author writes; the builder adds the
rest:

- the learner notebook (``lesson.notebook``): lesson text, stubs, and one ``check("<question>")`` cell after
  each answer cell; no grader internals;
- the solution notebook (``lesson.solution``): the same cells with the solutions;
- an nbgrader source notebook (``exercises/<lesson>/nbgrader/<name>.ipynb``): nbgrader's metadata on every
  cell, the solution regions kept for ``generate_assignment`` to clear, and one autograder test cell per
  question, all at the end, so every answer cell has run before any test (an answer may call a function
  defined further down, as ``grade`` allows);
- the Gradescope autograder zip (:mod:`grader.integrations.gradescope_bundle`), into an output folder: it
  holds this package's source, so it is built for a release, not committed.

Cell ids are derived from the cells themselves, so the same source always gives the same bytes: a test
compares a fresh build with the committed notebooks.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import nbformat

from grader.config import SKIP_TAG
from grader.errors import LessonError
from grader.integrations.nbgrader import grade_cell_id
from grader.model import Lesson, Params
from grader.params import as_dict, default_params, render
from grader.service.protocol import METADATA_KEY, ServiceMetadata

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
STUB = "### STUB"
#: The folder, inside a lesson's, of its nbgrader source notebook.
NBGRADER_FOLDER = "nbgrader"
#: The value of a cell's ``include`` metadata that stands for the chapter's reference section, and its file,
#: beside the lesson folders (and chapter.toml): one source, included by every lesson that marks the place.
CHAPTER_INCLUDE = "chapter"
CHAPTER_REFERENCE = "chapter_reference.py"
#: The prefix of the included cells' ids, so a reader (and a test) can tell the chapter's cells from the lesson's.
CHAPTER_ID_PREFIX = "chapter_"
_NB_METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}
_NBGRADER_VERSION = 3
#: nbformat has no type hints: its notebooks are plain dict-like nodes.
_nbf: Any = nbformat
Notebook = Any


class LessonSourceError(LessonError):
    """The lesson's source notebook does not say what the builder needs: the message names the cell."""


@dataclass(frozen=True)
class SourceCell:
    """One cell of the lesson source as the author wrote it."""

    kind: Literal["markdown", "code"]
    source: str
    question: str | None
    tags: tuple[str, ...]
    hidden: bool = False
    """The author's ``jupyter={"source_hidden": true}``: JupyterLab shows the cell's output, its code folded."""
    chapter: bool = False
    """Included from the chapter's reference section, not written in the lesson's own source."""


@dataclass(frozen=True)
class LessonSource:
    lesson: Lesson
    path: Path
    cells: tuple[SourceCell, ...]


@dataclass(frozen=True)
class Artefacts:
    """The three notebooks built from one source, before they are written."""

    learner: Notebook
    solution: Notebook
    nbgrader: Notebook


def source_path(lesson: Lesson) -> Path:
    return lesson.root / f"{lesson.id}.py"


def nbgrader_path(lesson: Lesson) -> Path:
    return lesson.root / NBGRADER_FOLDER / lesson.notebook.name


def chapter_reference_path(lesson: Lesson) -> Path:
    """The chapter's reference section, beside the lesson folders (where ``chapter.toml`` is)."""
    return lesson.root.parent / CHAPTER_REFERENCE


def _read_cells(path: Path, reference: Path | None) -> list[SourceCell]:
    """The cells of one percent-format file, each checked, the chapter's ``reference`` section in place of its
    include cell; ``reference`` None: this is that section."""
    import jupytext

    nb = jupytext.read(path, fmt="py:percent")
    chapter = reference is None
    cells: list[SourceCell] = []
    for index, cell in enumerate(nb.cells, 1):
        if cell.cell_type not in ("markdown", "code"):
            raise LessonSourceError(
                f"{path.name}, cell {index}: only markdown and code cells are supported, not {cell.cell_type}."
            )
        question = cell.metadata.get("question")
        tags = tuple(str(t) for t in cell.metadata.get("tags", ()))
        hidden = bool(cell.metadata.get("jupyter", {}).get("source_hidden", False))
        include = cell.metadata.get("include")
        if chapter and (include is not None or question is not None):
            raise LessonSourceError(
                f"{path.name}, cell {index}: the chapter's reference section is the same on every lesson, so it "
                "can hold neither a question nor an include; put those in a lesson's own source."
            )
        cells.append(
            SourceCell(cell.cell_type, cell.source, None if question is None else str(question), tags, hidden, chapter)
        )
        _check_cell(path.name, index, cells[-1])
        if include is not None and reference is not None:
            cells[-1:] = _included(f"{path.name}, cell {index}", cell.source, include, reference)
    return cells


def _included(where: str, source: str, include: object, reference: Path) -> list[SourceCell]:
    """The chapter's reference cells in place of the marker cell ``# %% include="chapter"``."""
    if include != CHAPTER_INCLUDE or source.strip():
        raise LessonSourceError(
            f'{where}: an include cell is the line # %% include="{CHAPTER_INCLUDE}" and nothing else '
            f"(got include={include!r}{' and some text' if source.strip() else ''})."
        )
    if not reference.is_file():
        raise LessonSourceError(
            f"{where} includes the chapter's reference section, but there is no {reference}: write it there "
            "(jupytext's percent format, like a lesson source), or remove the include cell."
        )
    return _read_cells(reference, None)


def read_source(lesson: Lesson) -> LessonSource:
    """Read ``<lesson>/<id>.py`` with jupytext (and the chapter section it includes); one answer cell per question."""
    path = source_path(lesson)
    if not path.is_file():
        raise LessonSourceError(
            f"Lesson {lesson.id!r} has no source notebook at {path}; write it in jupytext's percent format."
        )
    cells = _read_cells(path, chapter_reference_path(lesson))
    answered = [c.question for c in cells if c.question]
    expected = [q.id for q in lesson.questions]
    if sorted(answered) != sorted(expected):
        missing = sorted(set(expected) - set(answered))
        extra = sorted(set(answered) - set(expected))
        twice = sorted({q for q in answered if answered.count(q) > 1})
        raise LessonSourceError(
            f"{path.name} must have one answer cell per question of lesson.toml: "
            f"missing {missing}, not in lesson.toml {extra}, more than once {twice}."
        )
    return LessonSource(lesson, path, tuple(cells))


def _check_cell(name: str, index: int, cell: SourceCell) -> None:
    marks = [line.strip() for line in cell.source.splitlines() if line.strip().startswith("###")]
    solution_marks = [m for m in marks if m in (BEGIN_SOLUTION, END_SOLUTION)]
    where = f"{name}, cell {index}"
    if cell.question is None and (solution_marks or any(m.startswith(STUB) for m in marks)):
        raise LessonSourceError(
            f'{where} has solution or stub markers but no question: add question="<id>" to its # %% line.'
        )
    if cell.question is not None:
        if cell.kind != "code" or SKIP_TAG in cell.tags:
            raise LessonSourceError(
                f"{where}: the answer cell of {cell.question!r} must be a code cell without the {SKIP_TAG} tag."
            )
        if solution_marks != [BEGIN_SOLUTION, END_SOLUTION]:
            raise LessonSourceError(
                f"{where}: the answer cell of {cell.question!r} needs one {BEGIN_SOLUTION} ... {END_SOLUTION} region."
            )


def _split(source: str) -> tuple[list[str], list[str], list[str], list[str], str]:
    """(before, solution, after, stub lines, indentation of the region) of an answer cell."""
    lines = source.splitlines()
    begin = next(i for i, line in enumerate(lines) if line.strip() == BEGIN_SOLUTION)
    end = next(i for i, line in enumerate(lines) if line.strip() == END_SOLUTION)
    indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]

    def plain(part: list[str]) -> list[str]:
        return [line for line in part if not line.strip().startswith(STUB)]

    stubs = [re.sub(r"^(\s*)### STUB ?", r"\1", line) for line in lines if line.strip().startswith(STUB)]
    return plain(lines[:begin]), lines[begin + 1 : end], plain(lines[end + 1 :]), stubs, indent


def learner_source(cell: SourceCell) -> str:
    """The answer cell as the learner gets it: the solution region replaced by the stub."""
    before, _, after, stubs, indent = _split(cell.source)
    stub = stubs or [
        f'{indent}raise NotImplementedError("Write {cell.question} here: '
        'replace this line with your code, then run the cell.")'
    ]
    return "\n".join(before + stub + after)


def solution_source(cell: SourceCell, keep_markers: bool = False) -> str:
    """The answer cell with its solution (markers kept for nbgrader's ``generate_assignment``)."""
    before, solution, after, _, indent = _split(cell.source)
    if keep_markers:
        solution = [indent + BEGIN_SOLUTION, *solution, indent + END_SOLUTION]
    return "\n".join(before + solution + after)


def check_source(question: str) -> str:
    """The learner's self-check cell after an answer cell: one result, printed, no value."""
    return f'check("{question}")'


def test_cell_source(lesson: Lesson, question: str) -> str:
    """An nbgrader autograder test cell: the question's hidden tests, scored as ``grade`` scores them."""
    points = lesson.question(question).points
    return (
        f"# nbgrader autograder test for `{question}` ({points:g} point{'s' if points != 1 else ''}): "
        "the same hidden checks as `grade`.\n"
        "from grader.integrations.nbgrader import nbgrader_cell_score\n"
        f'nbgrader_cell_score("{lesson.id}", "{question}", globals())'
    )


_TESTS_INTRO = """## Autograder tests

The cells below are nbgrader's autograder tests, one per question, worth its points. They run the same
hidden checks as `grade`, after every answer above has run. Leave them as they are."""


def _cell(
    kind: str,
    source: str,
    cell_id: str,
    tags: tuple[str, ...] = (),
    nbgrader: dict[str, Any] | None = None,
    hidden: bool = False,
) -> Notebook:
    # the fields nbformat's new_markdown_cell / new_code_cell give, without their check of each cell against the
    # schema (nine tenths of a build's time; a roster's build makes thousands): notebook_text checks the notebook
    fields: dict[str, Any] = {"cell_type": kind, "id": cell_id, "metadata": {}, "source": source}
    if kind != "markdown":
        fields.update(cell_type="code", execution_count=None, outputs=[])
    cell = _nbf.from_dict(fields)
    metadata: dict[str, Any] = {}
    if nbgrader is not None:
        metadata["nbgrader"] = {"schema_version": _NBGRADER_VERSION, "grade_id": cell_id, "task": False, **nbgrader}
    if tags:
        metadata["tags"] = list(tags)
    if hidden:
        metadata["jupyter"] = {"source_hidden": True}
    cell.metadata = metadata
    return cell


def _ids(src: LessonSource) -> list[str]:
    """A stable id per cell: the question for an answer cell, else a digest of its text (numbered if repeated),
    ``chapter_``-prefixed for the chapter's included cells (so they have the same ids in every lesson)."""
    ids: list[str] = []
    for cell in src.cells:
        base = cell.question or f"{cell.kind[:2]}_{hashlib.sha256(cell.source.encode()).hexdigest()[:10]}"
        base = CHAPTER_ID_PREFIX + base if cell.chapter else base
        ids.append(base if base not in ids else f"{base}_{ids.count(base) + 1}")
    return ids


def _notebook(lesson: Lesson, cells: list[Notebook], owner: Owner | None = None) -> Notebook:
    nb = _nbf.from_dict({"cells": cells, "metadata": {}, "nbformat": 4})  # checked once, by notebook_text
    grader: dict[str, Any] = {"lesson": lesson.id}
    if owner is not None:  # a release: whose notebook it is, and a display copy of their numbers
        grader.update(learner=owner.learner, params=as_dict(owner.params))
        if owner.service is not None:
            grader[METADATA_KEY] = dict(owner.service)
    nb.metadata = {"grader": grader, **_NB_METADATA}
    nb.nbformat_minor = 5
    return nb


@dataclass(frozen=True)
class Owner:
    """The learner a released notebook is for, and their numbers (grader/params.py)."""

    learner: str
    params: Params
    service: ServiceMetadata | None = None
    """The course service their checks and hand-ins go to, and their token (``grade build --service``)."""


def rendered(src: LessonSource, params: Params) -> LessonSource:
    """The source with the learner parameters filled in: in the text, and in the answer cells of the questions
    that use them (the solution computes from them). Every other cell is left as written."""
    if not params:
        return src
    using = {q for p in src.lesson.params for q in p.questions}
    cells = tuple(
        replace(cell, source=render(cell.source, params)) if cell.kind == "markdown" or cell.question in using else cell
        for cell in src.cells
    )
    return replace(src, cells=cells)


def _connected(source: str, lesson: Lesson, owner: Owner) -> str:
    """The self-check setup cell of a released notebook: ``connect`` told the learner's numbers (a display copy);
    with a course service, ``connect_service`` told its address, the learner's token and the hints instead."""
    call = f'connect("{lesson.id}", globals())'
    if owner.service is None:
        return source.replace(call, f'connect("{lesson.id}", globals(), params={as_dict(owner.params)!r})')
    setup = f"check, check_all, hint = {call}"
    if call not in source:
        return source
    if setup not in source or not _IMPORT.search(source):
        raise LessonSourceError(
            f"The setup cell of lesson {lesson.id!r} must hold `from grader.selfcheck import connect` and `{setup}` "
            "for a release with a course service to replace them."
        )
    hints = "".join(f"        {q.id!r}: {render(q.hint, owner.params)!r},\n" for q in lesson.questions)
    service = (
        "check, check_all, hint, submit = connect_service(\n"
        f"    {lesson.id!r},\n    globals(),\n"
        f"    url={owner.service['url']!r},\n    token={owner.service['token']!r},\n"
        f"    hints={{\n{hints}    }},\n)"
    )
    return _IMPORT.sub(_SERVICE_IMPORT, source).replace(setup, service)


_IMPORT = re.compile(r"^from grader\.selfcheck import connect$", re.MULTILINE)
_SERVICE_IMPORT = "from grader.selfcheck import connect_service"
#: The last cells of a notebook released with a course service: hand it in from the notebook.
_SUBMIT_TEXT = """## Hand in

Save the notebook (File > Save Notebook), then run the cell below: it sends the saved file to the course
service and prints your receipt (what was stored, and when). You may hand in again; each is kept."""


def build_notebooks(src: LessonSource, owner: Owner | None = None) -> Artefacts:
    """The learner, solution and nbgrader notebooks of one lesson source, with the page's numbers, or with the
    numbers of ``owner`` (a release). Cell ids come from the source as written, so every learner's are the same."""
    lesson = src.lesson
    ids = _ids(src)
    params = owner.params if owner is not None else default_params(lesson)
    src = rendered(src, params)
    learner: list[Notebook] = []
    solution: list[Notebook] = []
    graded: list[Notebook] = []
    locked = {"grade": False, "solution": False, "locked": True}
    for cell, cell_id in zip(src.cells, ids, strict=False):
        if owner is not None and SKIP_TAG in cell.tags:
            connected = _connected(cell.source, lesson, owner)
            # the service's setup cell is long (the hints): folded, as the step-through's code is
            cell = replace(cell, source=connected, hidden=cell.hidden or _SERVICE_IMPORT in connected)
        if cell.question is None:
            for out in (learner, solution):
                out.append(_cell(cell.kind, cell.source, cell_id, cell.tags, hidden=cell.hidden))
            graded.append(_cell(cell.kind, cell.source, cell_id, cell.tags, locked, cell.hidden))
            continue
        q = cell.question
        learner.append(_cell("code", learner_source(cell), q, cell.tags))
        solution.append(_cell("code", solution_source(cell), q, cell.tags))
        graded.append(
            _cell(
                "code",
                solution_source(cell, keep_markers=True),
                q,
                cell.tags,
                {"grade": False, "solution": True, "locked": False},
            )
        )
        for out in (learner, solution):
            out.append(_cell("code", check_source(q), f"check_{q}", (SKIP_TAG,)))
        graded.append(_cell("code", check_source(q), f"check_{q}", (SKIP_TAG,), locked))
    if owner is not None and owner.service is not None:
        if not any("connect_service(" in cell.source for cell in learner):
            raise LessonSourceError(
                f'Lesson {lesson.id!r} has no self-check setup cell calling connect("{lesson.id}", globals()), '
                "which a release with a course service replaces: add it (tagged self-check) to the source."
            )
        learner += [_cell("markdown", _SUBMIT_TEXT, "hand_in"), _cell("code", "submit()", "submit", (SKIP_TAG,))]
    graded.append(_cell("markdown", _TESTS_INTRO, "autograder_tests", (), locked))
    for question in lesson.questions:
        test = {"grade": True, "solution": False, "locked": True, "points": question.points}
        graded.append(
            _cell("code", test_cell_source(lesson, question.id), grade_cell_id(question.id), (SKIP_TAG,), test)
        )
    return Artefacts(
        _notebook(lesson, learner, owner), _notebook(lesson, solution, owner), _notebook(lesson, graded, owner)
    )


def notebook_text(nb: Notebook) -> str:
    """A notebook's file contents, as Jupyter writes them (so saving it unchanged in Jupyter changes nothing)."""
    _nbf.validate(nb)
    return str(_nbf.writes(nb)) + "\n"


def artefact_texts(lesson: Lesson) -> dict[Path, str]:
    """Where each committed notebook of ``lesson`` goes, and its contents, built afresh from the source."""
    built = build_notebooks(read_source(lesson))
    return {
        lesson.notebook: notebook_text(built.learner),
        lesson.solution: notebook_text(built.solution),
        nbgrader_path(lesson): notebook_text(built.nbgrader),
    }


def build_lesson(lesson: Lesson, bundle_dir: Path | None = None) -> list[Path]:
    """Write the lesson's notebooks (and, given ``bundle_dir``, its Gradescope zip there); return the paths written."""
    written: list[Path] = []
    for path, text in artefact_texts(lesson).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    if bundle_dir is not None:
        from grader.integrations.gradescope_bundle import build_bundle

        zip_path = bundle_dir / f"{lesson.id}-gradescope-autograder.zip"
        zip_path.parent.mkdir(parents=True, exist_ok=True)
        build_bundle(lesson, zip_path)
        written.append(zip_path)
    return written
