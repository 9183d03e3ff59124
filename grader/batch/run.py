"""The batch recipe: find submissions -> read each -> skip unchanged -> grade the rest in parallel ->
record each result as it arrives -> regenerate every output from the gradebook.

:func:`run_batch` is the library entry point behind ``grade batch``; it raises only
:class:`grader.errors.GraderError` subclasses (a bad SUBMISSIONS argument, a broken lesson), never for a
learner's notebook: those become rows with a status and a reason.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.batch.chapter_links import rewrite_chapters
from grader.batch.choose import Choice, Read, choose, read_entry
from grader.batch.dispatch import LocalPools, Result, run_on
from grader.batch.export import export_rows, nbgrader_exporter
from grader.batch.fingerprint import grading_fingerprint, suites_fingerprint
from grader.batch.gradebook import FILE_NAME, Gradebook
from grader.batch.late import LatePolicy, apply_late, extension_notes, remember, submitted_at
from grader.batch.layouts import ONE_NOTEBOOK, Entry, Found, open_submissions
from grader.batch.lms import check_export, import_path, write_export
from grader.batch.model import BatchSummary as BatchSummary  # what run_batch returns
from grader.batch.model import Row
from grader.batch.outputs import SUMMARY_JSON, write_outputs
from grader.batch.progress import NoProgress, Progress
from grader.batch.regrade import RegradePlan
from grader.batch.roster import check_released, map_learners, read_roster
from grader.batch.sheet import Column
from grader.batch.similar import find_similar
from grader.batch.work import Settings, Task
from grader.config import DEFAULT_FEEDBACK, DEFAULT_UNGRADABLE, FeedbackMode, Ungradable
from grader.errors import GraderError, UsageError
from grader.execute.upkeep import check_settings, grading_others
from grader.lessons import load_lesson
from grader.model import Lesson, Submission
from grader.params import (
    course_secret,
    describe,
    identity_of,
    in_order,
    is_valid,
    learner_params,
    secret_kept_from_children,
    unconfirmed_numbers,
)
from grader.pipeline import MISSING_PACKAGE, GradeOptions, batch_lesson_id, failed_report
from grader.report.class_report import Pair, previous_similar


@dataclass(frozen=True)
class BatchOptions:
    """Everything a batch caller can choose; each default is defined here or in :class:`GradeOptions`."""

    grading: GradeOptions = field(default_factory=GradeOptions)
    jobs: int | None = None
    """Local grading processes; ``None`` means one per core. Ignored when an executor is given."""
    feedback: FeedbackMode = DEFAULT_FEEDBACK
    regrade: bool = False
    """Grade every submission again, even those whose file and lesson suites are unchanged."""
    assignment: str | None = None
    """In an nbgrader course folder, the assignment to grade."""
    nbgrader_db: str | None = None
    """Also write the grades to this nbgrader gradebook (a database URL)."""
    only: tuple[str, ...] = ()
    """Regrade just these learners (by learner id); everyone else keeps their stored grade."""
    export: str | None = None
    """Also write this LMS's grade-import file (``canvas``, ``moodle``, ``blackboard``, ``csv``; see
    :mod:`grader.batch.lms`)."""
    export_name: str | None = None
    """The assignment (column) name in that file; default the lesson's title."""
    ungradable: Ungradable = DEFAULT_UNGRADABLE
    """What an LMS import holds for a row whose status is not ``graded`` (unreadable, another lesson's,
    refused, timed out): ``blank`` (no grade, so "please resubmit" is not a 0) or ``zero``. Stored per run
    in the gradebook (:meth:`Gradebook.ungradable`) for ``grade export``."""
    late: LatePolicy | None = None
    """The due date, extensions and penalty (:mod:`grader.batch.late`); ``None`` keeps the one the results folder
    was last given (``late-policy.json``), if any."""
    questions: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Learner id -> the only questions whose hidden tests run for that learner (the others are reported as not
    checked); a learner not named gets every question's. Not a ``grade batch`` option: the mutation audit grades
    each mutant on the question it mutates, the only one its verdict reads (grader/authoring/audit/run.py)."""
    roster: Path | None = None
    """The course roster (:mod:`grader.batch.roster`): maps each download's learners to the learner id and the
    identity their notebooks were released on; ``None``: numbers are drawn from what the download carries."""


@dataclass(frozen=True)
class _Prepared:
    """A submission read and matched to its lesson: either a finished row or a task to grade."""

    entry: Entry
    digest: str
    suites_hash: str
    row: Row | None = None
    task: Task | None = None
    lesson: Lesson | None = None
    submission: Submission | None = None


@dataclass(frozen=True)
class _BatchLesson:
    """The one lesson this batch grades (see :func:`grader.pipeline.batch_lesson_id`) and its fingerprint."""

    lesson: Lesson
    suites_hash: str
    secret: bytes | None = None
    """The course secret that draws each learner's numbers, for a lesson with learner parameters (grader/params.py)."""
    draws: Mapping[str, str] = field(default_factory=dict)
    """Learner id -> the roster identity their numbers are drawn from (the learners the roster maps)."""
    refused: Mapping[str, str] = field(default_factory=dict)
    """Learner id -> why the roster cannot say whose numbers they have (they are not graded on a guess)."""

    @classmethod
    def load(cls, options: GradeOptions) -> _BatchLesson:
        """Raises :class:`UsageError` (no lesson chosen) or :class:`LessonError` (a broken one) before any grading."""
        lesson = load_lesson(batch_lesson_id(options), options.lessons_root, options.suites)
        return cls(lesson, suites_fingerprint(lesson))


def run_batch(
    submissions: Path,
    out: Path,
    options: BatchOptions | None = None,
    executor: Executor | LocalPools | None = None,
    progress: Progress | None = None,
    chapters: bool = True,
) -> BatchSummary:
    """Grade every notebook in ``submissions`` (a folder or .zip) into the results folder ``out``.

    ``executor`` is any ``concurrent.futures``-style executor (e.g. a Dask cluster's), or the
    :class:`~grader.batch.dispatch.LocalPools` of a caller grading several batches (``grade class``: their grading
    processes stay for the next); by default local process pools of ``options.jobs`` processes are used.
    ``chapters``: write again the chapters that read ``out`` (:func:`grader.batch.chapter_links.rewrite_chapters`;
    ``grade class`` writes its own once, after its last lesson). No grading process inherits the course secret.
    """
    with secret_kept_from_children():
        return _run_batch(submissions, out, options, executor, progress, chapters)


def _run_batch(
    submissions: Path,
    out: Path,
    options: BatchOptions | None,
    executor: Executor | LocalPools | None,
    progress: Progress | None,
    chapters: bool,
) -> BatchSummary:
    options = options or BatchOptions()
    progress = progress or NoProgress()
    started = time.monotonic()
    exporter = nbgrader_exporter() if options.nbgrader_db else None
    check_settings(options.grading.mode)  # a bad GRADER_ISOLATION / GRADER_WORKERS stops the batch before it starts
    grading_others(options.grading.mode, "grade batch")  # and so does no sandbox, unless one was told to go without
    batch = _BatchLesson.load(options.grading)  # so does a missing or wrong --lesson
    check_export(options.export)
    names = (batch.lesson.title, batch.lesson.id, options.export_name or "")
    with open_submissions(submissions, options.assignment, names) as found, _graders(executor, options.jobs) as graders:
        if not found.entries:
            raise UsageError(
                f"There are no .ipynb notebooks in {submissions}; see `grade batch --help` for the layouts."
            )
        check_export(options.export, [e.identity for e in found.entries])  # before grading, not after
        found, batch = _rostered(found, batch, options.roster)
        if isinstance(graders, LocalPools) and _grades_every_one(out, options, found.layout):
            graders.start(Settings(options.grading.for_any_lesson()), len({e.learner for e in found.entries}))
        fingerprint = grading_fingerprint(options.grading, batch.suites_hash)
        choices = _choose_all(found, batch.lesson)
        batch = _with_secret(batch)
        check_released(_released_and_graded(choices, batch), found.layout, options.roster is not None)
        similar_soon = None if found.layout == ONE_NOTEBOOK else _similar_soon(choices, batch.lesson)
        out.mkdir(parents=True, exist_ok=True)
        policy = remember(out, options.late)
        with Gradebook(out / FILE_NAME) as book:
            learners = list(choices)
            alone = found.layout == ONE_NOTEBOOK
            everyone = "--regrade was given" if options.regrade else "their notebook was given alone" if alone else None
            plan = RegradePlan(book, fingerprint, everyone, options.only)
            plan.check_names(learners)  # a wrong --only stops before the run starts
            run_id = book.start_run(str(submissions))
            book.set_ungradable(run_id, options.ungradable)
            notes = found.notes + _unconfirmed_note(choices, batch)
            if book.previous_run_unfinished(run_id):
                notes += ("the previous run did not finish: its graded notebooks are kept, the rest are graded now",)
            if alone:  # one learner regraded into the class of the last full run
                roster = book.roster()
                learners = roster + [name for name in learners if name not in roster]
            else:
                book.set_roster(run_id, learners)
            progress.start(len(choices))
            try:
                graded, skipped = _grade_all(choices, book, run_id, options, batch, graders, progress, plan)
            finally:
                progress.stop()
            notes += plan.notes()
            rows, bad = book.latest_checked(learners)
            notes += bad
            notes += _missing_packages(rows)
            rows = apply_late(rows, policy)
            notes += extension_notes(policy, rows)
            similar = previous_similar(out / SUMMARY_JSON) if similar_soon is None else tuple(similar_soon.result())
            notes += write_outputs(out, rows, {batch.lesson.id: batch.lesson}, options.feedback, similar)
            notes += _export(book, run_id, out, rows, batch.lesson, options)
            if exporter is not None and options.nbgrader_db:
                export_rows(exporter, options.nbgrader_db, rows, batch.lesson, options.assignment, options.ungradable)
            book.finish_run(run_id)
        if chapters:
            notes += rewrite_chapters(out)
    return BatchSummary(out, found.layout, tuple(rows), graded, skipped, time.monotonic() - started, notes)


@contextmanager
def _graders(executor: Executor | LocalPools | None, jobs: int | None) -> Iterator[Executor | LocalPools]:
    """Where the batch's notebooks are graded: the executor given (a Dask cluster's, or the local pools of a caller
    grading several batches), else this machine's pools, for this batch alone."""
    if executor is not None:
        yield executor
        return
    with LocalPools(jobs) as pools:
        yield pools


def _grades_every_one(out: Path, options: BatchOptions, layout: str) -> bool:
    """Whether this run will grade every notebook it found (a first run into ``out``, ``--regrade``, or one notebook
    given alone), so its grading processes may start before the notebooks are read. A rerun grades only what changed,
    often nothing: its processes start once that is known."""
    if options.only:
        return False
    return options.regrade or layout == ONE_NOTEBOOK or not (out / FILE_NAME).exists()


def _similar_soon(choices: Mapping[str, Choice], lesson: Lesson) -> Future[list[Pair]]:
    """The similar pairs among the notebooks read for grading, found on a thread of this process while they are
    graded: they depend on nothing grading finds, and this process only waits then. Found after grading, they were
    most of the time a batch took between its last grade and its results (50-60 ms for 40 notebooks, and growing
    with the pairs of a larger class). A failure is raised where the result is taken."""
    read = [(learner, c.read.submission) for learner, c in choices.items() if c.read.submission]
    found: Future[list[Pair]] = Future()

    def find() -> None:
        try:
            found.set_result(find_similar(read, lesson.notebook))
        except BaseException as err:  # given to whoever takes the result
            found.set_exception(err)

    threading.Thread(target=find, name="similar-pairs", daemon=True).start()
    return found


def _missing_packages(rows: list[Row]) -> tuple[str, ...]:
    """What the grading machine must install, said to the teaching assistant: rows not graded for a package the
    course's learner install gives notebooks and this machine lacks (:func:`grader.pipeline.missing_on_machine`)."""
    needed: dict[str, list[str]] = {}
    for row in rows:
        if row.status == "crashed" and row.reason.startswith(MISSING_PACKAGE):
            needed.setdefault(row.reason[len(MISSING_PACKAGE) :].split(" ", 1)[0], []).append(row.learner)
    return tuple(
        f"{len(who)} not graded because this machine lacks {package}, which learners' notebooks may import "
        f"({', '.join(sorted(who)[:5])}{', ...' if len(who) > 5 else ''}): python3 -m pip install {package}, then "
        "run the same command (they are graded again; no learner lost a point)"
        for package, who in sorted(needed.items())
    )


def _export(
    book: Gradebook, run_id: int, out: Path, rows: list[Row], lesson: Lesson, options: BatchOptions
) -> tuple[str, ...]:
    """Write the LMS import file asked for, or keep the one an earlier run wrote up to date (never a stale one)."""
    if options.export:
        book.set_export(run_id, options.export, options.export_name)
        column = Column.of(lesson, options.export_name)
        return (write_export(out, rows, column, options.export, ungradable=options.ungradable).note,)
    earlier = book.last_export()
    if earlier is None:
        return ()
    try:
        written = write_export(out, rows, Column.of(lesson, earlier[1]), earlier[0], ungradable=options.ungradable)
        return (written.note + ", as the earlier run asked",)
    except UsageError as err:  # this run's learners are not all that LMS's: the old file must not be imported
        import_path(out, earlier[0]).unlink(missing_ok=True)
        return (f"{earlier[0]}-import.csv was removed, as it could not be written again: {err}",)


def _choose_all(found: Found, lesson: Lesson) -> dict[str, Choice]:
    """Each learner's one notebook to grade (:mod:`grader.batch.choose`), every file read once, in the
    order the layout found them."""
    reads: dict[str, list[Read]] = {}
    for entry in found.entries:
        reads.setdefault(entry.learner, []).append(read_entry(entry, found.root))
    return {learner: choose(group, lesson.id, lesson.notebook.name) for learner, group in reads.items()}


def _grade_all(
    choices: dict[str, Choice],
    book: Gradebook,
    run_id: int,
    options: BatchOptions,
    batch: _BatchLesson,
    graders: Executor | LocalPools,
    progress: Progress,
    plan: RegradePlan,
) -> tuple[int, int]:
    """Grade what is not current in the gradebook, committing each row as it comes; return (graded, skipped).

    One task per learner id, and each result goes back to the learner whose task it was: no two learners
    share an id (:func:`grader.batch.layouts.find_submissions`), and that is checked again here."""
    graded = skipped = 0
    pending: dict[str, _Prepared] = {}
    for learner, choice in choices.items():
        prepared = _prepare(learner, choice, options.grading, batch, options.questions.get(learner))
        if not plan.wants(learner, prepared.digest, prepared.suites_hash):
            skipped += 1
            kept, _ = book.latest_checked([learner])  # none for a learner never graded and not named by --only
            if kept:
                progress.done(kept[0], skipped=True)
        elif prepared.row is not None:  # decided without grading: unreadable
            _record(book, run_id, prepared, prepared.row, progress, plan.fingerprint)
            graded += 1
        else:
            if learner in pending:
                raise GraderError(f"Two submissions have the learner id {learner!r}; please report it.")
            pending[learner] = prepared
    tasks = [p.task for p in pending.values() if p.task is not None]
    results = (graders.run(tasks) if isinstance(graders, LocalPools) else run_on(graders, tasks)) if tasks else iter(())
    for task, result in results:
        prepared = pending[task.learner]
        _record(book, run_id, prepared, _row(prepared, result), progress, plan.fingerprint)
        graded += 1
    return graded, skipped


def _with_secret(batch: _BatchLesson) -> _BatchLesson:
    """The batch with the course secret its learners' numbers are drawn with (none needed for a lesson without
    parameters, none there in a course without one). Never decided by a notebook: a released notebook that needs
    the secret in a course without one is refused alone (:func:`grader.params.unconfirmed_numbers`)."""
    if not batch.lesson.params:
        return batch
    return replace(batch, secret=course_secret(batch.lesson.root.parent))


def _unconfirmed_note(choices: dict[str, Choice], batch: _BatchLesson) -> tuple[str, ...]:
    """The teaching assistant's note when some released notebooks were refused for want of the course secret."""
    refused = sorted(
        learner
        for learner, c in choices.items()
        if c.read.submission is not None and unconfirmed_numbers(batch.lesson, c.read.submission, batch.secret)
    )
    if not refused:
        return ()
    return (
        f"{len(refused)} notebook(s) were released with their learner's own numbers and this course has no secret "
        f"to recompute them, so they were not graded ({', '.join(refused[:5])}): set the secret they were released "
        "with and run the batch again",
    )


def _rostered(found: Found, batch: _BatchLesson, roster: Path | None) -> tuple[Found, _BatchLesson]:
    """The download's learners under their roster ids and identities (:func:`grader.batch.roster.map_learners`),
    with the identity each one's numbers are drawn from; unchanged without a roster."""
    if roster is None:
        return found, batch
    keys = {e.key: (e.learner, e.identity) for e in found.entries}
    mapped, note = map_learners(keys, read_roster(roster))
    entries = tuple(replace(e, learner=mapped[e.key].learner, identity=mapped[e.key].identity) for e in found.entries)
    draws = {m.learner: m.draws for m in mapped.values() if m.draws}
    refused = {m.learner: m.refused for m in mapped.values() if m.refused}
    return replace(found, entries=entries, notes=found.notes + ((note,) if note else ())), replace(
        batch, draws=draws, refused=refused
    )


def _draws(learner: str, entry: Entry, batch: _BatchLesson) -> str:
    """The identity a learner's numbers are drawn from: the roster's, else what the download carries
    (:func:`grader.params.identity_of`: the LMS id, else the learner id)."""
    return batch.draws.get(learner) or identity_of(learner, entry.identity.lms_id)


def _released_and_graded(choices: dict[str, Choice], batch: _BatchLesson) -> list[tuple[str, object, object]]:
    """For each notebook that carries the numbers it was released with: its learner, those numbers, and the
    numbers this batch would grade it on."""
    lesson = batch.lesson
    if not lesson.params:
        return []
    out: list[tuple[str, object, object]] = []
    for learner, choice in choices.items():
        submission = choice.read.submission
        if (
            submission is not None
            and is_valid(lesson, submission.shown_params)
            and learner not in batch.refused
            and not unconfirmed_numbers(lesson, submission, batch.secret)  # refused alone: no secret to check them
        ):
            drawn = learner_params(lesson, _draws(learner, choice.read.entry, batch), batch.secret)
            out.append((learner, in_order(lesson, submission.shown_params), drawn))
    return out


def _graded_on(
    learner: str, entry: Entry, submission: Submission, batch: _BatchLesson, digest: str
) -> tuple[Submission, str]:
    """The submission with the numbers of the learner whose it is (never the notebook's own copy), and the hash
    that decides whether to grade it again: the notebook's, with the numbers when the lesson has some."""
    if not batch.lesson.params:
        return submission, digest
    params = learner_params(batch.lesson, _draws(learner, entry, batch), batch.secret)
    keyed = hashlib.sha256(f"{digest}\0{describe(params)}".encode()).hexdigest()
    return replace(submission, params=params), keyed


def _prepare(
    learner: str, choice: Choice, options: GradeOptions, batch: _BatchLesson, questions: frozenset[str] | None = None
) -> _Prepared:
    """A learner's chosen submission, already read: its hash decides whether to grade it, and a reason
    (not a notebook, another lesson's, several candidates) whether it may be. ``questions``: only these
    questions' hidden tests run (:attr:`BatchOptions.questions`).

    A notebook that cannot be graded gets an ``unreadable`` row scoring 0 on every question of the batch's
    lesson, with the reason; it is never graded on another lesson.
    """
    lesson, suites_hash, entry = batch.lesson, batch.suites_hash, choice.read.entry
    submission = choice.read.submission
    refused = batch.refused.get(learner, "") if lesson.params else ""
    reason = choice.reason or refused or (submission and unconfirmed_numbers(lesson, submission, batch.secret)) or ""
    if reason or submission is None:
        stub = submission or Submission(Path(entry.shown), (), None, choice.digest)
        row = Row.of(learner, failed_report(lesson, stub, reason, "unreadable"), entry.late)
        return _Prepared(entry, choice.digest, suites_hash, row=row)
    submission, digest = _graded_on(learner, entry, submission, batch, choice.digest)
    task = Task(learner, submission, lesson.id, Settings(options.for_any_lesson()), questions)
    return _Prepared(entry, digest, suites_hash, task=task, lesson=lesson, submission=submission)


def _row(prepared: _Prepared, result: Result) -> Row:
    if isinstance(result, str):  # the process grading it died
        if prepared.lesson is None or prepared.submission is None:  # only a submission read for a task is graded
            raise GraderError(f"{prepared.entry.shown} was graded without being read; run the batch again.")
        result = failed_report(prepared.lesson, prepared.submission, result, "crashed")
    return Row.of(prepared.task.learner if prepared.task else prepared.entry.learner, result, prepared.entry.late)


def _record(
    book: Gradebook, run_id: int, prepared: _Prepared, row: Row, progress: Progress, options: dict[str, str]
) -> None:
    entry = prepared.entry
    row = replace(
        row,
        identity=entry.identity,
        submitted=submitted_at(entry.path, Path(entry.shown).name, entry.identity.lms or entry.download),
    )
    book.record(run_id, row, prepared.digest, prepared.suites_hash, options)
    progress.done(row)
