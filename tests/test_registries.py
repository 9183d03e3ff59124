"""Each registry is one table: what must agree with it is derived from it, and these tests say where it could drift."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from grader.errors import LessonError
from grader.lessons import load_lesson
from grader.model import KINDS, REVEAL_POLICIES, QuestionKind, Reveal


def test_question_kinds_are_one_table() -> None:
    """The loader's kinds, their reveal defaults and the type the pipeline passes around are the same set."""
    assert set(KINDS) == set(get_args(QuestionKind))
    assert set(KINDS.values()) <= set(REVEAL_POLICIES) == set(get_args(Reveal))


def _lesson(tmp_path: Path, kinds: list[str]) -> Path:
    folder = tmp_path / "lessons" / "tiny"
    (folder / "suites").mkdir(parents=True)
    questions = "".join(f'[[questions]]\nid = "q{i}"\nkind = "{k}"\npoints = 1\n\n' for i, k in enumerate(kinds))
    folder.joinpath("lesson.toml").write_text(
        f'id = "tiny"\nnotebook = "n.ipynb"\nsolution = "s.ipynb"\n\n{questions}', encoding="utf-8"
    )
    return folder.parent


def test_each_kind_gets_its_default_reveal(tmp_path: Path) -> None:
    lesson = load_lesson("tiny", _lesson(tmp_path, list(KINDS)))
    assert {q.kind: q.reveal for q in lesson.questions} == KINDS


def test_a_kind_outside_the_table_is_refused_with_the_table(tmp_path: Path) -> None:
    with pytest.raises(LessonError, match="function"):
        load_lesson("tiny", _lesson(tmp_path, ["value", "essay"]))
