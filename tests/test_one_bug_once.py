"""One bug costs once: while a question is tested, every earlier question's function is the reference's.

A learner whose ``decode_time`` divides by their own wrong ``tokens_per_second`` loses the points of
``tokens_per_second`` only; a later question's reference is never lent, so nobody earns points by calling an
answer they did not write; and the feedback says when a question passed only because the reference stood in
for a wrong earlier answer (the note never changes a score).
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.variants import variant_notebook
from grader.config import DEFAULT_LIMITS, DEFAULT_MODE
from grader.errors import LessonError
from grader.execute.runner import Workers
from grader.lessons import load_lesson
from grader.model import Lesson, QuestionResult, Report
from grader.params import spread
from grader.pipeline import grade_submission, lent_solution
from grader.read import read_submission
from grader.score import note_stand_ins, score_question
from grader.selfcheck import NamespaceTarget, question_results
from grader.suites.session import SuiteSession
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
def reports(
    tmp_path_factory: pytest.TempPathFactory, suite_session: Callable[[Lesson], SuiteSession]
) -> dict[str, Report]:
    folder = tmp_path_factory.mktemp("one-bug")
    graded = {}
    suites = suite_session(LESSON)
    for name, code in {"solution": "", **VARIANTS}.items():
        path = folder / f"{name}.ipynb"
        path.write_text(json.dumps(variant_notebook(LESSON.solution, code)), encoding="utf-8")
        with Workers(DEFAULT_LIMITS, DEFAULT_MODE) as workers:
            graded[name] = grade_submission(read_submission(path), LESSON, suites, workers, lent_solution(LESSON))
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


# -- by-hand chains: Part 1's gb_per_step -> ms_per_token -> max_tokens_per_s (error carried forward) ------------

CHAIN = ("gb_per_step", "ms_per_token", "max_tokens_per_s")


def part1(numbers: Any, gb: Any = None, ms: Any = None, tokens: Any = None) -> dict[str, Any]:
    """Part 1 as a learner who works each answer from the one before: ``gb`` (default the right one), then
    ``ms`` and ``tokens`` worked right from the learner's own earlier answers unless given."""
    n = dict(numbers)
    gb = float(n["params_b"]) * float(n["bytes_per_param"]) if gb is None else gb
    ms = gb / float(n["tb_per_s"]) if ms is None else ms
    return {"gb_per_step": gb, "ms_per_token": ms, "max_tokens_per_s": 1e3 / ms if tokens is None else tokens}


@pytest.fixture(scope="module")
def suites(suite_session: Callable[[Lesson], SuiteSession]) -> SuiteSession:
    return suite_session(LESSON)


def chain(suites: SuiteSession, answers: dict[str, Any], params: Any) -> dict[str, QuestionResult]:
    """Part 1 graded and noted as ``grade`` does it (score, then the notes of one bug costing once)."""
    outcomes = suites.run(NamespaceTarget(answers), frozenset(CHAIN), params)
    scored = [score_question(LESSON.question(q), [o for o in outcomes if o.question == q]) for q in CHAIN]
    return {r.id: r for r in note_stand_ins(scored, outcomes)}


def credited(name: str) -> str:
    return f"Credited because it follows from your own `{name}`, which is marked wrong (see {name})"


@pytest.mark.slow
def test_one_slip_early_in_a_by_hand_chain_costs_only_its_own_point(suites: SuiteSession) -> None:
    """Bits for bytes in gb_per_step (no set's right GB: a slip, not a copy), the rest worked right from it: 2 of
    3, on every learner's numbers; the later answers say why they passed, and never a value."""
    for params in spread(LESSON):
        n = dict(params)
        results = chain(suites, part1(params, gb=float(n["params_b"]) * float(n["bytes_per_param"]) * 8), params)
        assert {q: r.score for q, r in results.items()} == {
            "gb_per_step": 0.0,
            "ms_per_token": 1.0,
            "max_tokens_per_s": 1.0,
        }, results
        for qid in CHAIN[1:]:
            (note,) = results[qid].feedback[1:]
            assert note.startswith(credited("gb_per_step")) and not any(c.isdigit() for c in note), note
        # rounded as the notebook asks (2 and 1 decimals), the carried answers are still within their tolerance
        answers = part1(params, gb=float(n["params_b"]) * float(n["bytes_per_param"]) * 8)
        rounded = {**answers, "ms_per_token": round(answers["ms_per_token"], 2)}
        rounded["max_tokens_per_s"] = round(1e3 / rounded["ms_per_token"], 1)
        assert [r.score for r in chain(suites, rounded, params).values()] == [0.0, 1.0, 1.0]


@pytest.mark.slow
def test_a_later_answer_wrong_on_the_learners_own_earlier_one_keeps_its_named_slip(suites: SuiteSession) -> None:
    """gb_per_step in bits, ms_per_token in seconds from the right bytes: both slips are named, each on its own
    question; tokens/s worked right from that ms is carried."""
    for params in spread(LESSON):
        n = dict(params)
        gb = float(n["params_b"]) * float(n["bytes_per_param"])
        results = chain(suites, part1(params, gb=gb * 8, ms=gb / float(n["tb_per_s"]) / 1e3), params)
        assert [r.score for r in results.values()] == [0.0, 0.0, 1.0], results
        assert "bits" in " ".join(results["gb_per_step"].feedback)
        said = " ".join(results["ms_per_token"].feedback)
        assert "in seconds" in said and "does not follow from your own `gb_per_step` either" in said, said
        assert results["max_tokens_per_s"].feedback[1].startswith(credited("ms_per_token"))
        # with gb_per_step right, the same ms is told its slip and nothing about carrying
        said = " ".join(
            chain(suites, part1(params, ms=gb / float(n["tb_per_s"]) / 1e3), params)["ms_per_token"].feedback
        )
        assert "in seconds" in said and "follow" not in said, said


@pytest.mark.slow
@pytest.mark.parametrize("gb", [0, 0.0, math.inf, True, "26.0"])
def test_a_carried_value_that_is_no_finite_non_zero_number_earns_nothing(suites: SuiteSession, gb: Any) -> None:
    """An earlier answer that is no real number (a bool, a string), or one that carries 0 or inf, is no evidence
    for the answer worked from it. (tokens/s worked from a wrong but real ms_per_token is carried from that ms.)"""
    params = spread(LESSON)[0]
    tb = float(dict(params)["tb_per_s"])
    ms = gb / tb if isinstance(gb, (int, float)) else 26.0 / tb
    tokens = 1e3 / ms if ms and math.isfinite(ms) else 0.0 if ms else math.inf
    results = chain(suites, {"gb_per_step": gb, "ms_per_token": ms, "max_tokens_per_s": tokens}, params)
    assert (results["gb_per_step"].score, results["ms_per_token"].score) == (0.0, 0.0), results
    assert not [line for line in results["ms_per_token"].feedback if "follow" in line], results
    if not (ms and math.isfinite(ms)):  # nothing real to carry down the chain either
        assert results["max_tokens_per_s"].score == 0.0, results


@pytest.mark.slow
def test_self_check_says_the_same_down_a_chain() -> None:
    """check("max_tokens_per_s") on tokens worked from an ms that was itself carried from a wrong gb_per_step
    runs both earlier questions, to say which answer is wrong."""
    chained = (
        "gb_per_step = 13e9 * 8 / 1e9\nms_per_token = gb_per_step / 3.35\nmax_tokens_per_s = 1000 / ms_per_token\n"
    )
    (result,) = question_results(LESSON, NamespaceTarget(solution_namespace(chained)), ["max_tokens_per_s"])
    assert result.score == 1.0 and result.feedback[1].startswith(credited("gb_per_step")), result.feedback
