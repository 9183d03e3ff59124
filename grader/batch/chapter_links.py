"""A chapter's files follow its lessons' grades: a rerun of one lesson's batch writes the chapter again.

``grade chapter`` and ``grade class`` write a chapter from lessons' results folders; a later ``grade batch
--out RESULTS/<lesson>`` (a late submission, ``--only``, a regrade) changes grades under it. So the chapter's
folder keeps where its columns come from (:data:`SOURCES_FILE`), each lesson's results folder keeps which
chapters read it (:data:`READERS_FILE`), and every batch into that folder writes those chapters again
(:func:`rewrite_chapters`: ``chapter.csv``, ``chapter.md`` and the import an earlier command asked for, by
:func:`grader.batch.chapter.write_chapter_view`), so no chapter file says older grades than its lessons.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from grader.batch.chapter import Chapter, LessonColumn, lesson_results, write_chapter_view
from grader.batch.model import Row
from grader.errors import GraderError
from grader.files import write_atomic

#: In a chapter's folder: its lessons in order, each with the results folder its column is read from (or none).
SOURCES_FILE = "chapter-sources.json"
#: In a lesson's results folder: the chapter folders written from it.
READERS_FILE = "chapters.json"


def grade_chapter(
    folders: Sequence[Path],
    out: Path,
    lessons_root: Path | None = None,
    export: str | None = None,
    names: Mapping[str, str] | None = None,
) -> tuple[Chapter, str]:
    """``grade chapter``: read each lesson's results folder, in the order given, write the chapter view
    (:func:`grader.batch.chapter.write_chapter_view`, with ``export``'s import) and :func:`link` it to them.

    Returns the chapter and a sentence saying what was written. Two folders of the same lesson are refused: the
    chapter has one column per lesson.
    """
    from grader.errors import UsageError

    lessons = [lesson_results(folder, lessons_root) for folder in folders]
    ids = [column.id for column, _ in lessons]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise UsageError(f"Several results folders grade the lesson(s) {', '.join(twice)}: give one folder per lesson.")
    chapter, said = write_chapter_view(out, lessons, export, names)
    link(out, [(column.id, folder) for column, folder in zip(chapter.columns, folders, strict=True)], lessons_root)
    return chapter, said


def link(chapter: Path, columns: Sequence[tuple[str, Path | None]], lessons_root: Path | None) -> None:
    """Remember that ``chapter`` was written from ``columns`` (lesson id, results folder or None), both ways."""
    sources = [{"lesson": lesson, "results": str(folder.resolve()) if folder else None} for lesson, folder in columns]
    body = {"lessons_root": str(lessons_root.resolve()) if lessons_root else None, "columns": sources}
    write_atomic(chapter / SOURCES_FILE, json.dumps(body, indent=1) + "\n")
    for _, folder in columns:
        if folder is not None and folder.is_dir():
            readers = _read_list(folder / READERS_FILE)
            if str(chapter.resolve()) not in readers:
                write_atomic(folder / READERS_FILE, json.dumps([*readers, str(chapter.resolve())], indent=1) + "\n")


def rewrite_chapters(results: Path) -> tuple[str, ...]:
    """Write again every chapter that reads ``results`` (a lesson's results folder a batch just wrote); one note
    per chapter: written again, or why it could not be (then the teaching assistant reruns the chapter)."""
    notes = []
    for chapter in map(Path, _read_list(results / READERS_FILE)):
        try:
            columns, root = _sources(chapter)
            if str(results.resolve()) not in {str(f) for _, f in columns if f is not None}:
                continue  # written since from other folders
            lessons = [_column(lesson, folder, root) for lesson, folder in columns]
            write_chapter_view(chapter, lessons)
            notes.append(f"the chapter in {chapter} was written again from these grades (chapter.csv and its import)")
        except (GraderError, OSError, ValueError, KeyError, TypeError) as err:
            notes.append(
                f"the chapter in {chapter} reads these grades and could not be written again ({err}): "
                "run `grade chapter` or `grade class` again"
            )
    return tuple(notes)


def _sources(chapter: Path) -> tuple[list[tuple[str, Path | None]], Path | None]:
    body = json.loads((chapter / SOURCES_FILE).read_text(encoding="utf-8"))
    columns = [(str(c["lesson"]), Path(c["results"]) if c["results"] else None) for c in body["columns"]]
    return columns, Path(body["lessons_root"]) if body["lessons_root"] else None


def _column(lesson_id: str, folder: Path | None, root: Path | None) -> tuple[LessonColumn, Sequence[Row]]:
    if folder is not None and folder.is_dir():
        return lesson_results(folder, root)
    from grader.lessons import load_lesson

    lesson = load_lesson(lesson_id, root)
    return LessonColumn(lesson.id, lesson.title, lesson.max_score), []


def _read_list(path: Path) -> list[str]:
    """A JSON list of strings, or [] when the file is missing or damaged (a damaged one is written anew)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(x) for x in found] if isinstance(found, list) else []
