"""The mistakes corpus check: its wrong answers lose points and are told why, its correct answers keep full marks.

The corpus check grades a whole lesson's corpus in one batch (``grader.authoring.corpus.check_lesson``) and
fails with every wrong verdict and unnamed misconception listed;
tests/test_lesson_gates.py runs it on every lesson of the course.
Here the fixture lesson's corpus, the header tests and the mislabelled corpus prove the check itself can fail.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.corpus import (
    CorpusReport,
    Entry,
    check_lesson,
    compare,
    grade_corpus,
    load_corpus,
    parse_entry,
    refuse_vacuous,
)
from grader.errors import CorpusError
from grader.lessons import load_lesson

FIXTURE_LESSONS = Path(__file__).parent / "fixtures" / "lessons"
SQUARES = ["answer_even", "square", "sum_of_squares"]


def _assert_clean(report: CorpusReport) -> None:
    assert report.ok, "\n" + "\n".join(report.lines())


@pytest.mark.slow
def test_squares_corpus() -> None:
    report = check_lesson("squares", lessons_root=FIXTURE_LESSONS)
    assert report.wrong_answers >= 5 and report.correct_answers >= 3
    _assert_clean(report)


def _parse(header: str, body: str = "x = 1\n") -> Entry:
    return parse_entry(Path("mistakes/sample.py"), SQUARES, header + "\n" + body)


def test_a_wellformed_header_is_read() -> None:
    entry = _parse(
        "# kind: wrong\n# about: doubles\n# expect square: wrong /doubl|twice/\n# expect sum_of_squares: right\n"
    )
    assert (entry.name, entry.kind, entry.about) == ("sample", "wrong", "doubles")
    square = entry.expected("square")
    assert square is not None and square.wrong and square.pattern is not None
    assert square.pattern.search("You DOUBLED it") and square.line == 3
    sums = entry.expected("sum_of_squares")
    assert sums is not None and not sums.wrong
    assert entry.expected("answer_even") is None


@pytest.mark.parametrize(
    ("header", "line", "says"),
    [
        ("# kind: wrong\n# about: x\n# expect square wrong /a/\n", 3, "# expect QUESTION: right"),
        ("# kind: wrong\n# about: x\n# expect cube: wrong /a/\n", 3, "no question 'cube'"),
        ("# kind: wrong\n# about: x\n# expect square: wrong doubles\n", 3, "/REGEX/"),
        ("# kind: wrong\n# about: x\n# expect square: wrong /(unclosed/\n", 3, "does not compile"),
        ("# kind: wrong\n# about: x\n# expect square: right /a/\n", 3, "takes no regex"),
        ("# kind: wrong\n# about: x\n# expect square: wrong /a/\n# expect square: right\n", 4, "expected twice"),
        ("# kind: maybe\n# about: x\n", 1, "`# kind: wrong` or `# kind: correct`"),
        ("# kind:\n# about: x\n", 1, "a value after the colon"),
        ("# kind: wrong\n# note: x\n", 2, "is not a header line"),
        ("# kind: correct\n# about: x\n# expect square: wrong /a/\n", 3, "make it `# kind: wrong`"),
    ],
)
def test_a_malformed_header_names_file_line_and_fix(header: str, line: int, says: str) -> None:
    with pytest.raises(CorpusError) as err:
        _parse(header)
    assert f"mistakes/sample.py, line {line}" in str(err.value)
    assert says in str(err.value)


@pytest.mark.parametrize(
    ("header", "says"),
    [
        ("# about: x\n# expect square: wrong /a/\n", "no kind line"),
        ("# kind: wrong\n# expect square: wrong /a/\n", "no about line"),
        ("# kind: wrong\n# about: x\n# expect square: right\n", "at least one question wrong"),
        ("def square(x):\n    return x * 2\n", "is not a header line"),
    ],
)
def test_a_header_missing_a_field_is_refused(header: str, says: str) -> None:
    with pytest.raises(CorpusError, match="mistakes/sample.py") as err:
        _parse(header)
    assert says in str(err.value)


def test_a_lesson_without_a_corpus_is_told_where_to_put_one(tmp_path: Path) -> None:
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    bare = dataclasses.replace(lesson, root=tmp_path)
    with pytest.raises(CorpusError, match="no mistakes corpus"):
        load_corpus(bare)


def test_a_regex_that_matches_the_question_itself_is_refused() -> None:
    """A regex matching the hint ("Multiply the number by itself.") would pass on any feedback that quotes it."""
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    entry = _parse("# kind: wrong\n# about: doubles\n# expect square: wrong /doubl|by itself/\n")
    with pytest.raises(CorpusError, match=r"line 3: the regex matches 'by itself' in the hint of 'square'"):
        refuse_vacuous(lesson, entry)
    refuse_vacuous(lesson, _parse("# kind: wrong\n# about: doubles\n# expect square: wrong /doubl/\n"))


def _row(question: str, score: float, max_score: float, feedback: list[str]) -> dict[str, Any]:
    return {"id": question, "score": score, "max_score": max_score, "feedback": feedback}


def test_compare_reports_every_kind_of_broken_promise() -> None:
    """Pure comparison on made-up results: each broken promise is listed, and the figures count right."""
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    caught = _parse("# kind: wrong\n# about: doubles\n# expect square: wrong /doubl/\n")
    entries = [
        caught,
        Entry("slipped", caught.path, "wrong", "doubles", caught.expectations, ""),
        Entry("unnamed", caught.path, "wrong", "doubles", caught.expectations, ""),
        Entry("marked_down", caught.path, "correct", "a loop", (), ""),
        Entry("kept", caught.path, "correct", "a loop", (), ""),
    ]
    full = [_row("answer_even", 1, 1, []), _row("sum_of_squares", 2, 2, [])]
    results = {
        "sample": {"questions": [*full, _row("square", 0, 2, ["That is what doubling gives."])]},
        "slipped": {"questions": [*full, _row("square", 2, 2, ["All checks passed."])]},
        "unnamed": {"questions": [*full, _row("square", 1, 2, ["square(3) returned 6; expected 9."])]},
        "marked_down": {"questions": [full[0], _row("square", 2, 2, []), _row("sum_of_squares", 1, 2, ["no"])]},
        "kept": {"questions": [*full, _row("square", 2, 2, [])]},
    }
    report = compare(lesson, entries, results)
    found = {(p.entry, p.question, p.kind) for p in report.problems}
    assert found == {
        ("slipped", "square", "wrong verdict"),
        ("unnamed", "square", "unnamed misconception"),
        ("marked_down", "sum_of_squares", "wrong verdict"),
    }
    assert (report.wrong_caught, report.wrong_answers) == (2, 3)
    assert (report.misconceptions_named, report.misconceptions) == (1, 3)
    assert (report.correct_kept, report.correct_answers) == (1, 2)
    text = "\n".join(report.lines())
    assert "slipped: wrong verdict: expected to lose points (doubles), got 2/2" in text
    assert "marked_down: wrong verdict: expected full marks, got 1/2: no" in text


def test_feedback_naming_another_answers_misconception_is_named_wrong() -> None:
    """Missing its own regex but matching the one another entry declares for the question is a false diagnosis:
    reported as misnamed (not merely unnamed) and counted per misconception as named wrong."""
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    doubles = _parse("# kind: wrong\n# about: doubles\n# expect square: wrong /doubl/\n")
    plus_one = _parse("# kind: wrong\n# about: adds one\n# expect square: wrong /off by one/\n")
    entries = [
        Entry("doubles", doubles.path, "wrong", "doubles", doubles.expectations, ""),
        Entry("doubles_told_off_by_one", doubles.path, "wrong", "doubles", doubles.expectations, ""),
        Entry("plus_one", plus_one.path, "wrong", "adds one", plus_one.expectations, ""),
        Entry("plus_one_unnamed", plus_one.path, "wrong", "adds one", plus_one.expectations, ""),
    ]
    full = [_row("answer_even", 1, 1, []), _row("sum_of_squares", 2, 2, [])]
    results = {
        "doubles": {"questions": [*full, _row("square", 0, 2, ["It is doubled."])]},
        "doubles_told_off_by_one": {"questions": [*full, _row("square", 0, 2, ["Is it off by one?"])]},
        "plus_one": {"questions": [*full, _row("square", 0, 2, ["Off by one."])]},
        "plus_one_unnamed": {"questions": [*full, _row("square", 0, 2, ["Not right."])]},
    }
    report = compare(lesson, entries, results)
    found = {(p.entry, p.kind) for p in report.problems}
    assert found == {
        ("doubles_told_off_by_one", "misnamed misconception"),
        ("plus_one_unnamed", "unnamed misconception"),
    }
    tally = {m.pattern: (m.right, m.wrong, m.not_named) for m in report.by_misconception}
    assert tally == {"doubl": (1, 1, 0), "off by one": (1, 0, 1)}
    assert report.named_wrong == 1 and report.named_share == 0.5
    text = "\n".join(report.lines())
    assert "2/4 (50% named right, 1 named wrong)" in text and "square: precision 67%, recall 50%" in text


@pytest.mark.slow
def test_a_mislabelled_corpus_is_reported() -> None:
    """Graded for real: a right answer labelled wrong, a wrong one labelled right, and a regex that names nothing."""
    lesson = load_lesson("squares", FIXTURE_LESSONS)

    def entry(name: str, text: str) -> Entry:
        return parse_entry(Path(f"{name}.py"), [q.id for q in lesson.questions], text)

    entries = [
        entry(
            "right_called_wrong",
            "# kind: wrong\n# about: x\n# expect square: wrong /./\n\ndef square(x):\n    return x * x\n",
        ),
        entry(
            "wrong_called_right", "# kind: correct\n# about: x\n\ndef sum_of_squares(xs):\n    return sum(xs) ** 2\n"
        ),
        entry(
            "names_nothing",
            "# kind: wrong\n# about: x\n# expect square: wrong /zebra crossing/\n\ndef square(x):\n    return x + 1\n",
        ),
    ]
    report = grade_corpus(lesson, entries, lessons_root=FIXTURE_LESSONS)
    found = {(p.entry, p.question, p.kind) for p in report.problems}
    assert found == {
        ("right_called_wrong", "square", "wrong verdict"),
        ("wrong_called_right", "sum_of_squares", "wrong verdict"),
        ("names_nothing", "square", "unnamed misconception"),
    }, "\n".join(report.lines())
    assert not report.ok and report.correct_kept == 0 and report.wrong_caught == 1


@pytest.mark.slow
def test_grade_corpus_exits_0_on_a_sound_corpus_and_1_on_a_mislabelled_one(tmp_path: Path) -> None:
    """The command a lesson author runs: its exit status is the verdict, and a broken promise is named."""
    import shutil
    import subprocess

    sound = subprocess.run(
        ["grade", "corpus", "squares", "--lessons", str(FIXTURE_LESSONS)], capture_output=True, text=True, timeout=300
    )
    assert sound.returncode == 0, sound.stdout + sound.stderr
    assert "no problems" in sound.stdout
    lessons = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", lessons / "squares")
    (lessons / "squares" / "mistakes" / "mislabelled.py").write_text(
        "# kind: correct\n# about: doubles, yet declared right\n\ndef square(x):\n    return x * 2\n", encoding="utf-8"
    )
    broken = subprocess.run(
        ["grade", "corpus", "squares", "--lessons", str(lessons)], capture_output=True, text=True, timeout=300
    )
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "mislabelled" in broken.stdout and "square" in broken.stdout
