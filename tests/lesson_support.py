"""Helpers for a lesson's own tests (tests/test_lesson_<id>.py): read its pages as the learner sees them, check
the numbers its text claims, look for a by-hand answer on the page, read its choice options, and compare what
nbgrader's test cells and ``grade`` score on its corpus. The generic gates are tests/test_lesson_gates.py's."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import nbformat

from grader.model import Lesson

#: (a passage of the text, the number it shows, that number computed, relative tolerance or 0 for half a unit of
#: the last digit shown).
Claim = tuple[str, str, float, float]


def read(path: Path) -> Any:
    return nbformat.read(path, as_version=4)


def reference(lesson: Lesson) -> Any:
    """The solution notebook's namespace."""
    from grader.suites.reference import load_reference

    return load_reference(lesson.solution)


def markdown_text(lesson: Lesson) -> str:
    """The learner notebook's text cells, with line breaks as spaces (a claim may wrap)."""
    return " ".join(" ".join(c.source.split()) for c in read(lesson.notebook).cells if c.cell_type == "markdown")


def _half_unit(shown: str) -> float:
    return 0.5 * 10.0 ** -len(shown.split(".")[1]) if "." in shown and "e" not in shown else 0.5


def wrong_claims(text: str, claims: Iterable[Claim]) -> list[str]:
    """Each claim the text no longer makes, or whose number is not what the lesson's functions compute."""
    wrong = []
    for passage, shown, computed, rel in claims:
        tolerance = rel * abs(computed) if rel else _half_unit(shown)
        if passage not in text:
            wrong.append(f"the text no longer says {passage!r}: update the claim with the text")
        elif abs(float(shown) - computed) > tolerance:
            wrong.append(f"{passage!r}: the lesson's functions give {computed!r}")
    return wrong


def unclaimed_bold_numbers(text: str, claims: Iterable[Claim], formulas: Sequence[str]) -> list[str]:
    """Bold text that starts with a digit and is in no claim's passage nor among ``formulas`` (givens, shapes)."""
    claimed = " ".join(passage for passage, *_ in claims)
    bold = re.findall(r"\*\*(?!\d+\.\*\*)[0-9][^*]*\*\*", text)
    assert bold, "no bold number found: is the text still read?"
    return [b for b in bold if b not in claimed and b not in formulas]


def wrong_docstring_examples(lesson: Lesson, r: Any) -> list[tuple[str, Any, str]]:
    """Each ``Example: f(...) -> value`` of the solution whose call gives another value (with ``...``: another
    start); also fails unless every function question has one."""
    names, wrong = [], []
    for cell in read(lesson.solution).cells:
        for name, args, shown in re.findall(r"Example: (\w+)\((.*)\) -> (.+)", cell.source):
            names.append(name)
            value = eval(f"r.{name}({args})", {"r": r})  # the docstring's own call, on the reference
            if shown.endswith("..."):
                ok = str(value).startswith(shown.rstrip("."))
            else:
                ok = value == eval(shown) and type(value) is type(eval(shown))
            if not ok:
                wrong.append((name, value, shown))
    assert sorted(names) == sorted(q.id for q in lesson.questions if q.kind == "function")
    return wrong


def renderings(value: float) -> set[str]:
    """How a number may be written: 3 to 5 significant figures, plain or with an exponent, whole digits."""
    out = set()
    for digits in (3, 4, 5):
        short = f"{value:.{digits}g}"
        out.add(short.replace("e+", "e").replace("e0", "e"))
        mantissa, _, exponent = f"{value:.{digits - 1}e}".partition("e")
        out.add(f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}")
    if value >= 1:
        out.add(f"{value:.0f}")
    return {s for s in out if sum(ch.isdigit() for ch in s) >= 2}


def learner_sees(lesson: Lesson) -> str:
    """Every cell's source and output of the learner notebook, thousands separators removed (5,400 is 5400)."""
    parts = []
    for cell in read(lesson.notebook).cells:
        parts.append(cell.source)
        for output in cell.get("outputs", []):
            parts.append(json.dumps(output))
    return re.sub(r"(?<=\d),(?=\d{3})", "", "\n".join(parts))


def on_page(value: float, seen: str) -> list[str]:
    """The renderings of ``value`` that occur in ``seen`` as a whole number (not inside a longer one)."""
    return sorted(s for s in renderings(value) if re.search(rf"(?<![\d.]){re.escape(s)}(?![\d])", seen))


def choice_options(lesson: Lesson) -> dict[str, dict[str, str]]:
    """Each choice question's options, from the markdown cell just above its answer cell."""
    cells = read(lesson.notebook).cells
    choices = {q.id for q in lesson.questions if q.kind == "choice"}
    found = {}
    for before, cell in itertools.pairwise(cells):
        if cell.get("id") in choices:
            text = " ".join(before.source.split())
            found[cell["id"]] = dict(re.findall(r"- \*\*([A-D])\.\*\* (.*?)(?= - \*\*[A-D]\.\*\*| Set `)", text))
    assert set(found) == choices
    return found


def longest_right_options(lesson: Lesson, r: Any) -> list[str]:
    """The choice questions whose right option is at least as long as every other (or that have fewer than 3
    options); also fails if two questions share a right letter."""
    longest, letters = [], []
    for question, options in choice_options(lesson).items():
        right = getattr(r, question).strip().upper()
        letters.append(right)
        others = [len(text) for letter, text in options.items() if letter != right]
        if len(options) < 3 or len(options[right]) >= max(others):
            longest.append(question)
    assert len(set(letters)) == len(letters), letters
    return longest


def nbgrader_disagreements(lesson: Lesson) -> list[tuple[str, str, float, float]]:
    """Where an nbgrader test cell's score (in the kernel's namespace, ``cell_result``) differs from ``grade``'s
    (in the isolated worker), for every answer of the lesson's corpus: (answer, question, nbgrader, grade)."""
    from grader.config import SKIP_TAG
    from grader.corpus import load_corpus
    from grader.integrations.nbgrader import cell_result
    from grader.variants import Variant, grade_variants

    entries = load_corpus(lesson)
    graded = grade_variants(lesson, [Variant(e.name, e.code) for e in entries], lessons_root=lesson.root.parent)
    solution = [
        c.source
        for c in read(lesson.solution).cells
        if c.cell_type == "code" and SKIP_TAG not in c.metadata.get("tags", [])
    ]
    disagree = []
    for entry in entries:
        namespace: dict[str, Any] = {}
        exec("\n\n".join([*solution, entry.code]), namespace)
        for row in graded[entry.name]["questions"]:
            score = cell_result(lesson.id, row["id"], namespace).score
            if not math.isclose(score, row["score"], abs_tol=1e-9):
                disagree.append((entry.name, row["id"], score, row["score"]))
    return disagree
