"""One bug costs once: while a question is tested, every earlier question's function is the reference's.

A learner whose ``decode_time`` divides by their own wrong ``tokens_per_second`` loses the points of
``tokens_per_second`` only; a later question's reference is never lent, so nobody earns points by calling an
answer they did not write; and the feedback says when a question passed only because the reference stood in
for a wrong earlier answer (the note never changes a score).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from grader.config import DEFAULT_LIMITS, DEFAULT_MODE
from grader.errors import LessonError
from grader.execute.runner import Workers
from grader.lessons import load_lesson
from grader.model import Report
from grader.pipeline import grade_submission
from grader.read import read_submission
from grader.selfcheck import NamespaceTarget, question_results
from grader.suites.session import SuiteSession
from grader.variants import variant_notebook
from tests.conftest import FIXTURE_LESSONS, REPO

LESSON = load_lesson("decode", REPO / "exercises")
FULL = {q.id: q.points for q in LESSON.questions}

WRONG_TPS = """
def tokens_per_second(param_bytes, bandwidth):
    return param_bytes / bandwidth  # seconds per token, not tokens per second

def decode_time(n_tokens, param_bytes, bandwidth):
    return n_tokens / tokens_per_second(param_bytes, bandwidth)  # right, on top of a wrong helper
"""

WRONG_TPS_UNUSED = """
def tokens_per_second(param_bytes, bandwidth):
    return param_bytes / bandwidth

def decode_time(n_tokens, param_bytes, bandwidth):
    return n_tokens * param_bytes / bandwidth  # never calls tokens_per_second
"""

WRONG_STEP = """
def decode_step_seconds(param_bytes, bandwidth):
    return param_bytes / bandwidth * 1000  # milliseconds

def batch_throughput(param_bytes, bandwidth, batch):
    per_stream = 1 / decode_step_seconds(param_bytes, bandwidth)  # right, on top of a wrong helper
    return batch * per_stream, per_stream
"""

BORROWS_LATER = """
def decode_step_seconds(param_bytes, bandwidth):
    return 1 / tokens_per_second(param_bytes, bandwidth)  # leans on a later question's answer

def tokens_per_second(param_bytes, bandwidth):
    return 1 / decode_step_seconds(param_bytes, bandwidth)
"""

GENERATE_STUB = """
def generate(next_token, prompt, n):
    raise NotImplementedError  # left as the stub
"""

GENERATE_DELETED = "del generate  # the cell deleted, or tagged self-check"

VARIANTS = {
    "generate_stub": GENERATE_STUB,
    "generate_deleted": GENERATE_DELETED,
    "wrong_tps": WRONG_TPS,
    "wrong_tps_unused": WRONG_TPS_UNUSED,
    "wrong_step": WRONG_STEP,
    "borrows_later": BORROWS_LATER,
}


def note(name: str, how: str = "which is wrong") -> str:
    return f"Passed with the reference `{name}` standing in for yours, {how} (see {name})."


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Report]:
    folder = tmp_path_factory.mktemp("one-bug")
    graded = {}
    with SuiteSession(LESSON) as suites:
        for name, code in {"solution": "", **VARIANTS}.items():
            path = folder / f"{name}.ipynb"
            path.write_text(json.dumps(variant_notebook(LESSON.solution, code)), encoding="utf-8")
            graded[name] = grade_submission(
                read_submission(path), LESSON, suites, Workers(DEFAULT_LIMITS, DEFAULT_MODE)
            )
    return graded


def scores(report: Report) -> dict[str, float]:
    return {q.id: q.score for q in report.questions}


def feedback(report: Report, qid: str) -> tuple[str, ...]:
    return next(q.feedback for q in report.questions if q.id == qid)


def lost(report: Report) -> dict[str, float]:
    """Questions that did not get full marks, and what they got."""
    return {qid: score for qid, score in scores(report).items() if score != FULL[qid]}


@pytest.mark.slow
def test_a_right_function_on_a_wrong_earlier_one_keeps_its_points(reports: dict[str, Report]) -> None:
    assert lost(reports["solution"]) == {}
    assert list(lost(reports["wrong_tps"])) == ["tokens_per_second"]
    assert scores(reports["wrong_tps"])["decode_time"] == 2.0
    assert list(lost(reports["wrong_step"])) == ["decode_step_seconds"]
    assert scores(reports["wrong_step"])["batch_throughput"] == 2.0


@pytest.mark.slow
def test_an_unwritten_or_missing_function_costs_only_its_own_question(reports: dict[str, Report]) -> None:
    """A stub or a missing ``generate`` costs generate's points, never a check of the question built on it (seen
    by a red team: 2.84 of 3 for call_order_is_sequential, whose own answer was right)."""
    assert lost(reports["generate_stub"]) == {"generate": 0.0}
    assert lost(reports["generate_deleted"]) == {"generate": 0.0}
    stub_feedback = feedback(reports["generate_stub"], "call_order_is_sequential")
    assert note("generate", "which is not written yet") in stub_feedback


@pytest.mark.slow
def test_feedback_says_when_a_pass_leaned_on_the_reference(reports: dict[str, Report]) -> None:
    assert feedback(reports["wrong_tps"], "decode_time") == ("All 4 checks passed.", note("tokens_per_second"))
    assert note("tokens_per_second") in feedback(
        reports["wrong_tps"], "batch_throughput"
    )  # the solution's calls it too
    assert note("decode_step_seconds") in feedback(reports["wrong_step"], "batch_throughput")
    assert note("decode_step_seconds") in feedback(reports["wrong_step"], "tokens_per_second")
    # no note when the stand-in was not called, or when the learner's own earlier answer passed
    assert feedback(reports["wrong_tps_unused"], "decode_time") == ("All 4 checks passed.",)
    assert not [line for q in reports["solution"].questions for line in q.feedback if "standing in" in line]


@pytest.mark.slow
def test_a_later_questions_reference_is_never_lent(reports: dict[str, Report]) -> None:
    assert list(lost(reports["borrows_later"])) == ["decode_step_seconds"]
    assert scores(reports["borrows_later"])["decode_step_seconds"] == 0
    assert LESSON.stand_ins["decode_step_seconds"] == ()
    assert LESSON.stand_ins["tokens_per_second"] == ("decode_step_seconds",)
    assert "batch_throughput" not in LESSON.stand_ins["decode_time"]


def test_uses_may_name_only_an_earlier_question(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE_LESSONS / "squares", tmp_path / "squares")
    toml = tmp_path / "squares" / "lesson.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace('id = "square"\n', 'id = "square"\nuses = ["sum_of_squares"]\n'),
        encoding="utf-8",
    )
    with pytest.raises(LessonError, match="'square' `uses` 'sum_of_squares', which does not come before it"):
        load_lesson("squares", tmp_path)


def solution_namespace(code: str) -> dict[str, Any]:
    """The namespace self-check sees: the solution's cells (not its self-check cells), then ``code``."""
    namespace: dict[str, Any] = {}
    for cell in read_submission(LESSON.solution).cells:
        if not cell.skip:
            exec(cell.source, namespace)
    exec(code, namespace)
    return namespace


@pytest.mark.slow
def test_self_check_says_the_same() -> None:
    """check("decode_time") runs tokens_per_second's tests too, to know the learner's own answer failed."""
    (result,) = question_results(LESSON, NamespaceTarget(solution_namespace(WRONG_TPS)), ["decode_time"])
    assert (result.score, result.feedback) == (2.0, ("All 4 checks passed.", note("tokens_per_second")))
