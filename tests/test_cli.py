"""The real ``grade`` command, end to end, on fixture notebooks of the tiny second lesson.

The engine knows nothing of any lesson: these run it on ``tests/fixtures/lessons/squares``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest

from grader.config import EXIT_UNGRADED
from grader.errors import GraderError
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED, run_grade

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

LESSONS = ("--lessons", str(FIXTURE_LESSONS))


def grade(path: Path, *extra: str) -> dict:
    result = run_grade(str(path), *LESSONS, "--json", *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def scores(report: dict) -> dict[str, float]:
    return {q["id"]: q["score"] for q in report["questions"]}


def test_solved_gets_full_marks_and_a_table(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(SQUARES_SOLVED)
    report = grade(path)
    assert (report["score"], report["max_score"]) == (5.0, 5.0)
    table = run_grade(str(path), *LESSONS)
    assert table.returncode == 0 and "Total: 5 / 5" in table.stdout and "sum_of_squares" in table.stdout


def test_untouched_scores_zero_as_not_attempted() -> None:
    report = grade(FIXTURE_LESSONS / "squares" / "notebook.ipynb")
    assert report["score"] == 0
    assert {q["status"] for q in report["questions"]} == {"not-attempted"}


def test_one_mistake_costs_points_on_that_question_only(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook([SQUARES_SOLVED[0], "def square(x):\n    return x + x", SQUARES_SOLVED[2]])
    report = grade(path)
    assert scores(report) == {"answer_even": 1.0, "square": 0.0, "sum_of_squares": 2.0}
    feedback = " ".join(next(q for q in report["questions"] if q["id"] == "square")["feedback"])
    assert "square(3) returned 6" in feedback and "expected 9" in feedback


@pytest.mark.slow
def test_a_function_that_never_returns_costs_only_its_question(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook([SQUARES_SOLVED[0], "def square(x):\n    while True:\n        pass", SQUARES_SOLVED[2]])
    report = grade(path)
    assert scores(report) == {"answer_even": 1.0, "square": 0.0, "sum_of_squares": 2.0}
    square = next(q for q in report["questions"] if q["id"] == "square")
    assert square["status"] == "error" and "did not return in time" in square["feedback"][0]


@pytest.mark.slow
def test_a_notebook_that_loops_forever_scores_zero_with_the_cell_named(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook([SQUARES_SOLVED[0], "while True:\n    pass", SQUARES_SOLVED[1]])
    report = grade(path, "--timeout", "2")
    assert report["score"] == 0
    assert any("longer than 2 s" in e and "cell 2" in e and "while True:" in e for e in report["errors"])


def test_an_early_failing_cell_does_not_hide_later_answers(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(["import no_such_module", *SQUARES_SOLVED])
    report = grade(path)
    assert report["score"] == 5.0
    assert any("ModuleNotFoundError" in e and "Cell 1" in e for e in report["errors"]), report["errors"]


def test_broken_notebook_exits_1_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.ipynb"
    path.write_text("{ this is not json")
    result = run_grade(str(path), *LESSONS)
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "broken.ipynb" in result.stderr
    assert "Traceback" not in result.stderr
    as_json = run_grade(str(path), *LESSONS, "--json")
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["status"] == "ungraded"


def test_bad_usage_exits_2() -> None:
    assert run_grade("x.ipynb", "--timeout", "-3").returncode == 2
    assert run_grade("x.ipynb", "--lessons", "/no/such/dir").returncode == 2


def test_unknown_lesson_is_explained(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(SQUARES_SOLVED, lesson="cooking")
    result = run_grade(str(path), *LESSONS)
    assert result.returncode == 1 and "no lesson 'cooking'" in result.stderr and "squares" in result.stderr


def _commands(command: click.Command, parent: click.Context | None) -> Iterator[tuple[click.Command, click.Context]]:
    """Every command of ``grade`` (groups included), each with the context it runs in."""
    ctx = click.Context(command, info_name=command.name if parent else "grade", parent=parent)
    yield command, ctx
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            yield from _commands(sub, ctx)


def test_every_command_maps_the_library_errors_through_reported(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """cli.py's one mapping of errors (``_reported``) holds for every command: one whose callback lets a
    GraderError out would print a traceback instead of ``grade COMMAND: message`` and exit status 1."""
    from grader.cli import main

    def fails(**_: object) -> None:
        raise GraderError("the library could not: do this instead.")

    seen = []
    for command, ctx in _commands(main, None):
        monkeypatch.setattr(command, "callback", fails)
        # a group's own callback, without a subcommand (click.Group.invoke would ask for one)
        invoke = super(click.Group, command).invoke if isinstance(command, click.Group) else command.invoke
        with ctx, pytest.raises(SystemExit) as exited:
            invoke(ctx)
        assert (exited.value.code, capsys.readouterr().err) == (
            EXIT_UNGRADED,
            f"{ctx.command_path}: the library could not: do this instead.\n",
        ), ctx.command_path
        seen.append(ctx.command_path)
    assert {"grade gradescope", "grade daemon", "grade serve", "grade serve token"} <= set(seen)


def test_the_grade_script_ends_at_once_with_its_exit_handlers_run_and_its_output_written() -> None:
    """A cold ``grade NOTEBOOK`` ends with ``os._exit`` after its exit handlers (tearing down an interpreter that
    imported pytest and hypothesis took ~60 ms); nothing printed, and no handler (the end of adopted sandboxes),
    may be lost on the way, and the status is the command's."""
    code = (
        "import atexit, sys, grader.cli as cli; cli._SCRIPT = True; "
        "atexit.register(print, 'handler ran'); sys.stdout.write('answer\\n'); sys.stderr.write('note'); cli._finish(3)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (3, "answer\nhandler ran\n", "note")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"]["grade"] == "grader.__main__:run"  # the warm answer, else grader.cli.run: may end so


def test_grade_piped_into_a_reader_that_stops_early_exits_quietly(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(SQUARES_SOLVED)
    done = subprocess.run(
        f"grade {path} --lessons {FIXTURE_LESSONS} | head -c 1", shell=True, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


def test_only_the_grade_script_collects_garbage_rarely_for_its_cold_grade() -> None:
    """A cold grade's imports set the garbage collector off ~130 times (~30 ms); the script, which ends a second
    later, raises its thresholds. ``main`` called in another program's process leaves that program's alone."""
    code = "import gc, grader.cli as cli; cli._SCRIPT = {}; cli._collect_garbage_rarely(); print(gc.get_threshold()[0])"
    default = subprocess.run([sys.executable, "-c", "import gc; print(gc.get_threshold()[0])"], capture_output=True)
    for script, expected in ((True, b"100000"), (False, default.stdout.strip())):
        done = subprocess.run([sys.executable, "-c", code.format(script)], capture_output=True, timeout=60)
        assert done.stdout.strip() == expected, done.stderr


def test_the_grade_script_ignores_stop_signals_once_its_command_is_done() -> None:
    """Python puts back the default action of the signals it handles as it ends: a SIGTERM then killed a `grade` whose
    work was done and written (a batch signalled again and again by `timeout`), with no exit status of its own."""
    code = (
        "import signal, sys\n"
        "from grader import cli\n"
        "sys.argv = ['grade', '--version']\n"
        "try:\n"
        "    cli.run()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(signal.getsignal(signal.SIGTERM) is signal.SIG_IGN, signal.getsignal(signal.SIGHUP) is signal.SIG_IGN)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "True True", done.stderr[-2000:]
