"""The reveal policy: learner-facing feedback never states the answer of a by-hand value question or the right
letter of a choice; the teaching assistant's views keep them; lesson.toml can change it per question."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.variants import variant_notebook
from grader.lessons import load_lesson
from grader.model import Question, TestOutcome
from grader.reveal import learner_view, staff_view, withheld
from grader.score import score_question
from tests.batch_support import batch, results
from tests.conftest import REPO, grade_json, run_grade

LESSON = REPO / "exercises" / "decode"
SOLUTION = REPO / "solutions" / "decode.ipynb"

# Wrong by-hand answers, a wrong choice and a wrong function, appended to the solution as a learner's last cell.
WRONG = """
gb_per_step = 104
ms_per_token = 0.00388
max_tokens_per_s = 258
answer_sequential = "B"
answer_batching_bug = "A"
def decode_step_seconds(param_bytes, bandwidth):
    return param_bytes / bandwidth * 1000
"""

# What must not reach the learner: the expected values (as whole numbers, not inside a longer one) and letters.
SECRETS = {
    "gb_per_step": re.compile(r"(?<![\d.])13(?![\d])"),
    "ms_per_token": re.compile(r"expected|3\.88"),
    "max_tokens_per_s": re.compile(r"257\.[67]|expected"),
    "answer_sequential": re.compile(r"\bA\b|right letter"),
    "answer_batching_bug": re.compile(r"\bB\b|right letter"),
}


def _notebook(tmp_path: Path, name: str = "learner.ipynb") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(variant_notebook(SOLUTION, WRONG)), encoding="utf-8")
    return path


def _by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {q["id"]: q for q in report["questions"]}


def test_spans_give_two_views_of_one_sentence() -> None:
    sentence = "`x` is 7, which is not right" + withheld(" (expected 14)") + ". Too small by a factor of 2."
    assert learner_view(sentence) == "`x` is 7, which is not right. Too small by a factor of 2."
    assert staff_view(sentence) == "`x` is 7, which is not right (expected 14). Too small by a factor of 2."
    assert "\ue000" not in learner_view("stray \ue000 mark") + staff_view("stray \ue001 mark")


@pytest.mark.parametrize("reveal, shown", [("never", False), ("expected", True)])
def test_score_applies_the_question_policy(reveal: str, shown: bool) -> None:
    question = Question("gb_per_step", "value", 1.0, reveal=reveal)  # type: ignore[arg-type]
    message = "`gb_per_step` is 7, which is not right" + withheld(" (expected 14)") + "."
    result = score_question(question, [TestOutcome("gb_per_step", "t", 1.0, "failed", message)])
    assert ("expected 14" in result.feedback[0]) is shown
    assert "expected 14" in result.staff[0]


def test_lessons_default_by_kind() -> None:
    lesson = load_lesson("decode")
    assert {q.kind: q.reveal for q in lesson.questions} == {"value": "never", "choice": "never", "function": "expected"}


@pytest.mark.slow
def test_grade_json_and_table_never_show_the_answers(tmp_path: Path) -> None:
    path = _notebook(tmp_path)
    questions = _by_id(grade_json(str(path)))
    for qid, secret in SECRETS.items():
        assert questions[qid]["score"] == 0, qid
        text = " ".join(questions[qid]["feedback"])
        assert text and not secret.search(text), (qid, text)
    # a function question shows the expected results of its calls (the default for functions)
    assert "expected 0.014 s" in " ".join(questions["decode_step_seconds"]["feedback"])
    table = run_grade(str(path), "--lesson", "decode")
    assert table.returncode == 0
    assert "expected 13" not in table.stdout and "right letter" not in table.stdout


@pytest.mark.slow
def test_self_check_never_shows_the_answers(capsys: pytest.CaptureFixture[str]) -> None:
    from grader.selfcheck import SelfCheck

    namespace: dict[str, Any] = {
        "gb_per_step": 104,
        "ms_per_token": 0.00388,
        "max_tokens_per_s": 258,
        "answer_sequential": "B",
        "answer_batching_bug": "A",
    }
    helper = SelfCheck(load_lesson("decode"), namespace)
    for qid, secret in SECRETS.items():
        helper.check(qid)
        printed = capsys.readouterr().out
        assert "0/1" in printed and not secret.search(printed.split(":", 1)[1]), (qid, printed)


@pytest.mark.slow
def test_the_teaching_assistant_sees_the_expected_values(tmp_path: Path) -> None:
    submissions = tmp_path / "subs"
    submissions.mkdir()
    _notebook(submissions, "ada.ipynb")
    out = tmp_path / "out"
    done = batch(str(submissions), "--out", str(out), "--lesson", "decode", "--feedback", "full")
    assert done.returncode == 0, done.stderr
    row = _by_id(results(out)["ada"])
    assert "expected 13" in " ".join(row["gb_per_step"]["feedback"])
    assert "right letter is A" in " ".join(row["answer_sequential"]["feedback"])
    assert "expected 13" not in " ".join(row["gb_per_step"]["learner_feedback"])
    page = (out / "feedback" / "ada.md").read_text(encoding="utf-8")
    assert "expected 13" in page and "right letter is B" in page
    assert "expected 13" in (out / "summary.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_lesson_toml_sets_what_is_revealed(tmp_path: Path) -> None:
    """`reveal = "expected"` on a value question shows its expected value; `reveal = "never"` on a function
    question hides its expected results."""
    lessons = tmp_path / "lessons"
    shutil.copytree(LESSON, lessons / "decode", ignore=shutil.ignore_patterns("__pycache__"))
    toml = (lessons / "decode" / "lesson.toml").read_text(encoding="utf-8")
    toml = toml.replace('"../../notebooks/decode.ipynb"', json.dumps(str(REPO / "notebooks" / "decode.ipynb")))
    toml = toml.replace('"../../solutions/decode.ipynb"', json.dumps(str(SOLUTION)))
    toml = toml.replace('id = "gb_per_step"\n', 'id = "gb_per_step"\nreveal = "expected"\n')
    toml = toml.replace('id = "decode_step_seconds"\n', 'id = "decode_step_seconds"\nreveal = "never"\n')
    (lessons / "decode" / "lesson.toml").write_text(toml, encoding="utf-8")
    questions = _by_id(grade_json(str(_notebook(tmp_path)), "--lessons", str(lessons)))
    assert "expected 13" in " ".join(questions["gb_per_step"]["feedback"])
    step = " ".join(questions["decode_step_seconds"]["feedback"])
    assert "milliseconds" in step and "expected" not in step


def test_gradescope_output_is_the_learners_view() -> None:
    from grader.integrations.gradescope import results_from_report
    from grader.model import Report

    lesson = load_lesson("decode")
    message = "`gb_per_step` is 7, which is not right" + withheld(" (expected 14)") + "."
    result = score_question(lesson.question("gb_per_step"), [TestOutcome("gb_per_step", "t", 1.0, "failed", message)])
    report = Report("decode", "learner.ipynb", 0.0, lesson.max_score, (result,))
    (test,) = results_from_report(report, lesson, 1.0)["tests"]
    assert "is 7, which is not right" in test["output"] and "expected 14" not in test["output"]


@pytest.mark.parametrize("injected", ["\ue000", "\ue001", "\ue001\ue000", "\ue000x\ue001", "\ue000\ue000\ue001"])
def test_marks_a_learner_injects_cannot_reveal_the_answer(injected: str) -> None:
    from grader.testing import show

    assert "\ue000" not in show(injected) and "\ue001" not in show(injected)  # repr escapes them
    sentence = f"f() returned {injected}, which is not right" + withheld(" (expected 14)") + f". {injected}"
    assert "expected 14" not in learner_view(sentence)
    assert "expected 14" in staff_view(sentence)


@pytest.mark.slow
def test_feedback_pages_in_learner_mode_are_what_grade_shows(tmp_path: Path) -> None:
    """`grade batch --feedback learner` writes pages a teaching assistant can send before answers are released."""
    submissions = tmp_path / "subs"
    submissions.mkdir()
    _notebook(submissions, "ada.ipynb")
    out = tmp_path / "out"
    done = batch(str(submissions), "--out", str(out), "--lesson", "decode", "--feedback", "learner")
    assert done.returncode == 0, done.stderr
    page = (out / "feedback" / "ada.html").read_text(encoding="utf-8")
    assert "gb_per_step" in page and "factor" in page  # the misconception is still named
    assert "expected 13" not in page and "right letter" not in page and "257.7" not in page
    shown = " ".join(_by_id(grade_json(_notebook(tmp_path), "--lesson", "decode"))["gb_per_step"]["feedback"])
    assert "is 104, which is not right" in shown and "is 104, which is not right" in page  # what `grade` shows
    assert "expected 13" in " ".join(_by_id(results(out)["ada"])["gb_per_step"]["feedback"])  # results.jsonl: TA's
