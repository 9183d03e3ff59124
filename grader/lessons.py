"""Load lesson definitions: the data an instructor writes (``exercises/<lesson>/lesson.toml``).

The engine never names a lesson; everything it knows about one comes from this file. Paths inside the
definition are relative to the definition's folder.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from grader.config import lessons_root
from grader.errors import LessonError
from grader.model import KINDS, REVEAL_POLICIES, Lesson, Outline, OutlineLesson, Question
from grader.params import parse_params

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def available_lessons(root: Path | None = None) -> list[str]:
    base = root or lessons_root()
    return sorted(p.parent.name for p in base.glob("*/lesson.toml"))


def load_lesson(lesson_id: str, root: Path | None = None, suites: Path | None = None) -> Lesson:
    """Read and validate one lesson definition; ``suites`` points at a private copy of the hidden tests."""
    base = root or lessons_root()
    path = base / lesson_id / "lesson.toml"
    if (
        lesson_id in ("", ".", "..") or Path(lesson_id).name != lesson_id or not path.is_file()
    ):  # a folder of base, nothing else
        known = ", ".join(available_lessons(base)) or "none"
        raise LessonError(f"There is no lesson {lesson_id!r} in {base} (lessons found: {known}).")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise LessonError(f"The lesson definition {path} cannot be read: {err}. Fix the file and try again.") from None
    return _lesson_from_data(data, path.parent, suites)


def _lesson_from_data(data: dict[str, Any], folder: Path, suites: Path | None) -> Lesson:
    where = folder / "lesson.toml"
    try:
        questions = tuple(
            Question(
                id=str(q["id"]),
                kind=q["kind"],
                points=float(q["points"]),
                hint=str(q.get("hint", "")),
                title=str(q.get("title", "")),
                uses=tuple(str(u) for u in q.get("uses", ())),
                reveal=q.get("reveal", KINDS[q["kind"]].reveal if q["kind"] in KINDS else "never"),
            )
            for q in data["questions"]
        )
        lesson = Lesson(
            id=str(data["id"]),
            title=str(data.get("title", data["id"])),
            root=folder,
            questions=questions,
            suites=(suites or folder / data.get("suites", "suites")).resolve(),
            solution=(folder / data["solution"]).resolve(),
            notebook=(folder / data["notebook"]).resolve(),
        )
        params = data.get("params", {})
    except (KeyError, TypeError, ValueError) as err:
        raise LessonError(f"The lesson definition {where} is missing or has a bad field ({err!r}).") from None
    bad = [q.id for q in questions if q.kind not in KINDS or q.points < 0]
    if bad:
        raise LessonError(f"In {where}, questions {bad} need a kind in {tuple(KINDS)} and points >= 0.")
    bad = [q.id for q in questions if q.reveal not in REVEAL_POLICIES]
    if bad:
        raise LessonError(f"In {where}, questions {bad} have a `reveal` that is not one of {REVEAL_POLICIES}.")
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise LessonError(f"In {where}, question ids must be unique; got {ids}.")
    functions = {q.id for q in questions if q.is_called}
    unknown = sorted({u for q in questions for u in q.uses} - functions)
    if unknown:
        raise LessonError(f"In {where}, `uses` names {unknown}, which are not function questions of this lesson.")
    later = [(q.id, u) for q in questions for u in q.uses if ids.index(u) >= ids.index(q.id)]
    if later:
        raise LessonError(
            f"In {where}, {later[0][0]!r} `uses` {later[0][1]!r}, which does not come before it: "
            "a later question's reference is never lent while a question is tested. Put the question it uses first."
        )
    if not isinstance(params, dict):
        raise LessonError(f"In {where}, `params` must be tables: [params.<name>] with `values` or `range`.")
    lesson = replace(lesson, params=parse_params(params, where, ids))
    if not lesson.suites.is_dir():
        raise LessonError(f"The hidden suites for lesson {lesson.id!r} are not at {lesson.suites}.")
    return lesson


def require_solution(lesson: Lesson) -> Path:
    """The lesson's solution notebook, which grading runs as the reference; if it is not there (a course folder
    copied without its built notebooks), an error that names it and the command that builds it."""
    if not lesson.solution.is_file():
        raise LessonError(
            f"Lesson {lesson.id!r} cannot grade: its solution notebook {lesson.solution} (`solution` in "
            f"{lesson.root / 'lesson.toml'}) does not exist. It is built from the lesson's source "
            f"({lesson.root / (lesson.id + '.py')}): run `grade build {lesson.root}`, or copy the course's "
            "solutions/ folder beside its exercises/."
        )
    return lesson.solution


def suites_fingerprint(lesson: Lesson) -> str:
    """A hash of everything a lesson's grading depends on: its suites' files, its definition and its solution."""
    suite_files = sorted(p for p in lesson.suites.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    named = [(f"suites/{p.relative_to(lesson.suites).as_posix()}", p) for p in suite_files]
    named += [("lesson.toml", lesson.root / "lesson.toml"), ("solution", lesson.solution)]
    h = hashlib.sha256()
    for name, path in named:
        data = path.read_bytes() if path.is_file() else b""
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


#: The chapter's outline, beside the lesson folders.
OUTLINE_FILE = "chapter.toml"


def load_outline(root: Path | None = None) -> Outline | None:
    """The chapter outline of the lessons folder (``chapter.toml``), or None when it has none.

    Every lesson it names must be a lesson of the folder, each once: the outline is the learners' index and
    the teaching assistants' column order, and a name that matches nothing would be a column nobody can fill.
    """
    base = root or lessons_root()
    path = base / OUTLINE_FILE
    if not path.is_file():
        return None
    where = f"The chapter outline {path}"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        lessons = tuple(OutlineLesson(str(item["id"]), str(item.get("needs", ""))) for item in data["lessons"])
        outline = Outline(str(data.get("title", "")), str(data.get("objective", "")), lessons)
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as err:
        raise LessonError(f"{where} cannot be read ({err!r}): it needs [[lessons]] entries with an id.") from None
    ids = [lesson.id for lesson in outline.lessons]
    unknown = sorted(set(ids) - set(available_lessons(base)))
    if unknown or len(set(ids)) != len(ids):
        raise LessonError(
            f"{where} names {', '.join(unknown) or 'a lesson twice'}: each entry must be a lesson folder "
            f"of {base} ({', '.join(available_lessons(base))}), once."
        )
    return outline
