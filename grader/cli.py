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
from typing import TYPE_CHECKING, Any, NoReturn

import click

from grader import __version__
from grader.batch.lms_table import CHAPTER_EXPORTS, EXPORTS, HEADER_WORDS, ROSTER_EXPORTS
from grader.config import (
    DEFAULT_FEEDBACK,
    DEFAULT_LIMITS,
    DEFAULT_UNGRADABLE,
    EXIT_UNGRADED,
    FEEDBACK_MODES,
    GRADESCOPE_ROOT,
    GRADESCOPE_VISIBILITIES,
    GRADESCOPE_VISIBILITY,
    ROSTER_FILE,
    SERVICE_DATABASE,
    SERVICE_HOST,
    SERVICE_PORT,
    UNGRADABLE_CHOICES,
)
from grader.environment import GRADESCOPE_ROOT_ENV, ISOLATION_ENV, LESSONS_ENV
from grader.errors import GraderError, Stopped, UsageError

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from grader.batch import BatchOptions
    from grader.batch.late import LatePolicy
    from grader.config import FeedbackMode, Ungradable
    from grader.model import Report
    from grader.pipeline import GradeOptions


class _Reported(click.Command):
    """A command whose callback runs inside :func:`_reported`: every command of ``grade`` is one (its groups'
    ``command_class``), so none can let a :class:`GraderError` out as a traceback (tests/test_cli.py walks them)."""

    def invoke(self, ctx: click.Context) -> Any:
        with _reported():
            return super().invoke(ctx)


class _ReportedGroup(click.Group, _Reported):
    """A group of ``grade`` (``serve``): its own callback and each of its commands run inside :func:`_reported`."""

    command_class = _Reported
    group_class: type[click.Group] | type[type] = type


class _Grade(_ReportedGroup):
    """``grade NOTEBOOK`` is short for ``grade notebook NOTEBOOK``; other words name subcommands."""

    group_class = _ReportedGroup

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["notebook", *args]
        return super().parse_args(ctx, args)


def _stop(signum: int, _frame: FrameType | None) -> None:
    """End ``grade`` by an exception, so that every ``finally`` on the way out runs. (While a batch grades, its
    dispatch handles these signals itself: :mod:`grader.batch.dispatch`.)"""
    _ignore_stop_signals()  # a second signal must not interrupt the cleanup the first one started
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
    from grader.params import take_secret_from_environment

    take_secret_from_environment()  # before any process starts: none inherits the course secret
    _clean_up_when_stopped()
    if click.get_current_context().invoked_subcommand != "notebook":  # its warm path starts nothing: kept light
        _end_orphaned_sandboxes_on_exit()  # (its cold path asks for this itself)


_ORPHANS_WATCHED = False


def _end_orphaned_sandboxes_on_exit() -> None:
    """Orphans of this process tree come to ``grade``, which ends any sandbox among them as it exits (normally,
    by an error, or stopped by a signal): a bwrap killed while starting leaves one that nothing else ends
    (grader/execute/limits.py, :func:`adopt_orphans`). Once a process, also when ``main`` is called in-process."""
    global _ORPHANS_WATCHED
    if _ORPHANS_WATCHED:
        return
    _ORPHANS_WATCHED = True
    import atexit

    from grader.execute.upkeep import adopt_orphans, end_adopted_sandboxes

    adopt_orphans()
    atexit.register(end_adopted_sandboxes)


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
            help=(
                "Seconds a notebook's cells may run, all together, before it is stopped. The hidden tests' calls to "
                f"its functions have their own limits besides: {DEFAULT_LIMITS.call_timeout:g} s a call and "
                f"{DEFAULT_LIMITS.calls_timeout:g} s in all."
            ),
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


def _isolation_option(command: Callable[..., None]) -> Callable[..., None]:
    """``--isolation``, for the commands that grade other people's notebooks (SECURITY.md, "Isolation levels")."""
    return click.option(
        "--isolation",
        metavar="LEVEL",
        help=f"auto (the default, or ${ISOLATION_ENV}): a sandbox (bubblewrap), or refuse to grade where none can "
        "run; process: grade with process limits only (one line says what learner code can then do).",
    )(command)


def _grade_options(
    lesson: str | None,
    suites: Path | None,
    lessons_root: Path | None,
    timeout: float,
    kernel: bool,
    isolation: str | None = None,
) -> GradeOptions:
    from grader.pipeline import GradeOptions

    return GradeOptions.of(lesson, suites, lessons_root, timeout, kernel, isolation)


def _say_isolation(options: GradeOptions, command: str) -> None:
    """Check that ``command`` may grade others' notebooks here (raises :class:`NoSandbox` when it may not); one line
    on stderr when it goes without a sandbox because it was told to, saying what learner code can do."""
    from grader.execute.upkeep import check_settings, grading_others

    check_settings(options.mode)
    line = grading_others(options.mode, command)
    if line:
        click.echo(line, err=True)


def _service_option(what: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option(
        "--service",
        is_flag=False,
        flag_value="",
        default=None,
        metavar="[URL]",
        help=f"{what} the course service the notebook was released with (its metadata), or the one at URL.",
    )


def _late_options(command: Callable[..., None]) -> Callable[..., None]:
    """``--due``, ``--extensions`` and ``--late-penalty``: the late policy, as ``grade batch`` and ``grade serve``
    take it, defined once."""
    decorators: list[Callable[[Callable[..., None]], Callable[..., None]]] = [
        click.option(
            "--due",
            metavar="WHEN",
            help="The due date, e.g. 2024-03-01T09:00 (this machine's time zone) or 2024-03-01T09:00+01:00; kept "
            "for later runs and `grade export`.",
        ),
        click.option(
            "--extensions",
            type=click.Path(path_type=Path, dir_okay=False, exists=True),
            help="A CSV of learner,due rows (learner id or LMS id, their own due date); needs --due.",
        ),
        click.option(
            "--late-penalty",
            metavar="RULE",
            default="none",
            show_default=True,
            help="none, per-day:10 (10% of the maximum off per day or part of one late, never below 0) or zero; "
            "needs --due. The raw score is kept in grades.csv.",
        ),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


@main.command("notebook")
@click.argument("notebook", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@_service_option("Have it graded by")
@_grading_options
def notebook_command(
    notebook: Path,
    as_json: bool,
    service: str | None,
    lesson: str | None,
    suites: Path | None,
    lessons_root: Path | None,
    timeout: float,
    kernel: bool,
) -> None:
    """Grade one notebook and print its score per question.

    A warm daemon answers when one is running (GRADER_DAEMON=off: never). A notebook
    released with a course service is graded there when no lessons are on this machine.
    """
    from grader.config import lessons_root as found_lessons
    from grader.serve import client

    with _reported():
        if service is None and lessons_root is None:
            try:
                found_lessons()
            except UsageError:
                from grader.service.remote import carries_service

                if not carries_service(notebook):
                    raise
                service = ""  # no lessons here: the service it was released with grades it
        if service is not None:
            from grader.service.remote import grade_remotely

            if suites is not None or kernel or lesson is not None:
                raise UsageError("--service grades on the course service: --lesson, --suites and --kernel are its.")

            _print_report(grade_remotely(notebook, service or None), as_json)
            return
        request = client.notebook_request(
            notebook,
            as_json=as_json,
            lessons=lessons_root,
            lesson=lesson,
            suites=suites,
            timeout=timeout,
            kernel=kernel,
        )
        address = client.socket_path() if client.mode() != "off" else None
        asked = client.ask(request, address)
        answer = asked.answer
        if answer is None:
            _collect_garbage_rarely()  # before the cold grade's imports
            from grader.answer import answer_cold

            if asked.note:
                click.echo(asked.note, err=True)  # before the cold grade: it says why this one takes longer
            _end_orphaned_sandboxes_on_exit()
            answer = answer_cold(request)
            if client.should_start():
                client.start(request, address)
    sys.stdout.write(answer.stdout)
    sys.stderr.write(answer.stderr)
    _finish(answer.exit_status)


#: Whether this process is the ``grade`` script (:func:`run`), not code that calls :func:`main` in a process of its
#: own (tests): only then may a command end the process at once (:func:`_finish`).
_SCRIPT = False


def run() -> None:
    """The ``grade`` script: :func:`main`, in a process that is ``grade``'s alone."""
    global _SCRIPT
    _SCRIPT = True
    try:
        main()
    finally:
        _ignore_stop_signals()


def _ignore_stop_signals() -> None:
    """Once the command is done (or stopped), SIGTERM and SIGHUP are ignored while the interpreter ends.

    Python puts back the default action of every signal it handles as it finalizes, so a signal in those last
    milliseconds (``timeout`` or systemd signal the group again and again) killed ``grade`` with no message and
    no exit status of its own, after its work was done and written. As :func:`_stop` does for a stopped one."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)


def _collect_garbage_rarely() -> None:
    """In the ``grade`` script, which grades one notebook here and ends: the cyclic garbage collector runs only
    past 100,000 new objects. Importing pytest and hypothesis and collecting the suites set it off ~130 times (~30 ms
    of a cold grade, each pass over a heap that lives until the process ends a second later); the garbage it would
    have freed is a few megabytes at most. Elsewhere (``main`` in a test's process) the thresholds are left alone."""
    if _SCRIPT:
        import gc

        gc.set_threshold(100_000, 50, 100)


def _finish(status: int) -> NoReturn:
    """Exit with ``status`` once a notebook's answer is written and its workers are ended.

    In the ``grade`` script, the process ends at once (:func:`grader.execute.upkeep.exit_at_once`) after its exit
    handlers (the end of adopted sandboxes). Elsewhere (``main`` called in a test's process) a normal exit."""
    if not _SCRIPT:
        sys.exit(status)
    import atexit

    from grader.execute.upkeep import exit_at_once

    atexit._run_exitfuncs()
    exit_at_once(status)


def _print_report(report: Report, as_json: bool) -> None:
    """Print ``report`` as a grade in this process prints it (grader/answer.py renders the same way)."""
    import json

    from grader.report import print_report, report_to_dict

    if as_json:
        click.echo(json.dumps(report_to_dict(report)))
        return
    from rich.console import Console

    print_report(report, Console())


@main.command("submit")
@click.argument("notebook", type=click.Path(path_type=Path, dir_okay=False))
@_service_option("Hand it in to")
def submit_command(notebook: Path, service: str | None) -> None:
    """Hand in a notebook released with a course service, as saved on disk, and print the receipt.

    \b
    Example:
      grade submit decode.ipynb
    """
    from grader.service.client import receipt_text
    from grader.service.remote import submit_file

    with _reported():
        receipt = submit_file(notebook, service or None)
    click.echo(receipt_text(receipt))


#: ``grade batch`` and ``grade class``: the course roster that maps each download's learners (grader/batch/roster.py).
_roster_option = click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="The course roster the notebooks were released with (grade roster writes one): each download's learners "
    "get its learner ids and are graded on the numbers of its `identity` column.",
)


def _class_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options of a class's grading that `grade batch` and `grade class` share, defined once: how many at once
    and where, the feedback view, regrading, the LMS import, the late policy and the roster
    (:func:`_batch_options_of`)."""
    decorators: list[Callable[[Callable[..., None]], Callable[..., None]]] = [
        click.option(
            "--jobs",
            type=click.IntRange(min=1),
            help="Notebooks graded at once on this machine (default: one per core).",
        ),
        click.option(
            "--dask", "dask_address", metavar="ADDRESS", help="Grade on the Dask cluster whose scheduler is at ADDRESS."
        ),
        click.option(
            "--feedback",
            type=click.Choice(FEEDBACK_MODES),
            default=DEFAULT_FEEDBACK,
            show_default=True,
            help="learner (the default, safe to send): what `grade` shows the learner, the lesson's reveal policy "
            "applied; full: the teaching assistant's copy, expected values and right answers included, marked so at "
            "its top (never send it to learners); summary: hide what the hidden tests called.",
        ),
        click.option("--regrade", is_flag=True, help="Grade every submission again, even unchanged ones."),
        click.option(
            "--export",
            type=click.Choice(EXPORTS),
            help="Also write this LMS's grade-import file, RESULTS/<LMS>-import.csv (kept current by later runs).",
        ),
        click.option(
            "--ungradable",
            type=click.Choice(UNGRADABLE_CHOICES),
            default=DEFAULT_UNGRADABLE,
            show_default=True,
            help="What the LMS import holds for a notebook that could not be graded (unreadable, another lesson's, "
            "several candidates): blank (no grade, so it is not read as a 0) or zero.",
        ),
        _late_options,
        _roster_option,
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def _batch_options_of(
    grading: GradeOptions,
    jobs: int | None,
    dask_address: str | None,
    feedback: FeedbackMode,
    regrade: bool,
    export: str | None,
    ungradable: Ungradable,
    due: str | None,
    extensions: Path | None,
    late_penalty: str,
    roster: Path | None,
) -> BatchOptions:
    """The :class:`BatchOptions` of :func:`_class_options`' values; a :class:`UsageError` for a bad combination."""
    from grader.batch import BatchOptions

    if dask_address and jobs:
        raise UsageError("--jobs is for grading on this machine; with --dask the cluster's workers decide.")
    late = _late_policy(due, extensions, late_penalty)
    return BatchOptions(
        grading, jobs, feedback, regrade, export=export, ungradable=ungradable, late=late, roster=roster
    )


@main.command("batch")
@click.argument("submissions", type=click.Path(path_type=Path, exists=True))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Results folder (created; reruns reuse it).",
)
@_grading_options
@_isolation_option
@_class_options
@click.option("--assignment", help="In an nbgrader course folder: the assignment to grade.")
@click.option("--nbgrader-db", metavar="URL", help="Also write the grades to this nbgrader gradebook.")
@click.option(
    "--only",
    "only",
    multiple=True,
    metavar="LEARNER",
    help="Regrade only this learner (repeat, or separate with commas); keep everyone else's grade.",
)
@click.option("--export-name", metavar="NAME", help="The assignment column in that file (default: the lesson's title).")
def batch_command(
    submissions: Path,
    out: Path,
    lesson: str | None,
    suites: Path | None,
    lessons_root: Path | None,
    timeout: float,
    kernel: bool,
    isolation: str | None,
    assignment: str | None,
    nbgrader_db: str | None,
    only: tuple[str, ...],
    export_name: str | None,
    **shared: Any,
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
    from grader.batch import run_batch
    from grader.batch.progress import format_summary, progress_for

    grading = _grade_options(lesson, suites, lessons_root, timeout, kernel, isolation)
    with _reported():
        _say_isolation(grading, "grade batch")
        options = _batch_options_of(grading, **shared)
        options = replace(options, assignment=assignment, nbgrader_db=nbgrader_db, only=_names(only))
        if export_name is not None:
            from grader.batch.sheet import header_word

            header_word(export_name, "--export-name")
            options = replace(options, export_name=export_name)
    with _interrupted("grade batch"), _reported(), _executor(shared["dask_address"]) as executor:
        summary = run_batch(submissions, out, options, executor, progress_for())
    click.echo(format_summary(summary))


@contextmanager
def _interrupted(command: str) -> Iterator[None]:
    """Ctrl-C in a batch: what is graded is kept, and the same command finishes it."""
    try:
        yield
    except KeyboardInterrupt:
        click.echo(f"{command}: interrupted; graded notebooks are kept, run the same command to finish.", err=True)
        sys.exit(130)


@contextmanager
def _executor(dask_address: str | None) -> Iterator[Executor | None]:
    """The Dask cluster's executor with ``--dask``, else None (local grading processes)."""
    if not dask_address:
        yield None
        return
    from grader.batch.cluster import dask_executor

    with dask_executor(dask_address) as executor:
        yield executor


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
    HEADER_WORDS,
    "moodle_words",
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
    from grader.batch.lms import export_results
    from grader.batch.sheet import MoodleWords, header_word

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
    from grader.batch.chapter_links import grade_chapter

    with _reported():
        names = dict(_lesson_header(given) for given in assignments)
        _, said = grade_chapter(list(results), out, lessons_root, export, names)
    click.echo(f"Wrote the chapter: {said}")


def _lesson_header(given: str, option: str = "--assignment") -> tuple[str, str]:
    """``decode=Decode (123456)`` as ``("decode", "Decode (123456)")``."""
    lesson, sep, header = given.partition("=")
    if not sep or not lesson.strip() or not header.strip():
        raise click.UsageError(f"{option} {given!r} should be LESSON=HEADER, e.g. 'decode=Decode (123456)'.")
    from grader.batch.sheet import header_word

    return lesson.strip(), header_word(header.strip(), f"{option} {lesson.strip()}=")


@main.command("class")
@click.argument("class_folder", metavar="CLASS", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Results folder: OUT/<lesson>/ per lesson and OUT/chapter/ (created; reruns reuse it).",
)
@_grading_options
@_class_options
@click.option(
    "--export-name",
    "export_names",
    multiple=True,
    metavar="LESSON=HEADER",
    help="A lesson's column in the LMS imports, as the LMS's own export writes it, e.g. 'decode=Decode (123456)' "
    "(repeat; default: the lesson's title).",
)
@_isolation_option
def class_command(
    class_folder: Path,
    out: Path,
    lesson: str | None,
    suites: Path | None,
    lessons_root: Path | None,
    timeout: float,
    kernel: bool,
    export_names: tuple[str, ...],
    isolation: str | None,
    **shared: Any,
) -> None:
    """Grade a class folder holding the submissions of each lesson, then bring the lessons together.

    \b
    CLASS/<lesson>/ holds that lesson's submissions in any layout `grade batch`
    reads (a flat folder, an LMS download, or one .zip of it; CLASS/<lesson>.zip
    too). Each lesson is graded as its own batch into OUT/<lesson>/, with the
    options `grade batch` takes (--lesson: only that one); then OUT/chapter/
    gets chapter.csv and chapter.md, as `grade chapter` writes them, and with
    --export the LMS's imports (each lesson's, and the chapter's for Canvas or
    Blackboard), written again by every later run. The order of the lessons is
    the chapter outline's (chapter.toml beside the lessons).

    \b
    Example:
      grade class class/ --out results --export canvas --due 2024-03-01T09:00
    """
    from grader.batch.classes import grade_class
    from grader.batch.progress import format_summary

    grading = _grade_options(lesson, suites, lessons_root, timeout, kernel, isolation)
    with _reported():
        _say_isolation(grading, "grade class")
        options = _batch_options_of(grading, **shared)
        names = dict(_lesson_header(given, "--export-name") for given in export_names)
    with _interrupted("grade class"), _reported(), _executor(shared["dask_address"]) as executor:
        done = grade_class(class_folder, out, options, names, executor, show_progress=True)
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
@_isolation_option
@_visibility_option
def gradescope_command(
    root: Path,
    lesson: str | None,
    suites: Path | None,
    lessons_root: Path | None,
    timeout: float,
    kernel: bool,
    isolation: str | None,
    visibility: str,
) -> None:
    """Grade the notebook in a Gradescope submission and write results.json.

    Always writes a valid results.json (score 0 and the reason when there is no notebook, several, or one
    that cannot be graded); exit status 1 only if the file cannot be written.
    """
    from grader.integrations.gradescope import grade_for_gradescope, write_results

    grading = _grade_options(lesson, suites, lessons_root, timeout, kernel, isolation)
    try:
        _say_isolation(grading, "grade gradescope")
    except UsageError as err:  # results.json says it (grade_for_gradescope checks again), and so does the log
        click.echo(f"grade gradescope: {err}", err=True)
    results = grade_for_gradescope(root, grading, visibility)
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
@_isolation_option
def gradescope_bundle_command(
    lesson: str, out: Path, lessons_root: Path | None, visibility: str, isolation: str | None
) -> None:
    """Build the autograder zip to upload to a Gradescope programming assignment.

    Gradescope's containers rarely allow a sandbox: without one the autograder grades nothing unless the bundle
    was built with --isolation process (its scripts then close the answers to the learner's uid).
    """
    from grader.integrations.gradescope_bundle import build_bundle
    from grader.lessons import load_lesson

    with _reported():
        names = build_bundle(load_lesson(lesson, lessons_root), out, visibility, isolation=isolation)
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
@click.option(
    "--service",
    metavar="URL",
    help="With --roster: each notebook checks and hands in through the course service at URL (`grade serve`), "
    "with its learner's own token, and needs no lesson on the learner's machine.",
)
def build_command(
    lesson_dir: Path,
    bundle_dir: Path,
    roster: Path | None,
    release_dir: Path,
    for_nbgrader: bool,
    service: str | None,
) -> None:
    """Build a lesson's notebooks (learner, solution, nbgrader source) and Gradescope zip from its one source.

    \b
    With --roster, release it instead: one learner notebook per learner, each with
    their own numbers (a lesson with [params]; needs the course secret).
    Example:
      grade build exercises/decode
      grade build exercises/decode --roster roster.csv --out released
      grade build exercises/decode --roster roster.csv --nbgrader   # an nbgrader course
      grade build exercises/decode --roster roster.csv --service https://grader.example.edu
    """
    from grader.authoring.build import build_lesson
    from grader.lessons import load_lesson

    root = lesson_dir.resolve().parent
    with _reported():
        lesson = load_lesson(lesson_dir.resolve().name, root)
        if roster is not None:
            from grader.authoring.release import release

            written = release(lesson, roster, release_dir, root, nbgrader=for_nbgrader, service=service)
            click.echo(f"Released {len(written)} notebook(s) of {lesson.id} under {release_dir}")
            if not for_nbgrader and service is None:
                click.echo("For an nbgrader course add --nbgrader: these have no autograder test cells.")
            return
        if for_nbgrader or service is not None:
            which = "--nbgrader" if for_nbgrader else "--service"
            raise UsageError(f"{which} goes with --roster: it is about releasing each learner's notebook.")
        written = build_lesson(lesson, bundle_dir)
    for path in written:
        click.echo(f"Wrote {path}")


@main.command("roster")
@click.argument("export", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option("--lms", type=click.Choice(ROSTER_EXPORTS), required=True, help="Whose roster export EXPORT is.")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), required=True, help="The roster CSV to write.")
def roster_command(export: Path, lms: str, out: Path) -> None:
    """Write the course roster from the LMS's own roster export, so nobody predicts learner ids by hand.

    \b
    canvas: Grades > Export > Export Entire Gradebook (CSV); numbers are drawn
            from each learner's Canvas user id.
    moodle: Participants > Download table data as CSV (with Username, ID number
            or Email address shown); numbers are drawn from the first of these,
            and a download is mapped by the full name (Moodle's participant ids
            change from assignment to assignment).
    Release with it (grade build LESSON --roster OUT) and grade with it
    (grade batch/class ... --roster OUT): one learner id and one set of
    numbers per learner, in every lesson and LMS.

    \b
    Example:
      grade roster gradebook.csv --lms canvas --out roster.csv
    """
    from grader.batch.roster import from_lms_export, roster_csv
    from grader.files import write_atomic

    with _reported():
        rows, notes = from_lms_export(export, lms)
        write_atomic(out, roster_csv(rows))
    click.echo(f"Wrote {out}: {len(rows)} learner(s), numbers drawn from their {lms} identity")
    for note in notes:
        click.echo(f"  note: {note}")


@main.command("params")
@click.argument("lesson")
@click.option("--learner", help="The learner id a batch knows them by.")
@click.option("--identity", default="", help="Their LMS identity, when their numbers were drawn from it.")
@click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Every learner of this CSV instead (`learner`, optional `identity`), as `grade build --roster` releases it.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='One JSON object: {"lesson", "declares_params", "learners": [{"learner", "identity", "params"}]}.',
)
@_lessons_option()
def params_command(
    lesson: str, learner: str | None, identity: str, roster: Path | None, as_json: bool, lessons_root: Path | None
) -> None:
    """Show learners' numbers for LESSON, as release and grading draw them (needs the course secret).

    \b
    Example:
      grade params decode --learner ada
      grade params decode --roster roster.csv --json
    """
    import json

    from grader.authoring.release import RosterRow, read_roster
    from grader.config import lessons_root as default_root
    from grader.lessons import load_lesson
    from grader.params import as_dict, describe, draw, identity_of, require_secret

    with _reported():
        if (learner is None) == (roster is None):
            raise UsageError("Give --learner NAME (one learner) or --roster CSV (every learner of it), not both.")
        if roster is not None and identity:
            raise UsageError("--identity is one learner's: with --roster, each row's `identity` column says it.")
        root = lessons_root or default_root()
        found = load_lesson(lesson, root)
        who = (
            read_roster(roster)
            if roster is not None
            else [RosterRow(str(learner), identity_of(str(learner), identity))]
        )
        secret = require_secret(found, root) if found.params else b""
        drawn = [(row, draw(found, row.identity, secret) if found.params else ()) for row in who]
    if as_json:
        shown = [{"learner": r.learner, "identity": r.identity, "params": as_dict(numbers)} for r, numbers in drawn]
        click.echo(json.dumps({"lesson": found.id, "declares_params": bool(found.params), "learners": shown}))
    elif not found.params:
        click.echo(f"Lesson {found.id} gives every learner the same numbers (it declares no [params]).")
    else:
        for row, numbers in drawn:
            click.echo(f"{row.learner}: {describe(numbers)}")


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
                    "status": state and state._asdict(),
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


@main.group("serve", invoke_without_command=True)
@_lessons_option()
@click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="learner,identity CSV of who may use the service (default: roster.csv in the course folder, if any).",
)
@click.option(
    "--database",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The service's store (default: service.sqlite in the course folder).",
)
@click.option("--host", default=SERVICE_HOST, show_default=True, help="Address to listen on (a TLS proxy faces out).")
@click.option(
    "--port", type=click.IntRange(1, 65535), default=SERVICE_PORT, show_default=True, help="Port to listen on."
)
@click.option("--jobs", type=click.IntRange(min=1), help="Grading processes on this machine (default: one per core).")
@click.option(
    "--dask", "dask_address", metavar="ADDRESS", help="Grade on the Dask cluster whose scheduler is at ADDRESS."
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_LIMITS.timeout,
    show_default=True,
    help="Seconds a notebook may run before it is stopped.",
)
@_late_options
@click.pass_context
def serve_group(
    ctx: click.Context,
    lessons_root: Path | None,
    roster: Path | None,
    database: Path | None,
    host: str,
    port: int,
    jobs: int | None,
    dask_address: str | None,
    timeout: float,
    due: str | None,
    extensions: Path | None,
    late_penalty: str,
) -> None:
    """Run the course service: learners' check() and submit() over HTTP, the suites,
    solutions and course secret staying on this machine.

    \b
    Examples:
      grade serve --due 2024-03-01T09:00 --late-penalty per-day:10
      grade serve token alice decode       a learner's token for one lesson (or a TA's)
      grade serve export -h                the last hand-ins, as a folder for grade batch
    """
    if ctx.invoked_subcommand is not None:
        return
    from grader.service.app import ServiceConfig
    from grader.service.server import serve

    if dask_address and jobs:
        raise click.UsageError("--jobs is for grading on this machine; with --dask the cluster's workers decide.")
    with _reported():
        root, secret = _service_course(lessons_root)
        config = ServiceConfig(
            lessons_root=root,
            database=database or root.parent / SERVICE_DATABASE,
            secret=secret,
            roster=_service_roster(root, roster),
            late=_late_policy(due, extensions, late_penalty) or _no_late_policy(),
            grading=_grade_options(None, None, root, timeout, False),
        )
        serve(config, host, port, jobs, dask_address)


def _service_course(lessons_root: Path | None) -> tuple[Path, bytes]:
    """The lessons folder and the course secret the service needs (:class:`CourseSecretMissing` without one)."""
    from grader.config import lessons_root as find_lessons
    from grader.params import course_secret
    from grader.service.server import no_secret

    root = (lessons_root or find_lessons()).resolve()
    secret = course_secret(root)
    if secret is None:
        raise no_secret(root)
    return root, secret


def _service_roster(root: Path, given: Path | None) -> dict[str, str] | None:
    from grader.authoring.release import read_roster

    path = given or root.parent / ROSTER_FILE
    if given is None and not path.is_file():
        return None
    return {row.learner: row.identity for row in read_roster(path)}


def _no_late_policy() -> LatePolicy:
    from grader.batch.late import LatePolicy

    return LatePolicy()


@serve_group.command("token")
@click.argument("learner", required=False)
@click.argument("lesson", required=False)
@click.option("--ta", is_flag=True, help="A teaching assistant's token, for the live view at /ta.")
@_lessons_option()
def serve_token_command(learner: str | None, lesson: str | None, ta: bool, lessons_root: Path | None) -> None:
    """Print a learner's token for one lesson (LEARNER LESSON), or a teaching assistant's."""
    from grader.service.tokens import issue, ta_token

    if ta == bool(learner or lesson) or (not ta and not (learner and lesson)):
        raise click.UsageError("Give LEARNER and LESSON, or --ta alone.")
    with _reported():
        root, secret = _service_course(lessons_root)
        if ta:
            click.echo(ta_token(secret))
            return
        from grader.lessons import load_lesson

        assert learner is not None and lesson is not None
        load_lesson(lesson, root)  # a lesson that does not exist is an error here, not a token nobody can use
        click.echo(issue(secret, learner, lesson))


@serve_group.command("export")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), required=True, help="Folder to write.")
@click.option(
    "--database",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="The service's store (default: service.sqlite in the course folder).",
)
@_lessons_option(", whose course folder holds the store")
def serve_export_command(out: Path, database: Path | None, lessons_root: Path | None) -> None:
    """Write each learner's last hand-in as OUT/<lesson>/<learner>.ipynb (its time: when
    the service received it), for grade batch OUT/<lesson> --lesson <lesson> ... .
    """
    from grader.config import lessons_root as find_lessons
    from grader.service.export import export_submissions
    from grader.service.store import Store

    with _reported():
        path = database or (lessons_root or find_lessons()).resolve().parent / SERVICE_DATABASE
        if not path.is_file():
            raise UsageError(f"There is no service store at {path}; name it with --database.")
        store = Store(path)
        try:
            written = export_submissions(store, out)
        finally:
            store.close()
    lessons = sorted({p.parent.name for p in written})
    click.echo(f"Wrote {len(written)} hand-ins to {out} ({', '.join(lessons) or 'none yet'}).")


if __name__ == "__main__":  # pragma: no cover
    main()
