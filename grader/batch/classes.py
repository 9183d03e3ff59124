"""``grade class``: a class folder of lessons graded as one batch per lesson, then the chapter view over them.

A class folder holds each lesson's submissions under the lesson's id, as the teaching assistant downloaded them:
``CLASS/decode/`` (any layout ``grade batch`` reads: a flat folder, an LMS download, or one ``.zip`` of it),
or ``CLASS/decode.zip``. The teaching assistant's folder, never a notebook's metadata, says which lesson a
notebook is graded on. Each lesson is the ordinary batch (:func:`grader.batch.run.run_batch`, with the class's
options: the late policy, the LMS export, the feedback view), so reruns regrade only what changed, and the
chapter view is written from every lesson's results (:func:`grader.batch.chapter.write_chapter_view`: its
import too, and kept current on every later run).
"""

from __future__ import annotations

import zipfile
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

from grader.batch.chapter import Chapter, LessonColumn, lesson_results, write_chapter_view
from grader.batch.chapter_links import link
from grader.batch.dispatch import LocalPools
from grader.batch.layouts import ignored
from grader.batch.lms_table import CHAPTER_EXPORTS
from grader.batch.model import BatchSummary, Row
from grader.batch.progress import ClassProgress, Progress
from grader.batch.run import BatchOptions, run_batch
from grader.errors import UsageError

#: The file ending of a lesson's download packed as one archive.
ZIP = ".zip"


@dataclass(frozen=True)
class ClassRun:
    """What ``grade class`` did: each lesson's batch, then the chapter view over them."""

    batches: tuple[BatchSummary, ...]
    chapter: Chapter
    said: str


def lesson_folders(class_folder: Path, lessons_root: Path | None = None) -> list[tuple[str, Path | None]]:
    """The lessons of a class folder, in the chapter's order: ``(lesson id, its submissions or None if missing)``.

    A lesson's submissions are its subfolder (``class/decode/``), or the one ``.zip`` that folder holds when it
    holds nothing else (as the LMS's download was saved there), or ``class/decode.zip``. The order is the
    chapter outline's when the lessons folder has one (a lesson with no submissions is then a column of empty
    cells), else the lessons' ids in order. A subfolder or archive that is not a lesson is refused, since its
    notebooks would be graded on nothing; so is a lesson given twice (a folder and an archive, two archives):
    which download holds the grades is not for the grader to guess.
    """
    from grader.lessons import available_lessons, load_outline

    known = available_lessons(lessons_root)
    found: dict[str, list[Path]] = {}
    for path in sorted(class_folder.iterdir()):
        if ignored(path):  # hidden, or what an archiver or Jupyter left beside the lessons (__MACOSX)
            continue
        if path.is_dir():
            found.setdefault(path.name, []).append(_inside(path))
        elif path.is_file() and path.suffix.lower() == ZIP:
            found.setdefault(path.name[: -len(ZIP)], []).append(path)
    strangers = [name for name in found if name not in known]
    if strangers:
        raise UsageError(
            f"{class_folder} has subfolders or archives that are not lessons ({', '.join(strangers)}): a class folder "
            f"holds one subfolder (or .zip) per lesson, named by its id ({', '.join(known)})."
        )
    twice = sorted(name for name, paths in found.items() if len(paths) > 1)
    if twice:
        raise UsageError(
            f"{class_folder} gives the lesson(s) {', '.join(twice)} twice (a folder and a .zip): keep one download "
            "per lesson."
        )
    if not found:
        raise UsageError(f"{class_folder} has no lesson subfolders: put each lesson's submissions in class/<lesson>/.")
    outline = load_outline(lessons_root)
    order = [lesson.id for lesson in outline.lessons] if outline else sorted(found)
    order += [name for name in sorted(found) if name not in order]
    return [(lesson, found[lesson][0] if lesson in found else None) for lesson in order]


def _inside(folder: Path) -> Path:
    """A lesson folder's submissions: the folder, or the one ``.zip`` in it when it holds no notebook besides."""
    archives = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ZIP)
    if not archives:
        return folder
    notebooks = [p for p in folder.rglob("*.ipynb") if not any(part.startswith(".") for part in p.parts)]
    if len(archives) > 1 or notebooks:
        shown = ", ".join(p.name for p in archives) + (f" and {len(notebooks)} notebook(s)" if notebooks else "")
        raise UsageError(
            f"{folder} holds {shown}: keep one download per lesson there (the latest .zip, or its notebooks "
            "unpacked), so that each learner's grade comes from one place."
        )
    return archives[0]


def count_notebooks(source: Path) -> int:
    """How many notebooks a lesson's submissions hold, by a cheap count (the progress display's first guess)."""
    if source.is_file():
        try:
            with zipfile.ZipFile(source) as zf:
                return sum(1 for name in zf.namelist() if name.lower().endswith(".ipynb"))
        except (OSError, zipfile.BadZipFile):
            return 0  # the batch says what is wrong with it
    return sum(1 for p in source.rglob("*.ipynb") if not any(part.startswith(".") for part in p.parts))


def grade_class(
    class_folder: Path,
    out: Path,
    options: BatchOptions,
    names: Mapping[str, str] | None = None,
    executor: Executor | None = None,
    show_progress: bool = False,
) -> ClassRun:
    """``grade class``: grade each lesson's submissions as its own batch into ``out/<lesson>``, then write the
    chapter view into ``out/chapter``.

    ``options`` are each lesson's batch's: the lesson is the folder's; ``options.export`` writes each lesson's
    import (its column header from ``names``, else the lesson's title) and, for an LMS whose import takes a
    column per lesson, the chapter's. ``options.grading.lesson`` grades only that lesson, and the chapter is
    written again from every lesson's stored results. ``show_progress``: one display with the whole class's
    count and ETA (:class:`ClassProgress`).
    """
    from grader.lessons import load_lesson

    root = options.grading.lessons_root
    folders = lesson_folders(class_folder, root)
    only = options.grading.lesson
    if only is not None and only not in {lesson for lesson, _ in folders}:
        raise UsageError(f"--lesson {only}: {class_folder} has no submissions for it.")
    if options.grading.suites is not None and only is None:
        raise UsageError("--suites is one lesson's private copy: give --lesson too, the lesson it is for.")
    unknown = sorted(set(names or {}) - {lesson for lesson, _ in folders})
    if unknown:
        raise UsageError(f"--export-name names {', '.join(unknown)}, which are not lessons of this class.")
    graded = [(lesson, source) for lesson, source in folders if source is not None and only in (None, lesson)]
    progress = ClassProgress({lesson: count_notebooks(source) for lesson, source in graded}) if show_progress else None
    batches: list[BatchSummary] = []
    # One set of grading processes for every lesson: a Grader grades any lesson, so each lesson's batch reuses the
    # processes the one before it started (their imports, zygotes and collected suites) instead of its own.
    graders = nullcontext(executor) if executor is not None else LocalPools(options.jobs, keep=True)
    try:
        with graders as grading:
            for lesson_id, source in graded:
                lesson_options = replace(
                    options,
                    grading=replace(options.grading, lesson=lesson_id),
                    export_name=(names or {}).get(lesson_id),
                )
                shown: Progress | None = progress.lesson(lesson_id) if progress is not None else None
                batches.append(run_batch(source, out / lesson_id, lesson_options, grading, shown, chapters=False))
    finally:
        if progress is not None:
            progress.stop()
    lessons: list[tuple[LessonColumn, Sequence[Row]]] = []
    for lesson_id, given in folders:
        if given is None or not (out / lesson_id).is_dir():  # no submissions, or not graded yet (--lesson)
            lesson = load_lesson(lesson_id, root)
            lessons.append((LessonColumn(lesson.id, lesson.title, lesson.max_score), []))
        else:
            lessons.append(lesson_results(out / lesson_id, root))
    export = options.export if options.export in CHAPTER_EXPORTS else None
    chapter, said = write_chapter_view(out / "chapter", lessons, export, names)
    link(out / "chapter", [(lesson, out / lesson) for lesson, _ in folders], root)
    if options.export and export is None:
        said += (
            f"\n  note: {options.export}'s import is one assignment's: each lesson's is "
            f"{out}/<lesson>/{options.export}-import.csv (the chapter's import takes {' or '.join(CHAPTER_EXPORTS)})"
        )
    return ClassRun(tuple(batches), chapter, said)
