"""How one hidden test runs (grader/suites/runtest.py): without the phases' hooks where no plugin here needs them,
with every outcome and message what pytest's whole runner protocol gives, and the whole protocol wherever a hook
or a mark could matter."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from grader.config import SKIP_TAG, lessons_root
from grader.lessons import available_lessons, load_lesson
from grader.model import Lesson, TestOutcome
from grader.suites.namespace import NamespaceTarget
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS
from tests.lesson_support import corpus_entries, notebook

ROOT = lessons_root()


def _namespace(lesson: Lesson, code: str = "", path: Path | None = None) -> dict[str, Any]:
    """A notebook's namespace in this process: the solution's code cells (or ``path``'s), then ``code``."""
    cells = [
        c.source
        for c in notebook(path or lesson.solution).cells
        if c.cell_type == "code" and SKIP_TAG not in c.metadata.get("tags", [])
    ]
    namespace: dict[str, Any] = {"__name__": "__main__"}
    for source in [*cells, code]:
        try:
            exec(source, namespace)  # noqa: S102 - the course's own corpus, as the floor runs it
        except Exception:  # noqa: BLE001 - a cell that fails is left failed, as the grader leaves it
            pass
    return namespace


def _both_ways(session: SuiteSession, make: Any) -> tuple[tuple[TestOutcome, ...], tuple[TestOutcome, ...]]:
    """The outcomes of a fresh namespace from ``make()`` without the hooks where allowed, then with the whole protocol
    for every test."""
    lean = session.run(NamespaceTarget(make()))
    plugin = session._plugin
    kept, plugin._lean = plugin._lean, set()
    try:
        whole = session.run(NamespaceTarget(make()))
    finally:
        plugin._lean = kept
    return lean, whole


@pytest.mark.slow
@pytest.mark.parametrize("lesson_id", available_lessons(ROOT))
def test_every_corpus_answer_gets_the_outcomes_and_messages_of_the_whole_protocol(lesson_id: str) -> None:
    lesson = load_lesson(lesson_id, ROOT)
    entries = corpus_entries(lesson)
    with SuiteSession(lesson) as session:
        session.run(NamespaceTarget(_namespace(lesson)))  # the solution first: every property recorded
        assert len(session._plugin._lean) >= len(session._plugin.replay._properties)  # most tests go lean
        made = {
            "solution": lambda: _namespace(lesson),
            "untouched": lambda: _namespace(lesson, path=lesson.notebook),
            **{e.name: (lambda e=e: _namespace(lesson, e.code)) for e in entries},
        }
        differ = [name for name, make in made.items() if (pair := _both_ways(session, make))[0] != pair[1]]
    assert differ == [], f"lean and whole protocol disagree on {differ}"
    assert len(made) > 3


def _squares_with(tmp_path: Path, suites: str, conftest: str = "") -> Lesson:
    """The squares fixture lesson with ``suites`` added to its test module and ``conftest`` as its conftest.py."""
    folder = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", folder / "squares")
    module = folder / "squares" / "suites" / "test_squares.py"
    module.write_text(module.read_text(encoding="utf-8") + suites, encoding="utf-8")
    if conftest:
        (folder / "squares" / "suites" / "conftest.py").write_text(conftest, encoding="utf-8")
    return load_lesson("squares", folder)


SKIPPED = """

@question("square")
@pytest.mark.skip(reason="not graded this term")
def test_square_skipped(learner):
    expect_close(learner.call("square", 4), 16)


@question("square")
def test_square_uses_a_capture(learner, capsys):
    expect_close(learner.call("square", 5), 25)
"""


def test_a_marked_test_a_property_and_a_capturing_one_run_the_whole_protocol(tmp_path: Path) -> None:
    lesson = _squares_with(tmp_path, "\nimport pytest\n" + SKIPPED)
    with SuiteSession(lesson) as session:
        outcomes = {o.name: o for o in session.run(NamespaceTarget(_namespace(lesson)))}
        lean = {nodeid.rsplit("::", 1)[1] for nodeid in session._plugin._lean}
    assert lean == {"test_answer", "test_square_example", "test_sum", "test_sum_uses_callback"}
    assert outcomes["test_square_skipped"].status == "failed" and "Skipped" in outcomes["test_square_skipped"].message
    assert outcomes["test_square_uses_a_capture"].status == "passed"
    assert outcomes["test_square_many"].status == "passed"


HOOKED = """
import os

def pytest_runtest_setup(item):
    with open(os.environ["SQUARES_SEEN"], "a") as seen:
        seen.write(item.name + "\\n")
"""


def test_a_suites_own_hook_on_the_phases_is_called_for_every_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "seen.txt"
    monkeypatch.setenv("SQUARES_SEEN", str(seen))
    lesson = _squares_with(tmp_path, "", conftest=HOOKED)
    with SuiteSession(lesson) as session:
        outcomes = session.run(NamespaceTarget(_namespace(lesson)))
        assert session._plugin._lean == set()
    assert all(o.status == "passed" for o in outcomes)
    assert sorted(seen.read_text().split()) == sorted(o.name for o in outcomes)
