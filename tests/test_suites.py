"""Step 3 on its own: the hidden suites run under real pytest against any target, and bad suites are named."""

from __future__ import annotations

import importlib.metadata
import shutil
from pathlib import Path

import pytest

from grader.errors import LessonError
from grader.lessons import load_lesson
from grader.selfcheck import NamespaceTarget
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS, REPO


def namespace(source: str) -> dict[str, object]:
    ns: dict[str, object] = {}
    exec(source, ns)
    return ns


@pytest.fixture(scope="module")
def squares() -> SuiteSession:
    with SuiteSession(load_lesson("squares", FIXTURE_LESSONS)) as session:
        yield session


def test_correct_answers_pass_every_test(squares: SuiteSession) -> None:
    ns = namespace(
        'answer_even = "a"\ndef square(x): return x * x\ndef sum_of_squares(xs): return sum(square(x) for x in xs)'
    )
    outcomes = squares.run(NamespaceTarget(ns))
    assert outcomes and all(o.status == "passed" for o in outcomes)


def test_each_function_is_graded_with_the_reference_behind_it(squares: SuiteSession) -> None:
    # square is wrong, sum_of_squares is right: only square loses points, because while sum_of_squares
    # is tested the reference square stands in for the learner's.
    ns = namespace("def square(x): return 2 * x\ndef sum_of_squares(xs): return sum(square(x) for x in xs)")
    outcomes = squares.run(NamespaceTarget(ns), frozenset({"square", "sum_of_squares"}))
    by_q = {(o.question, o.status) for o in outcomes}
    assert ("sum_of_squares", "failed") not in by_q
    failed = [o for o in outcomes if o.question == "square" and o.status == "failed"]
    assert failed and "doubling instead of squaring" in " ".join(o.message for o in failed)


def test_forged_equality_cannot_pass(squares: SuiteSession) -> None:
    ns = namespace("class Always(float):\n    def __eq__(self, other): return True\ndef square(x): return Always(0.0)")
    outcomes = squares.run(NamespaceTarget(ns), frozenset({"square"}))
    assert all(o.status == "failed" for o in outcomes)


def test_stub_and_missing_are_told_apart(squares: SuiteSession) -> None:
    ns = namespace("answer_even = None\ndef square(x): raise NotImplementedError")
    statuses = {o.question: o.status for o in squares.run(NamespaceTarget(ns))}
    assert statuses == {"answer_even": "not-attempted", "square": "not-attempted", "sum_of_squares": "missing"}


def test_a_test_without_question_marker_is_a_lesson_error(tmp_path: Path) -> None:
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
    (root / "squares" / "suites" / "test_extra.py").write_text("def test_unmarked(learner):\n    pass\n")
    with pytest.raises(LessonError, match="no @question"):
        with SuiteSession(load_lesson("squares", root)):
            pass


def test_a_suite_that_does_not_import_is_a_lesson_error(tmp_path: Path) -> None:
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
    (root / "squares" / "suites" / "test_broken.py").write_text("import no_such_module\n")
    with pytest.raises(LessonError, match="cannot be used"):
        with SuiteSession(load_lesson("squares", root)):
            pass


def test_lessons_whose_suites_share_file_names_keep_their_own_modules(tmp_path: Path) -> None:
    # pytest's importlib mode names a module after its file (conftest, test_flavour) and reuses any module of
    # that name it finds in sys.modules: two lessons open in one process must still run their own files.
    lessons = {}
    for flavour in ("a", "b"):
        root = tmp_path / flavour
        shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
        suites = root / "squares" / "suites"
        (suites / "conftest.py").write_text(
            f"import pytest\n\n@pytest.fixture\ndef flavour():\n    return {flavour!r}\n"
        )
        (suites / "test_flavour.py").write_text(
            "from grader.testing import question\n\n"
            f"@question('square')\ndef test_flavour_{flavour}(flavour):\n    assert flavour == {flavour!r}\n"
        )
        lessons[flavour] = load_lesson("squares", root)
    ns = namespace(
        'answer_even = "a"\ndef square(x): return x * x\ndef sum_of_squares(xs): return sum(square(x) for x in xs)'
    )
    with SuiteSession(lessons["a"]) as a, SuiteSession(lessons["b"]) as b:
        for flavour, session in (("a", a), ("b", b)):
            outcomes = {o.name: o.status for o in session.run(NamespaceTarget(ns))}
            assert outcomes[f"test_flavour_{flavour}"] == "passed", outcomes
            assert not any(name.startswith("test_flavour_") and name != f"test_flavour_{flavour}" for name in outcomes)


def test_a_session_gives_pytest_hypothesis_plugin_itself_and_scans_no_entry_points(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the plugins the grader gives run in a session (no autoloading: what else is installed must not change a
    grade). hypothesis's is given as its module: named with ``-p``, pytest first searched every installed package's
    entry points for it (~15 ms a session, on a cold grade's critical path). Its hooks still run: it marks the
    properties it finds."""
    scans: list[str] = []
    every = importlib.metadata.distributions
    monkeypatch.setattr(importlib.metadata, "distributions", lambda *a, **k: (scans.append("scan"), every(*a, **k))[1])
    with SuiteSession(load_lesson("decode", REPO / "exercises")) as session:
        items = session._plugin.ready.result()
    assert scans == []
    assert any(item.get_closest_marker("hypothesis") for item in items)
