"""`grade audit`: mutation testing of a lesson's hidden suites (grader/authoring/audit/).

The squares fixture lesson, copied with a deliberately weak suite, proves the verdicts: a wrong mutant that the
weak suite lets through is reported with its diff and fails the run, a listed equivalent is explained, a stale
entry is reported. The slow test holds the Decode lesson to 100% of its non-equivalent mutants killed.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from grader.authoring.audit import audit_lesson
from grader.authoring.audit.mutants import generate_mutants, mutant_id
from grader.authoring.audit.report import format_text
from grader.errors import LessonError, UsageError
from grader.lessons import load_lesson
from tests.conftest import FIXTURE_LESSONS, run_grade

# Checks square(1) only: x / x, x ** x, x & x... all give 1 and get full marks.
WEAK_SUITE = """
from grader.testing import expect_close, expect_equal, question


@question("answer_even")
def test_answer(learner, reference):
    assert str(learner.value("answer_even")).strip().upper() == reference.answer_even


@question("square")
def test_square_one(learner):
    expect_close(learner.call("square", 1), 1)


@question("sum_of_squares")
def test_sum(learner):
    expect_equal(learner.call("sum_of_squares", [1, 2, 3]), 14)
"""

SQUARE = "def square(x):\n    return x * x\n"


def weak_lesson(root: Path, audit_toml: str = "") -> Path:
    """A copy of the squares lesson whose suite checks square(1) only, with ``audit_toml`` beside it."""
    lessons = root / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", lessons / "squares")
    (lessons / "squares" / "suites" / "test_squares.py").write_text(WEAK_SUITE, encoding="utf-8")
    if audit_toml:
        (lessons / "squares" / "audit.toml").write_text(textwrap.dedent(audit_toml), encoding="utf-8")
    return lessons


def test_cosmic_ray_operators_mutate_a_small_function() -> None:
    source = 'def ratio(a, b):\n    """Docstrings are not mutated."""\n    return a / b\n'
    generated = generate_mutants("ratio", source)
    bodies = {m.code.splitlines()[-1].strip() for m in generated.mutants}
    assert {"return a * b", "return a + b", "return a - b", "return a // b", "return a ** b"} <= bodies
    assert len({m.id for m in generated.mutants}) == len(generated.mutants) == len(bodies)
    multiplied = next(m for m in generated.mutants if m.code.endswith("return a * b\n"))
    assert multiplied.origin.startswith("cosmic-ray ReplaceBinaryOperator_Div_Mul")
    assert "-    return a / b\n+    return a * b\n" in multiplied.diff
    # The id is the mutant's code as Python sees it: comments, formatting and the docstring do not change it.
    assert mutant_id("def ratio(a, b):\n    return a*b  # note\n") == multiplied.id
    # A mutant already made another way (a lesson's slip) is not made again, and is counted as dropped.
    again = generate_mutants("ratio", source, frozenset({multiplied.id}))
    assert multiplied.id not in {m.id for m in again.mutants} and again.unchanged == generated.unchanged + 1


@pytest.mark.slow
def test_weak_suite_survivor_reported_with_diff_equivalent_explained_stale_reported(tmp_path: Path) -> None:
    equivalent = mutant_id("def square(x):\n    return x ** 2\n")
    lessons = weak_lesson(
        tmp_path,
        f'''
        [[mutant]]
        function = "square"
        name = "squares by a power"
        find = "return x * x"
        replace = "return x ** 2"

        [[mutant]]
        function = "square"
        name = "off by one"
        find = "return x * x"
        replace = "return x * x + 1"

        [[equivalent]]
        function = "square"
        mutant = "{equivalent}"
        reason = "x ** 2 is x * x: exactly for ints, within a rounding error for floats (tolerance 1e-6)"

        [[equivalent]]
        function = "square"
        mutant = "0000000000"
        reason = "a mutant that no longer exists"
        ''',
    )
    report = audit_lesson(load_lesson("squares", lessons))
    square = next(f for f in report.functions if f.function == "square")
    assert square.slips == 2 and square.graded == square.killed + len(square.survivors)
    explained = [s for s in square.survivors if s.reason is not None]
    assert [s.mutant.id for s in explained] == [equivalent] and square.equivalent == 1
    wrong = {s.mutant.code.splitlines()[-1].strip(): s for s in square.unexplained}
    assert "return x / x" in wrong and "return x ** x" in wrong  # square(1) == 1 for both
    assert "return x * x + 1" not in wrong  # the off-by-one slip is killed even by this suite
    off_by_one = next(k for k in square.kills if k.mutant.origin == "audit.toml: off by one")
    assert off_by_one.score == 0 and any("square(1)" in line for line in off_by_one.feedback), off_by_one.feedback
    assert not report.ok and report.unexplained == square.unexplained
    assert square.score == square.killed / (square.graded - 1) < 1
    assert [(s.entry.mutant, "no such mutant" in s.why) for s in report.stale] == [("0000000000", True)]
    text = format_text(report)
    assert f"SURVIVED square mutant {wrong['return x / x'].mutant.id}" in text
    assert "-    return x * x\n+    return x / x" in text
    assert "STALE equivalent entry: square mutant 0000000000" in text
    assert f"SURVIVED square mutant {equivalent}" not in text  # an explained survivor is listed, as explained
    assert f"EQUIVALENT square mutant {equivalent} (audit.toml: squares by a power): x ** 2 is x * x" in text


@pytest.mark.slow
def test_cli_exit_status_and_json(tmp_path: Path) -> None:
    lessons = weak_lesson(tmp_path)
    result = run_grade("audit", "squares", "--lessons", str(lessons), "--json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    square = next(f for f in data["functions"] if f["function"] == "square")
    assert data["ok"] is False and square["survived"] >= 2
    assert all(s["diff"].startswith("--- solution square") for s in square["survivors"])
    assert len(square["kills"]) == square["killed"] > 0 and all(k["feedback"] for k in square["kills"])
    # The bundled suite kills every mutant of the same solution: exit 0.
    strong = run_grade("audit", "squares", "--lessons", str(FIXTURE_LESSONS))
    assert strong.returncode == 0, strong.stdout + strong.stderr
    assert "0 unexplained survivor(s)" in strong.stdout


@pytest.mark.slow
def test_a_slip_that_no_longer_applies_is_an_error_and_a_failing_solution_is_not_audited(tmp_path: Path) -> None:
    lessons = weak_lesson(
        tmp_path / "a", '[[mutant]]\nfunction = "square"\nname = "gone"\nfind = "x + x"\nreplace = "x"\n'
    )
    with pytest.raises(LessonError, match="occurs 0 times"):
        audit_lesson(load_lesson("squares", lessons))
    lessons = weak_lesson(
        tmp_path / "c", '[[mutant]]\nfunction = "square"\nname = "typo"\ncode = "def sqare(x):\\n    return x"\n'
    )
    with pytest.raises(LessonError, match=r"does not define square\(\)"):
        audit_lesson(load_lesson("squares", lessons))
    broken = weak_lesson(tmp_path / "b")
    suite = broken / "squares" / "suites" / "test_squares.py"
    suite.write_text(suite.read_text().replace('call("square", 1), 1)', 'call("square", 1), 2)'), encoding="utf-8")
    report = audit_lesson(load_lesson("squares", broken))
    square = next(f for f in report.functions if f.function == "square")
    assert square.unaudited and "solution itself does not get full marks" in square.unaudited
    assert square.graded == 0 and not report.ok  # not 'every mutant killed' by a suite that fails everything
    assert "square: NOT AUDITED: the solution itself" in format_text(report)


def test_without_cosmic_ray_the_audit_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cosmic_ray.operators.provider", None)  # import fails, as when not installed
    with pytest.raises(UsageError, match=r"pip install -e '\.\[audit\]'"):
        generate_mutants("square", SQUARE)


@pytest.mark.slow
def test_a_mutant_is_graded_on_the_question_it_mutates_only(tmp_path: Path) -> None:
    """Each mutant's variant names its function's question, and the batch runs that question's hidden tests alone:
    the verdict reads that question only (the others are the solution's), so the rest would be CPU for nothing."""
    from grader.authoring.audit.run import plan_audit
    from grader.authoring.variants import grade_variants

    lesson = load_lesson("squares", weak_lesson(tmp_path))
    plan = plan_audit(lesson)
    mutants = [v for v in plan.variants if v.questions is not None]
    assert mutants and all(v.questions == {v.name.split(".")[0]} for v in mutants)
    assert all(v.questions is None for v in plan.variants if v not in mutants)  # the controls: every question
    square = next(v for v in mutants if v.name.startswith("square."))
    rows = grade_variants(lesson, [square, plan.variants[0]], lessons_root=lesson.root.parent)
    run = {q["id"] for q in rows[square.name]["questions"] if q["status"] in ("passed", "failed")}
    assert run == {"square"}, rows[square.name]["questions"]
    assert {q["status"] for q in rows[plan.variants[0].name]["questions"]} == {"passed"}
