"""The bench's generated learners (bench/generate.py): their wrong answers are the corpus's, written as Python."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from types import ModuleType

import pytest

from grader.config import lessons_root
from grader.lessons import available_lessons
from tests.conftest import bench_script


@pytest.fixture(scope="module")
def generate() -> Iterator[ModuleType]:
    with bench_script("generate") as module:
        yield module


@pytest.mark.parametrize("lesson", available_lessons(lessons_root()))
def test_every_wrong_answer_the_bench_draws_is_python(generate: ModuleType, lesson: str) -> None:
    """A corpus entry that names the learner's numbers (``{params_b}``) is written for the page's numbers: left
    unfilled, ``2 * {params_b}e9`` was a syntax error, and the bench graded a cell that ran nothing for a wrong
    answer (found in round 18: 13 to 16 such cells in 40 notebooks of each lesson with numbers)."""
    wrong = generate.corpus_wrong(lesson)
    unparsed = []
    for question, answers in wrong.items():
        for code in answers:
            try:
                ast.parse(code)
            except SyntaxError:
                unparsed.append((question, code.splitlines()[-1]))
    assert unparsed == []
    assert sum(map(len, wrong.values())) >= len(wrong)
