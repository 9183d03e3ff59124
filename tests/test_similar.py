"""Similar submissions flagged: renamed and reformatted copies are, independent solutions are not, scores never
change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.batch.similar import answer_cells, fingerprints, normal_form, similar_pairs
from grader.model import Cell, Submission
from tests.batch_support import LESSONS, batch, grades, write_nb
from tests.fixtures.similarity_class import SKELETON, make_class

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


@pytest.mark.parametrize("seed", range(5))
def test_on_a_class_every_near_copy_is_found_first_and_no_independent_pair_is_flagged(seed: int) -> None:
    """Independent answers (several ways per function, a third of the class doing only the one-liners most
    learners write alike) and near-copies (renamed, reformatted, commented, reordered): bench/similarity.py's
    measurement, on a smaller class."""
    made = make_class(40, 3, seed)
    pairs = similar_pairs(made.codes, starter=list(SKELETON.values()))
    assert {(p.first, p.second) for p in pairs} == made.copies
    assert all(p.similarity > 0.99 for p in pairs)


@pytest.mark.parametrize("seed", [16, 30])
def test_learners_who_wrote_some_answers_alike_by_chance_are_not_flagged(seed: int) -> None:
    """bench/similarity.py's class of 117 at the two seeds (of 41) where learners who wrote independently shared
    two of five functions and the one-liners word for word, and the rest nearly (a weighted similarity of 0.81
    and 0.83, over the threshold): what they wrote alike is as common as chance gives in a class this size, so
    no flag, and every planted near-copy is still found."""
    made = make_class(117, 6, seed)
    pairs = similar_pairs(made.codes, starter=list(SKELETON.values()))
    assert {(p.first, p.second) for p in pairs} == made.copies


def test_the_skeleton_and_what_many_share_weigh_less_than_what_two_share() -> None:
    """Four learners who wrote the same going-further answer, in a class where each answer has three ways
    to be written, are not pairs, however long it is; two with code no one else has are, ranked by evidence."""
    ways = [
        "def perplexity(logprobs):\n    return math.exp(-sum(logprobs) / len(logprobs)) if logprobs else float('inf')",
        "def perplexity(logprobs):\n    mean = sum(logprobs) / max(len(logprobs), 1)\n    return math.exp(-mean)",
        "def perplexity(logprobs):\n    return 2 ** (-sum(lp / math.log(2) for lp in logprobs) / len(logprobs))",
    ]
    given = SKELETON["softmax"].replace("raise NotImplementedError", "return [1 / len(logits)] * len(logits)")
    codes = {f"l{i:02d}": [given, ways[i % 3]] for i in range(12)}
    assert len(fingerprints([ways[0]])) >= 8  # long enough to count as evidence if it were rare
    assert similar_pairs(codes, starter=list(SKELETON.values())) == []
    own = "def helper(a, b):\n    c = [a[i] * b[i] + i for i in range(len(a)) if a[i] != b[i]]\n    return c[::-1]"
    more = "def other(q):\n    return {k: v for k, v in q.items() if k.startswith('x') and v > 3}"
    codes |= {"l00": [*codes["l00"], own, more], "l03": [*codes["l03"], more, own]}
    codes |= {"l01": [*codes["l01"], own], "l04": [*codes["l04"], own]}
    pairs = similar_pairs(codes, starter=list(SKELETON.values()))
    assert [(p.first, p.second) for p in pairs] == [("l00", "l03"), ("l01", "l04")]
    assert pairs[0].evidence > pairs[1].evidence >= 8


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


def test_one_learner_is_no_pair_and_no_error() -> None:
    """A batch of one learner (a regrade, a tiny class) has nothing to compare: no pair, and no division by zero."""
    from grader.batch.similar import similar_pairs

    assert similar_pairs({"ada": ("def f(x):\n    return x * x + 1",)}) == []


def _padded(cell: str) -> str:
    """``cell`` padded as attacks/similarity_padding.py does, and more: a 20,000-character comment after it, a long
    docstring and string statements inside its function."""
    lines = cell.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("def ")) + 1
    head, body = "\n".join(lines[:at]), "\n".join(lines[at:])
    strings = "\n".join(f"    'note {i} ' + '{'x' * 30}'" if i % 2 else f"    'note {i}'" for i in range(40))
    docstring = '"""' + "padding " * 500 + '"""'
    return f"{head}\n    {docstring}\n{strings}\n{body}\n# " + "padding " * 2600


def test_padding_with_comments_and_strings_neither_hides_nor_dilutes_a_copy() -> None:
    """A copy whose every cell carries a 20,000-character comment and a few kilobytes of strings is compared on
    its code alone: still flagged with its original, and an honest learner padded alike is not."""
    made = make_class(40, 1, seed=3)
    ((original, copier),) = made.copies
    codes = dict(made.codes)
    honest = next(name for name in codes if name not in (original, copier) and codes[name][0] != SKELETON["softmax"])
    for name in (copier, honest):
        cells = tuple(Cell(i, _padded(cell)) for i, cell in enumerate(codes[name]))
        assert all(len(cell.source) > 20_000 for cell in cells)
        codes[name] = list(answer_cells(Submission(Path(f"{name}.ipynb"), cells, None, "")))
        assert len(codes[name]) == len(made.codes[name])  # none left out for its length
        assert normal_form(codes[name]) == normal_form(made.codes[name])  # and the padding leaves no token
    pairs = similar_pairs(codes, starter=list(SKELETON.values()))
    assert {(p.first, p.second) for p in pairs} == made.copies and pairs[0].similarity > 0.99


def test_the_pairs_are_looked_for_while_the_notebooks_are_graded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pairs depend only on what was read for grading, so a thread of the batch process looks for them while the
    grading processes grade, not after the last grade (where they were most of a batch's wait for its results).
    Here grading waits until they have been looked for: had they been looked for after grading, it would wait in
    vain. A failure to find them still stops the batch, with the graded rows kept in the gradebook."""
    import threading

    import grader.batch.run as run
    from grader.batch.gradebook import FILE_NAME, Gradebook
    from grader.batch.run import BatchOptions, run_batch
    from grader.pipeline import GradeOptions
    from tests.conftest import FIXTURE_LESSONS

    subs, out = tmp_path / "subs", tmp_path / "out"
    for name, cells in (("ada", ORIGINAL), ("cop", COPY), ("bob", OWN_1), ("cy", OWN_2)):
        write_nb(subs / f"{name}.ipynb", cells)
    looked, before_grading = threading.Event(), []
    find, grade_all = run.find_similar, run._grade_all

    def finding(*args: object, **kwargs: object) -> object:
        looked.set()
        return find(*args, **kwargs)  # type: ignore[arg-type]

    def grading(*args: object, **kwargs: object) -> object:
        before_grading.append(looked.wait(20))
        return grade_all(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "find_similar", finding)
    monkeypatch.setattr(run, "_grade_all", grading)
    options = BatchOptions(GradeOptions(lessons_root=FIXTURE_LESSONS), jobs=1)
    summary = run_batch(subs, out, options)
    assert before_grading == [True]
    assert {row.learner: row.score for row in summary.rows} == {"ada": 5, "cop": 5, "bob": 5, "cy": 5}
    similar = json.loads((out / "summary.json").read_text(encoding="utf-8"))["similar"]
    assert [(p["first"], p["second"]) for p in similar] == [("ada", "cop")]

    def failing(*args: object, **kwargs: object) -> object:
        raise RuntimeError("no pairs today")

    monkeypatch.setattr(run, "find_similar", failing)
    monkeypatch.setattr(run, "_grade_all", grade_all)
    (subs / "cop.ipynb").unlink()
    write_nb(subs / "dee.ipynb", OWN_2)
    with pytest.raises(RuntimeError, match="no pairs today"):
        run_batch(subs, out, options)
    with Gradebook(out / FILE_NAME) as book:
        assert {row.learner: row.score for row in book.latest(["ada", "bob", "cy", "dee"])}["dee"] == 5  # kept
