"""One set of grading options (``GradeOptions``), how much a worker may use (``Limits``) apart from how it runs
(``WorkerMode``), and the types built from them: a batch's ``Settings``, the daemon's Graders, the fingerprint."""

from __future__ import annotations

import pickle
from dataclasses import fields
from pathlib import Path

import pytest

from grader.batch.fingerprint import grading_fingerprint
from grader.batch.work import Settings
from grader.config import DEFAULT_LIMITS, DEFAULT_MODE, Limits, WorkerMode
from grader.errors import UsageError
from grader.pipeline import GradeOptions, batch_lesson_id
from grader.serve.daemon import Daemon


def test_a_command_lines_options_split_into_limits_and_mode() -> None:
    options = GradeOptions.of("squares", None, Path("lessons"), 7.0, kernel=True)
    assert options.limits == Limits(timeout=7.0)
    assert options.mode == WorkerMode(kernel=True)
    assert GradeOptions.of(None, None, None, None) == GradeOptions()  # every default, from grader.config
    assert (GradeOptions().limits, GradeOptions().mode) == (DEFAULT_LIMITS, DEFAULT_MODE)
    assert not {"isolation", "kernel"} & {f.name for f in fields(Limits)}  # how it runs is not how much it may use


def test_settings_are_plain_data_that_compare_equal_whatever_the_lesson() -> None:
    """A grading process keeps its context while the settings are equal: a batch of another lesson reuses it."""
    one = Settings(
        GradeOptions(lesson="a", lessons_root=Path("x"), mode=WorkerMode(isolation="process")).for_any_lesson()
    )
    other = Settings(
        GradeOptions(lesson="b", lessons_root=Path("x"), mode=WorkerMode(isolation="process")).for_any_lesson()
    )
    assert one == other and pickle.loads(pickle.dumps(one)) == one
    assert one != Settings(GradeOptions(lessons_root=Path("x")))  # another mode: another context


def test_the_daemon_keeps_one_grader_per_set_of_options_whatever_the_lesson() -> None:
    daemon = Daemon()
    first = daemon.grader(GradeOptions(lesson="a"))
    assert daemon.grader(GradeOptions(lesson="b")) is first
    assert first.options.lesson is None
    kernel = daemon.grader(GradeOptions(mode=WorkerMode(kernel=True)))
    assert kernel is not first and kernel.runner.mode.kernel


def test_the_fingerprint_names_the_mode_and_the_limits() -> None:
    plain = grading_fingerprint(GradeOptions(), "suites")
    kernel = grading_fingerprint(GradeOptions(mode=WorkerMode(kernel=True)), "suites")
    assert (plain["kernel"], kernel["kernel"]) == ("off", "on")
    assert grading_fingerprint(GradeOptions(limits=Limits(timeout=9.0)), "suites")["timeout"] == "9"


def test_a_batch_in_a_course_of_several_lessons_is_told_the_command_to_run(tmp_path: Path) -> None:
    for name in ("decode", "request"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "lesson.toml").write_text(f'id = "{name}"\n', encoding="utf-8")
    with pytest.raises(UsageError, match=r"`grade batch SUBMISSIONS --lesson decode --out RESULTS`"):
        batch_lesson_id(GradeOptions(lessons_root=tmp_path))
    assert batch_lesson_id(GradeOptions(lesson="request", lessons_root=tmp_path)) == "request"
    (tmp_path / "request" / "lesson.toml").unlink()
    assert batch_lesson_id(GradeOptions(lessons_root=tmp_path)) == "decode"
