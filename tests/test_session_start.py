"""A suite session that fails to start once (CPython 3.11 can fail to build an AST while another thread builds
one) is started once more; a lesson that is really broken still fails, with its reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.errors import LessonError
from grader.lessons import load_lesson
from grader.selfcheck import NamespaceTarget
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS

FAILS_ONCE = """
from pathlib import Path

_seen = Path(__file__).with_name("imported-once")
if not _seen.exists():
    _seen.write_text("")
    raise SystemError("AST constructor recursion depth mismatch (before=78, after=50)")
"""


def lesson_with_conftest(tmp_path: Path, conftest: str) -> Path:
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
    (root / "squares" / "suites" / "conftest.py").write_text(conftest)
    return root


def test_a_session_that_failed_to_start_once_starts_the_second_time(tmp_path: Path) -> None:
    root = lesson_with_conftest(tmp_path, FAILS_ONCE)
    with SuiteSession(load_lesson("squares", root)) as session:
        outcomes = session.run(NamespaceTarget({"square": lambda x: x * x}), frozenset({"square"}))
    assert (root / "squares" / "suites" / "imported-once").exists()  # the first start did fail
    assert outcomes and all(o.status == "passed" for o in outcomes)


def test_a_start_that_fails_once_for_another_reason_is_not_started_again(tmp_path: Path) -> None:
    """The retry is for the AST race alone: any other failure is the lesson's, reported at once."""
    root = lesson_with_conftest(tmp_path, FAILS_ONCE.replace("SystemError", "RuntimeError"))
    with pytest.raises(LessonError, match="did not start"):
        SuiteSession(load_lesson("squares", root)).__enter__()
    assert (root / "squares" / "suites" / "imported-once").exists()


def test_a_broken_lesson_still_fails_with_its_reason(tmp_path: Path) -> None:
    root = lesson_with_conftest(tmp_path, "raise RuntimeError('this conftest is broken')\n")
    with pytest.raises(LessonError, match="did not start"):
        SuiteSession(load_lesson("squares", root)).__enter__()
