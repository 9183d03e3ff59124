"""The ``grade`` command: parse arguments, call the library, map errors to messages and exit codes.

Exit status: 0 when a notebook was graded (whatever its score); 1 when it could not be (an unreadable
notebook, a broken lesson); 2 for bad usage. Heavy imports happen inside the commands, so ``--help`` is fast.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click

from grader import __version__
from grader.batch.lms import CHAPTER_EXPORTS, EXPORTS
from grader.config import (
    DEFAULT_FEEDBACK,
    DEFAULT_LIMITS,
    DEFAULT_UNGRADABLE,
    EXIT_UNGRADED,
    FEEDBACK_MODES,
    GRADESCOPE_ROOT,
    GRADESCOPE_ROOT_ENV,
    GRADESCOPE_VISIBILITIES,
    GRADESCOPE_VISIBILITY,
    LESSONS_ENV,
    UNGRADABLE_CHOICES,
)
from grader.errors import GraderError, Stopped, UsageError

if TYPE_CHECKING:
    from grader.batch.late import LatePolicy
    from grader.config import FeedbackMode, Ungradable
    from grader.pipeline import GradeOptions


class _Grade(click.Group):
    """``grade NOTEBOOK`` is short for ``grade notebook NOTEBOOK``; other words name subcommands."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["notebook", *args]
        return super().parse_args(ctx, args)


def _stop(signum: int, _frame: FrameType | None) -> None:
    """End ``grade`` by an exception, so that every ``finally`` on the way out runs. (While a batch grades, its
    dispatch handles these signals itself: :mod:`grader.batch.dispatch`.)"""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # a second signal must not interrupt the cleanup the first one started
    os.write(2, f"grade: stopped by {signal.Signals(signum).name}\n".encode())  # no lock: a handler's own output
    pool = sys.modules.get("multiprocessing")
    for child in pool.active_children() if pool is not None else ():  # a batch's grading processes: each one
        child.terminate()  # kills its learners' code and zygotes on SIGTERM, then exits (grader.batch.work)
    raise SystemExit(128 + signum)


def _clean_up_when_stopped() -> None:
    """SIGTERM and SIGHUP (``kill``, ``timeout``, a closed terminal) end ``grade`` as Ctrl-C does: learner workers
    are closed and temporary folders (``grader-worker-*``, ``grade-inflight-*``) deleted on the way out. Python's
    default exits on the spot, leaving them behind, and at the process level the learner's processes too."""
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) is not signal.SIG_IGN:  # `nohup grade batch ...` keeps ignoring SIGHUP
                signal.signal(sig, _stop)


@click.group(cls=_Grade, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="grade")
def main() -> None:
    """Grade LLM-inference course notebooks against hidden tests.

    \b
    Examples:
      grade my_notebook.ipynb            a table of scores and feedback
      grade my_notebook.ipynb --json     the same as one JSON object
      grade batch submissions/ --out results
                                         a whole class: gradebook, feedback, summary
    """
    _clean_up_when_stopped()


@contextmanager
def _reported() -> Iterator[None]:
    """The one mapping of the library's errors to what ``grade`` prints and its exit status, for every command.

    A :class:`UsageError` is bad usage: click prints it with the command's usage line, exit status 2. A
    :class:`Stopped` (a batch stopped by a signal) is said on stderr, exit status 128 + the signal. Any other
    :class:`GraderError`, or an :class:`OSError` (a folder that cannot be written, a file gone), means nothing
    could be done: ``grade COMMAND: message`` on stderr, exit status :data:`EXIT_UNGRADED`. Learner text in a
    message is made plain first (:func:`grader.text.plain`): it may quote a file name a learner chose.
    """
    from grader.text import plain

    try:
        yield
    except UsageError as err:
        raise click.UsageError(plain(str(err))) from None
    except Stopped as err:  # a signal, on purpose: the status says which, as a shell's would
        click.echo(f"{click.get_current_context().command_path}: {err}", err=True)
        sys.exit(128 + err.signum)
    except (GraderError, OSError) as err:
        click.echo(f"{click.get_current_context().command_path}: {plain(str(err))}", err=True)
        sys.exit(EXIT_UNGRADED)


def _lessons_option(purpose: str = "") -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--lessons DIR``, the folder of lesson definitions, as every command that reads lessons takes it."""
    return click.option(
        "--lessons",
        "lessons_root",
        type=click.Path(path_type=Path, file_okay=False, exists=True),
        help=f"Folder of lesson definitions{purpose} (default: ${LESSONS_ENV}, else the exercises/ folder of the "
        "course folder you are in).",
    )


def _grading_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options every grading command shares, defined once."""
    decorators: list[Callable[[Callable[..., None]], Callable[..., None]]] = [
        click.option(
            "--lesson", help="Lesson id (default: the notebook's metadata; for a batch, the course's only lesson)."
        ),
        click.option(
            "--suites",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            help="Use a private copy of the hidden suites.",
        ),
        _lessons_option(),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0.1),
            default=DEFAULT_LIMITS.timeout,
            show_default=True,
            help="Seconds a notebook may run before it is stopped.",
        ),
        click.option(
            "--kernel",
            is_flag=True,
            help=(
                "Run the cells in a real Jupyter kernel (as Jupyter and nbgrader do), in the same sandbox: "
                "for checking fidelity; slower, as a kernel starts for every notebook."
            ),
        ),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def _grade_options(
    lesson: str | None, suites: Path | None, lessons_root: Path | None, timeout: float, kernel: bool
) -> GradeOptions:
    from grader.pipeline import GradeOptions

    return GradeOptions.of(lesson, suites, lessons_root, timeout, kernel)


@main.command("notebook")
@click.argument("notebook", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@_grading_options
def notebook_command(
    notebook: Path,
    as_json: bool,
    lesson: str | None,
    suites: Path | None,
    lessons_root: Path | None,
    timeout: float,
    kernel: bool,
) -> None:
    """Grade one notebook and print its score per question.

    A warm daemon answers when one is running (GRADER_DAEMON=off: never).
    """
    import os

    from grader.config import lessons_root as found_lessons
    from grader.serve import client
    from grader.serve.protocol import NotebookRequest, Terminal

    with _reported():
        request = NotebookRequest(
            notebook=str(notebook),
            cwd=os.getcwd(),
            as_json=as_json,
            lesson=lesson,
            timeout=timeout,
            kernel=kernel,
            suites=None if suites is None else str(suites.resolve()),
            # found here, in the learner's folder: a daemon runs in another
            lessons_root=str((lessons_root or found_lessons()).resolve()),
            terminal=Terminal.here(),
        )
        address = client.socket_path() if client.mode() != "off" else None
        asked = client.ask(request, address)
        answer = asked.answer
        if answer is None:
            from grader.serve.answer import answer_cold

            if asked.note:
                click.echo(asked.note, err=True)  # before the cold grade: it says why this one takes longer
            answer = answer_cold(request)
            if client.should_start():
                client.start(request, address)
    sys.stdout.write(answer.stdout)
    sys.stderr.write(answer.stderr)
    sys.exit(answer.exit_status)


@main.command("batch")
@click.argument("submissions", type=click.Path(path_type=Path, exists=True))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Results folder (created; reruns reuse it).",
)
@_grading_options
@click.option(
    "--jobs", type=click.IntRange(min=1), help="Notebooks graded at once on this machine (default: one per core)."
)
@click.option(
    "--dask", "dask_address", metavar="ADDRESS", help="Grade on the Dask cluster whose scheduler is at ADDRESS."
)
@click.option(
    "--feedback",
    type=click.Choice(FEEDBACK_MODES),
    default=DEFAULT_FEEDBACK,
    show_default=True,
    help="learner (the default, safe to send): what `grade` shows the learner, the lesson's reveal policy "
    "applied; full: the teaching assistant's copy, expected values and right answers included, marked so at its "
    "top (never send it to learners); summary: hide what the hidden tests called.",
)
@click.option("--regrade", is_flag=True, help="Grade every submission again, even unchanged ones.")
@click.option("--assignment", help="In an nbgrader course folder: the assignment to grade.")
@click.option("--nbgrader-db", metavar="URL", help="Also write the grades to this nbgrader gradebook.")
@click.option(
    "--only",
    "only",
    multiple=True,
    metavar="LEARNER",
    help="Regrade only this learner (repeat, or separate with commas); keep everyone else's grade.",
)
@click.option(
    "--export",
    type=click.Choice(EXPORTS),
    help="Also write this LMS's grade-import file, RESULTS/<LMS>-import.csv.",
)
@click.option("--export-name", metavar="NAME", help="The assignment column in that file (default: the lesson's title).")
@click.option(
    "--ungradable",
    type=click.Choice(UNGRADABLE_CHOICES),
    default=DEFAULT_UNGRADABLE,
    show_default=True,
    help="What the LMS import holds for a notebook that could not be graded (unreadable, another lesson's, "
    "several candidates): blank (no grade, so it is not read as a 0) or zero.",
)
@click.option(
    "--due",
    metavar="WHEN",
    help="The due date, e.g. 2024-03-01T09:00 (this machine's time zone) or 2024-03-01T09:00+01:00; kept for "
    "later runs and `grade export`.",
)
@click.option(
    "--extensions",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="A CSV of learner,due rows (learner id or LMS id, their own due date); needs --due.",
)
@click.option(
    "--late-penalty",
    metavar="RULE",
    default="none",
    show_default=True,
    help="none, per-day:10 (10% of the maximum off per day or part of one late, never below 0) or zero; "
    "needs --due. The raw score is kept in grades.csv.",
)
def batch_command(
    submissions: Path,
    out: Path,
    lesson: str | None,
    suites: Path | None,
    lessons_root: Path | None,
    timeout: float,
    kernel: bool,
    jobs: int | None,
    dask_address: str | None,
    feedback: FeedbackMode,
    regrade: bool,
    assignment: str | None,
    nbgrader_db: str | None,
    only: tuple[str, ...],
    export: str | None,
    export_name: str | None,
    ungradable: Ungradable,
    due: str | None,
    extensions: Path | None,
    late_penalty: str,
) -> None:
    """Grade every notebook in SUBMISSIONS (a folder, a .zip or one notebook) into the folder --out.

    \b
    SUBMISSIONS may be a flat folder of *.ipynb (learner id = file stem), an
    nbgrader course (submitted/<learner>/<assignment>/*.ipynb), an LMS download
    (Canvas, Moodle, Blackboard file names, or Moodle's folder per learner),
    or a .zip of any of these. One notebook regrades that learner into --out.
    Writes grades.csv, results.jsonl, feedback/<learner>.html|.md, summary.html,
    summary.json and gradebook.sqlite (and, with --export, the LMS's import
    file). A rerun regrades only what changed (the file, the lesson, an option
    such as --timeout), says why, and finishes an interrupted run. Exit status
    0 when every submission has a row.

    \b
    Example:
      grade batch examples/submissions --lesson decode --out results
    """
    from contextlib import nullcontext

    from grader.batch import BatchOptions, run_batch
    from grader.batch.cluster import dask_executor
    from grader.batch.progress import format_summary, progress_for

    if dask_address and jobs:
        raise click.UsageError("--jobs is for grading on this machine; with --dask the cluster's workers decide.")
    options = BatchOptions(
        _grade_options(lesson, suites, lessons_root, timeout, kernel), jobs, feedback, regrade, assignment, nbgrader_db
    )
    options = replace(options, only=_names(only), export=export, export_name=export_name, ungradable=ungradable)
    try:
        with _reported():
            options = replace(options, late=_late_policy(due, extensions, late_penalty))
            if export_name is not None:
                from grader.batch.lms import header_word

                header_word(export_name, "--export-name")
        with _reported(), dask_executor(dask_address) if dask_address else nullcontext() as executor:
            summary = run_batch(submissions, out, options, executor, progress_for())
    except KeyboardInterrupt:
        click.echo("grade batch: interrupted; graded notebooks are kept, run the same command to finish.", err=True)
        sys.exit(130)
    click.echo(format_summary(summary))


def _late_policy(due: str | None, extensions: Path | None, penalty: str) -> LatePolicy | None:
    """The late policy the options describe; ``None`` without ``--due`` (the results folder's own is kept)."""
    from grader.batch.late import LatePolicy, Penalty, parse_time, read_extensions
    from grader.errors import UsageError

    rule = Penalty.parse(penalty)
    if due is None:
        if extensions is not None or rule.kind != "none":
            raise UsageError("--extensions and --late-penalty need --due, the date they are counted from.")
        return None
    return LatePolicy(parse_time(due, "--due"), read_extensions(extensions) if extensions else (), rule)


def _names(given: tuple[str, ...]) -> tuple[str, ...]:
    """``--only a --only b,c`` as ``(a, b, c)``."""
    return tuple(name.strip() for names in given for name in names.split(",") if name.strip())


@main.command("export")
@click.argument("results", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "--to", "to", type=click.Choice(EXPORTS), required=True, help="The LMS whose grade-import layout to write."
)
@click.option(
    "--assignment",
    metavar="NAME",
    help=(
        "The assignment column (default: the lesson's title); for an existing Canvas or Blackboard column, "
        "its header as the LMS's own export writes it."
    ),
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The file to write (default: RESULTS/<LMS>-import.csv).",
)
@click.option(
    "--ungradable",
    "blank_or_zero",
    type=click.Choice(UNGRADABLE_CHOICES),
    help="What a learner whose notebook could not be graded gets: blank (no grade) or zero "
    "(default: what the batch that wrote RESULTS was given).",
)
@click.option(
    "--moodle-words",
    metavar="WORDS",
    help="A Moodle site in another language: its worksheet's words for Identifier|Participant |Grade|"
    "Last modified (grade), copied from one worksheet it downloads.",
)
@_lessons_option(", for the lesson's title")
def export_command(
    results: Path,
    to: str,
    assignment: str | None,
    output: Path | None,
    blank_or_zero: Ungradable | None,
    moodle_words: str | None,
    lessons_root: Path | None,
) -> None:
    """Write the grades of a results folder as an LMS imports them (Canvas, Moodle, Blackboard, or plain CSV).

    \b
    Example:
      grade export results --to canvas --assignment "Decode (123456)"
    """
    from grader.batch.lms import MoodleWords, export_results, header_word

    with _reported():
        if assignment is not None:
            header_word(assignment, "--assignment")
        words = MoodleWords.parse(moodle_words) if moodle_words is not None else MoodleWords()
        written = export_results(results, to, assignment, output, lessons_root, blank_or_zero, words)
    click.echo(f"Wrote the {written.note}")


_visibility_option = click.option(
    "--visibility",
    type=click.Choice(GRADESCOPE_VISIBILITIES),
    default=GRADESCOPE_VISIBILITY,
    show_default=True,
    help="When Gradescope shows learners the results.",
)


@main.command("chapter")
@click.argument("results", nargs=-1, required=True, type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("chapter"),
    show_default=True,
    help="Where to write chapter.csv and chapter.md.",
)
@_lessons_option(", for the lessons' titles and points")
@click.option(
    "--export",
    type=click.Choice(EXPORTS),
    help=f"Also write this LMS's grade import with a column per lesson ({' or '.join(CHAPTER_EXPORTS)}), "
    "OUT/<LMS>-import.csv (Moodle's worksheet is one assignment's: use `grade export` on each lesson's folder).",
)
@click.option(
    "--assignment",
    "assignments",
    multiple=True,
    metavar="LESSON=HEADER",
    help="A lesson's column header as the LMS's own export writes it, e.g. 'decode=Decode (123456)' (repeat).",
)
def chapter_command(
    results: tuple[Path, ...],
    out: Path,
    lessons_root: Path | None,
    export: str | None,
    assignments: tuple[str, ...],
) -> None:
    """Bring several lessons' results folders together: a row per learner, a column per lesson, what to re-teach.

    Each RESULTS folder is one lesson's `grade batch --out`; learners are matched across them by their LMS id
    (else their learner id), never by name.

    \b
    Example:
      grade chapter results/request results/prefill results/decode --out results/chapter
    """
    from grader.batch.chapter import chapter_results

    with _reported():
        names = dict(_lesson_header(given) for given in assignments)
        _, said = chapter_results(list(results), out, lessons_root, export, names)
    click.echo(f"Wrote the chapter: {said}")


def _lesson_header(given: str) -> tuple[str, str]:
    """``decode=Decode (123456)`` as ``("decode", "Decode (123456)")``."""
    lesson, sep, header = given.partition("=")
    if not sep or not lesson.strip() or not header.strip():
        raise click.UsageError(f"--assignment {given!r} should be LESSON=HEADER, e.g. 'decode=Decode (123456)'.")
    from grader.batch.lms import header_word

    return lesson.strip(), header_word(header.strip(), f"--assignment {lesson.strip()}=")


@main.command("class")
@click.argument("class_folder", metavar="CLASS", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Results folder: OUT/<lesson>/ per lesson and OUT/chapter/ (created; reruns reuse it).",
)
@_lessons_option()
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_LIMITS.timeout,
    show_default=True,
    help="Seconds a notebook may run before it is stopped.",
)
@click.option(
    "--jobs", type=click.IntRange(min=1), help="Notebooks graded at once on this machine (default: one per core)."
)
@click.option(
    "--feedback",
    type=click.Choice(FEEDBACK_MODES),
    default=DEFAULT_FEEDBACK,
    show_default=True,
    help="The feedback pages' view, as for `grade batch`.",
)
@click.option("--regrade", is_flag=True, help="Grade every submission again, even unchanged ones.")
def class_command(
    class_folder: Path,
    out: Path,
    lessons_root: Path | None,
    timeout: float,
    jobs: int | None,
    feedback: FeedbackMode,
    regrade: bool,
) -> None:
    """Grade a class folder holding one subfolder per lesson, then bring the lessons together.

    \b
    CLASS/<lesson>/ holds that lesson's submissions in any layout `grade batch`
    reads (a flat folder, an LMS download, a .zip is not: unzip it there).
    Each lesson is graded as its own batch into OUT/<lesson>/; then OUT/chapter/
    gets chapter.csv and chapter.md, as `grade chapter` writes them. The order
    of the lessons is the chapter outline's (chapter.toml beside the lessons).

    \b
    Example:
      grade class class/ --out results
    """
    from grader.batch import BatchOptions
    from grader.batch.chapter import grade_class
    from grader.batch.progress import format_summary, progress_for

    grading = _grade_options(None, None, lessons_root, timeout, False)
    options = BatchOptions(grading, jobs, feedback, regrade)
    try:
        with _reported():
            done = grade_class(class_folder, out, options, lambda lesson: progress_for())
    except KeyboardInterrupt:
        click.echo("grade class: interrupted; graded notebooks are kept, run the same command to finish.", err=True)
        sys.exit(130)
    for summary in done.batches:
        click.echo(format_summary(summary))
    click.echo(f"Wrote the chapter: {done.said}")


@main.command("gradescope")
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    envvar=GRADESCOPE_ROOT_ENV,
    default=GRADESCOPE_ROOT,
    show_default=True,
    help=f"Gradescope's folder: reads ROOT/submission, writes ROOT/results/results.json (or ${GRADESCOPE_ROOT_ENV}).",
)
@_grading_options
@_visibility_option
def gradescope_command(
    root: Path,
    lesson: str | None,
    suites: Path | None,
    lessons_root: Path | None,
    timeout: float,
    kernel: bool,
    visibility: str,
) -> None:
    """Grade the notebook in a Gradescope submission and write results.json.

    Always writes a valid results.json (score 0 and the reason when there is no notebook, several, or one
    that cannot be graded); exit status 1 only if the file cannot be written.
    """
    from grader.integrations.gradescope import grade_for_gradescope, write_results

    results = grade_for_gradescope(root, _grade_options(lesson, suites, lessons_root, timeout, kernel), visibility)
    try:
        path = write_results(results, root)
    except OSError as err:
        click.echo(f"grade gradescope: cannot write results.json under {root} ({err.strerror}).", err=True)
        sys.exit(EXIT_UNGRADED)
    click.echo(f"{path}: {results['score']:g} points. {results['output'].splitlines()[0] if results['output'] else ''}")


@main.command("gradescope-bundle")
@click.option("--lesson", required=True, help="The lesson the Gradescope assignment grades.")
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("autograder.zip"),
    show_default=True,
    help="The zip to write.",
)
@_lessons_option()
@_visibility_option
def gradescope_bundle_command(lesson: str, out: Path, lessons_root: Path | None, visibility: str) -> None:
    """Build the autograder zip to upload to a Gradescope programming assignment."""
    from grader.integrations.gradescope_bundle import build_bundle
    from grader.lessons import load_lesson

    with _reported():
        names = build_bundle(load_lesson(lesson, lessons_root), out, visibility)
    click.echo(f"Wrote {out} ({len(names)} files): upload it as the autograder of a Gradescope programming assignment.")


@main.command("audit")
@click.argument("lesson")
@_lessons_option()
@click.option(
    "--suites",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Audit a private copy of the hidden suites.",
)
@click.option("--jobs", type=click.IntRange(min=1), help="Mutants graded at once (default: one per core).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the report.")
def audit_command(lesson: str, lessons_root: Path | None, suites: Path | None, jobs: int | None, as_json: bool) -> None:
    """Mutation-test LESSON's hidden suites: how many wrong versions of the solution do they catch?

    \b
    Grades cosmic-ray's mutants of every function question's solution, and the
    lesson's own slips (audit.toml), in one batch; prints each survivor (a
    mutant with full marks) with its diff. Exit status 0 when every survivor is
    explained in audit.toml as equivalent, 1 otherwise or when the lesson is
    broken. Needs: python3 -m pip install -e '.[audit]'
    """
    import json

    from grader.authoring.audit import audit_lesson
    from grader.authoring.audit.report import as_json as report_json
    from grader.authoring.audit.report import format_text
    from grader.batch.progress import progress_for
    from grader.lessons import load_lesson

    with _reported():
        report = audit_lesson(load_lesson(lesson, lessons_root, suites), jobs=jobs, progress=progress_for())
    click.echo(json.dumps(report_json(report), indent=2) if as_json else format_text(report), nl=as_json)
    sys.exit(0 if report.ok else 1)


@main.command("corpus")
@click.argument("lesson")
@_lessons_option()
@click.option("--jobs", type=click.IntRange(min=1), help="Answers graded at once (default: one per core).")
def corpus_command(lesson: str, lessons_root: Path | None, jobs: int | None) -> None:
    """Grade LESSON's mistakes corpus: is every wrong answer caught and named, every right one kept?

    \b
    Grades each file of <lesson folder>/mistakes/ (one answer, with the verdict
    and the misconception its feedback must name) in one batch, and lists every
    wrong verdict and unnamed misconception. Exit status 0 when there is none,
    1 otherwise or when the lesson or a corpus file is broken.
    """
    from grader.authoring.corpus import check_lesson

    with _reported():
        report = check_lesson(lesson, lessons_root=lessons_root, jobs=jobs)
    click.echo("\n".join(report.lines()))
    sys.exit(0 if report.ok else 1)


@main.command("build")
@click.argument("lesson_dir", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "--bundle-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("build"),
    show_default=True,
    help="Where to write the Gradescope autograder zip (not committed: it holds the package).",
)
@click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Release instead: a CSV of learners (`learner`, optional `identity`), one notebook each on their own numbers.",
)
@click.option(
    "--out",
    "release_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("released"),
    show_default=True,
    help="With --roster: where each learner's notebook goes (<out>/<learner>/<notebook>.ipynb; not committed).",
)
@click.option(
    "--nbgrader",
    "for_nbgrader",
    is_flag=True,
    help="With --roster: each student's notebook as nbgrader releases it (test cells, nbgrader's metadata).",
)
def build_command(
    lesson_dir: Path, bundle_dir: Path, roster: Path | None, release_dir: Path, for_nbgrader: bool
) -> None:
    """Build a lesson's notebooks (learner, solution, nbgrader source) and Gradescope zip from its one source.

    \b
    With --roster, release it instead: one learner notebook per learner, each with
    their own numbers (a lesson with [params]; needs the course secret).
    Example:
      grade build exercises/decode
      grade build exercises/decode --roster roster.csv --out released
      grade build exercises/decode --roster roster.csv --nbgrader   # an nbgrader course
    """
    from grader.authoring.build import build_lesson
    from grader.lessons import load_lesson

    root = lesson_dir.resolve().parent
    with _reported():
        lesson = load_lesson(lesson_dir.resolve().name, root)
        if roster is not None:
            from grader.authoring.release import release

            written = release(lesson, roster, release_dir, root, nbgrader=for_nbgrader)
            click.echo(f"Released {len(written)} notebook(s) of {lesson.id} under {release_dir}")
            if not for_nbgrader:
                click.echo("For an nbgrader course add --nbgrader: these have no autograder test cells.")
            return
        if for_nbgrader:
            raise UsageError("--nbgrader goes with --roster: it releases each student's notebook for nbgrader.")
        written = build_lesson(lesson, bundle_dir)
    for path in written:
        click.echo(f"Wrote {path}")


@main.command("params")
@click.argument("lesson")
@click.option("--learner", required=True, help="The learner id a batch knows them by.")
@click.option("--identity", default="", help="Their LMS identity, when their numbers were drawn from it.")
@_lessons_option()
def params_command(lesson: str, learner: str, identity: str, lessons_root: Path | None) -> None:
    """Show one learner's numbers for LESSON, as release and grading draw them (needs the course secret).

    \b
    Example:
      grade params decode --learner ada
    """
    from grader.config import lessons_root as default_root
    from grader.lessons import load_lesson
    from grader.params import describe, draw, identity_of, require_secret

    with _reported():
        root = lessons_root or default_root()
        found = load_lesson(lesson, root)
        if not found.params:
            click.echo(f"Lesson {found.id} gives every learner the same numbers (it declares no [params]).")
            return
        who = identity_of(learner, identity)
        click.echo(f"{learner}: {describe(draw(found, who, require_secret(found, root)))}")


@main.command("daemon")
@click.argument("action", type=click.Choice(["status", "stop"]), default="status")
@click.option(
    "--json", "as_json", is_flag=True, help="status as JSON: each daemon's pid, socket, log and the state it reports."
)
def daemon_command(action: str, as_json: bool) -> None:
    """Show (status) or stop (stop) your warm grading daemons.

    \b
    `grade NOTEBOOK` from a terminal leaves one running for the next call;
    it exits by itself after 10 idle minutes. See the README, "Warm daemon".
    """
    import json
    from dataclasses import asdict

    from grader.serve import client

    if action == "stop":
        stopped = client.stop_all()
        left = [d for d in stopped if client.alive(d.pid)]
        click.echo(
            f"Stopped {len(stopped) - len(left)} daemon(s)."
            + (f" Still running: {', '.join(str(d.pid) for d in left)}." if left else "")
        )
        sys.exit(1 if left else 0)
    daemons = client.running()
    if as_json:
        shown = []
        for d in daemons:
            state = client.status(d.socket)  # None while it warms up (it answers only once ready)
            shown.append(
                {
                    "pid": d.pid,
                    "current": d.current,
                    "socket": str(d.socket),
                    "log": str(d.log),
                    "status": state and asdict(state),
                }
            )
        click.echo(json.dumps(shown))
        return
    if not daemons:
        click.echo(f"No grading daemon is running (GRADER_DAEMON={client.mode()}).")
        return
    for d in daemons:
        which = "answers this `grade`" if d.current else "for other code or settings; exits when idle"
        click.echo(f"pid {d.pid}: {which}; log {d.log}")


if __name__ == "__main__":  # pragma: no cover
    main()
