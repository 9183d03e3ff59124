"""Similar submissions flagged: renamed and reformatted copies are, independent solutions are not, scores never
change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.batch.similar import fingerprints, normal_form, similar_pairs
from tests.batch_support import LESSONS, batch, grades, write_nb

ORIGINAL = [
    'answer_even = "A"',
    "def square(x):\n    value = x\n    product = value * value\n    return product",
    (
        "def sum_of_squares(xs):\n    total = 0\n    for item in xs:\n        if item is not None:\n"
        "            total = total + square(item)\n    return total"
    ),
]
# The same answers with every name but the lesson's signatures changed, comments, a docstring and other spacing.
COPY = [
    'answer_even="A"',
    'def square(x):\n    """Square x."""\n    v = x  # keep it\n    p = v*v\n    return p',
    (
        "def sum_of_squares(values):\n    # add them all up\n    acc = 0\n    for element in values:\n"
        "        if element is not None:  # skip gaps\n            acc = acc + square(element)\n\n    return acc"
    ),
]
# Two learners who solved it their own way.
OWN_1 = [
    'answer_even = "A"',
    "def square(x):\n    return x ** 2",
    (
        "def sum_of_squares(xs):\n    result = []\n    for x in xs:\n"
        "        result.append(square(x))\n    return sum(result)"
    ),
]
OWN_2 = [
    'answer_even = "a"',
    "def square(x):\n    return pow(x, 2) if x else 0.0",
    "def sum_of_squares(xs):\n    return sum(map(square, xs)) if xs else 0",
]


def test_the_normal_form_ignores_names_comments_docstrings_and_layout() -> None:
    assert normal_form(ORIGINAL) == normal_form(COPY)
    assert normal_form(ORIGINAL) != normal_form(OWN_1)
    assert normal_form(["%timeit square(3)", "def f(:", "x = 1"]) == normal_form(
        ["y = 1"]
    )  # magics and broken cells left out
    assert normal_form(["y = 1"]) != normal_form(["y = 2"]) and normal_form(["y = len(z)"]) != normal_form(
        ["y = sum(z)"]
    )
    assert fingerprints(ORIGINAL) == fingerprints(COPY)


def test_copies_are_paired_and_independent_solutions_are_not() -> None:
    pairs = similar_pairs({"ada": ORIGINAL, "cop": COPY, "bob": OWN_1, "cy": OWN_2})
    assert [(p.first, p.second) for p in pairs] == [("ada", "cop")] and pairs[0].similarity == 1.0
    assert "acc = acc + square(element)" in pairs[0].second_code  # shown as the learner wrote it


@pytest.mark.slow
def test_grade_batch_lists_the_pair_side_by_side_and_changes_no_score(tmp_path: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "out"
    for name, cells in (("ada", ORIGINAL), ("cop", COPY), ("bob", OWN_1), ("cy", OWN_2)):
        write_nb(subs / f"{name}.ipynb", cells)
    result = batch(str(subs), "--out", str(out), *LESSONS)
    assert result.returncode == 0, result.stderr
    assert {name: row["score"] for name, row in grades(out).items()} == {"ada": "5", "cop": "5", "bob": "5", "cy": "5"}
    similar = json.loads((out / "summary.json").read_text(encoding="utf-8"))["similar"]
    assert [(p["first"], p["second"]) for p in similar] == [("ada", "cop")]
    html = (out / "summary.html").read_text(encoding="utf-8")
    assert (
        "ada and cop: 100% similar" in html
        and "acc = acc + square(element)" in html
        and "product = value * value" in html
    )
