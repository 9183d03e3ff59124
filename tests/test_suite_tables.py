"""grader.checks' tables of standard tests: a lesson's function questions, choice questions and fixture, each
written once. Each generated test keeps its name, its question, its weight and its place, which decide the
points and the order of the feedback; and a generated-inputs test keeps the seed its own source gives it."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.internal.reflection import function_digest

from grader.checks import (
    Cases,
    FunctionQuestion,
    choice_tests,
    expect_choice,
    expect_value,
    function_tests,
    generated,
    lesson_fixture,
)
from grader.testing import NO_SHRINK, Mismatch, question
from tests.conftest import grade_json, notebook

TABLE_LESSONS = Path(__file__).resolve().parent / "fixtures" / "table_lessons"


def _mark(test: Any) -> tuple[tuple[Any, ...], float]:
    (mark,) = [m for m in test.pytestmark if m.name == "question"]
    return mark.args, float(mark.kwargs.get("weight", 1.0))


class _Recorder:
    """A lesson fixture whose checks note each call they are asked to make."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.SCALE = 5

    def check_number(self, learner: Any, *name: str, keywords: bool = False, **args: Any) -> None:
        self.calls.append(("check_number", *name, keywords, args))

    def check_count(self, learner: Any, keywords: bool = False, **args: Any) -> None:
        self.calls.append(("check_count", keywords, args))


def _generated_by_hand(learner: Any, lesson: Any, x: int) -> None:
    lesson.check_number(learner, "f", x=x)


def _table(generated_test: Any = None) -> FunctionQuestion:
    return FunctionQuestion(
        "f",
        "f",
        worked=[dict(x=3, y=1)],
        edges=[Cases("zero", [dict(x=0, y=1)], weight=2), Cases("scaled", lambda lesson: [dict(x=lesson.SCALE)])],
        generated=generated_test,
        keywords=[dict(y=2, x=7)],
    )


def test_a_function_question_gives_its_tests_in_order_with_their_names_questions_and_weights() -> None:
    tests = _table(_generated_by_hand).tests("lesson", "suite_module")
    assert [name for name, _ in tests] == [
        "test_f_worked_example",
        "test_f_zero",
        "test_f_scaled",
        "_generated_by_hand",
        "test_f_keywords",
    ]
    fixed = [t for name, t in tests if name.startswith("test_")]
    assert [_mark(t) for t in fixed] == [(("f",), 1.0), (("f",), 2.0), (("f",), 1.0), (("f",), 1.0)]
    for name, test in tests:
        if test is not _generated_by_hand:
            assert test.__name__ == name and test.__module__ == "suite_module"
            assert list(inspect.signature(test).parameters) == ["learner", "lesson"]  # what pytest asks for


def test_each_fixed_test_makes_its_calls_through_the_fixtures_check() -> None:
    lesson = _Recorder()
    for _, test in _table().tests("lesson", "m"):
        test(learner="L", lesson=lesson)
    assert lesson.calls == [
        ("check_number", "f", False, {"x": 3, "y": 1}),
        ("check_number", "f", False, {"x": 0, "y": 1}),
        ("check_number", "f", False, {"x": 5}),
        ("check_number", "f", True, {"y": 2, "x": 7}),
    ]
    counted = _Recorder()
    unnamed = FunctionQuestion("n", "", worked=[dict(k=1)], keywords=[dict(k=2)], check="check_count", named=False)
    assert [name for name, _ in unnamed.tests("lesson", "m")] == ["test_worked_example", "test_keywords"]
    for _, test in unnamed.tests("lesson", "m"):
        test(learner="L", lesson=counted)
    assert counted.calls == [("check_count", False, {"k": 1}), ("check_count", True, {"k": 2})]


def test_the_tests_go_into_the_module_in_the_tables_order_the_generated_one_moved_to_its_place() -> None:
    namespace: dict[str, Any] = {"__name__": "suite_module", "_generated_by_hand": _generated_by_hand, "X": 1}
    function_tests(namespace, "lesson", [_table(_generated_by_hand)])
    assert [k for k in namespace if k not in ("__name__", "X")] == [
        "test_f_worked_example",
        "test_f_zero",
        "test_f_scaled",
        "_generated_by_hand",
        "test_f_keywords",
    ]


def test_generated_is_the_three_decorators_and_keeps_the_seed_of_the_tests_own_source() -> None:
    def test_g(learner: Any, lesson: Any, x: int) -> None:
        lesson.check_number(learner, "g", x=x)

    by_hand = question("g", weight=2)(settings(max_examples=7, phases=NO_SHRINK)(given(x=st.integers())(test_g)))
    tabled = generated("g", examples=7, x=st.integers())(test_g)
    assert _mark(tabled) == _mark(by_hand) == (("g",), 2.0)
    for attribute in ("max_examples", "phases"):
        assert getattr(tabled._hypothesis_internal_use_settings, attribute) == getattr(
            by_hand._hypothesis_internal_use_settings, attribute
        )
    assert function_digest(tabled.hypothesis.inner_test) == function_digest(by_hand.hypothesis.inner_test)


def test_choice_tests_check_each_letter_with_its_why_not() -> None:
    namespace: dict[str, Any] = {"__name__": "suite_module"}
    why_not = {"answer_q": ("A", {"B": "B is the other one."})}
    choice_tests(namespace, {"answer_q": "Think again."}, why_not, letters=lambda q: "AB")
    test = namespace["test_answer_q"]
    assert _mark(test) == (("answer_q",), 1.0)
    assert list(inspect.signature(test).parameters) == ["learner", "reference"]
    reference = SimpleNamespace(answer_q="A")
    test(SimpleNamespace(value=lambda name: "a"), reference)  # right, in any case
    with pytest.raises(Mismatch, match="B is the other one"):
        test(SimpleNamespace(value=lambda name: "B"), reference)
    with pytest.raises(Mismatch, match="A or B"):
        test(SimpleNamespace(value=lambda name: "C"), reference)


def test_a_lesson_fixture_holds_the_shared_checks_unless_the_lesson_gives_its_own() -> None:
    """(pytest finding it by its name, once a session, is what the end-to-end test below shows.)"""

    def own_expect_value() -> None: ...

    shared = lesson_fixture("lesson", spec={"f": len}).__wrapped__()
    assert (shared.spec, shared.expect_value, shared.expect_choice) == ({"f": len}, expect_value, expect_choice)
    assert lesson_fixture("lesson", expect_value=own_expect_value).__wrapped__().expect_value is own_expect_value


def test_a_suite_written_with_the_tables_grades_end_to_end(tmp_path: Path) -> None:
    """The fixture lesson ``cubes``: pytest collects the tables' tests, and their weights and order decide the
    points and the feedback; a right notebook earns every point."""
    right = tmp_path / "right.ipynb"
    right.write_text(
        nbformat.writes(notebook(['answer_odd = "A"', "def cube(x, scale=1):\n    return scale * x**3"], "cubes"))
    )
    assert grade_json(str(right), "--lessons", str(TABLE_LESSONS))["score"] == 7
    squared = tmp_path / "squared.ipynb"
    squared.write_text(
        nbformat.writes(notebook(['answer_odd = "B"', "def cube(x, scale=1):\n    return scale * x**2"], "cubes"))
    )
    report = grade_json(str(squared), "--lessons", str(TABLE_LESSONS))
    choice, cube = report["questions"]
    assert choice["score"] == 0 and "27 = 2 x 13 + 1" in choice["feedback"][0]
    # Only the zero-and-one test (weight 2 of 7) passes: x = 0 and 1 square to their cubes.
    assert cube["score"] == pytest.approx(6 * 2 / 7, abs=1e-4)
    assert [line.split(" returned")[0] for line in cube["feedback"][:3]] == ["cube(3)", "cube(2, 2)", "cube(-3)"]
    assert cube["feedback"][3] == "1 of 5 checks passed, worth 0.8571 to 1.7143 points each."


def test_the_readme_example_is_the_fixture_lessons_suite() -> None:
    """The README's table-driven example is the cubes fixture's suite, line for line, so it cannot drift."""
    from tests.conftest import REPO

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("A made-up lesson's `cube` question", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    suite = REPO / "tests" / "fixtures" / "table_lessons" / "cubes" / "suites"
    code = "\n".join(p.read_text(encoding="utf-8") for p in sorted(suite.glob("*.py")))
    lines = [line.split("  #")[0].rstrip() for line in block.splitlines()]
    missing = [line for line in lines if line.strip() and not line.lstrip().startswith("#") and line not in code]
    assert not missing, missing
