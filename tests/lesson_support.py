"""Helpers for a lesson's own tests (``tests/test_lesson_<id>.py``): read its notebooks and suites, check the
numbers its text claims, find its choice options, and compare nbgrader's scores with ``grade``'s on its corpus.

Each lesson test keeps what is particular to its lesson (the claims, the by-hand answers, the slips); what is the
same for every lesson lives here once.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

import nbformat

from grader.authoring.corpus import Entry
from grader.model import Lesson

if TYPE_CHECKING:
    from grader.authoring.audit import AuditReport

#: (a passage of the text, the number it shows, that number computed, relative tolerance or 0 for half a unit of
#: the last digit shown).
Claim = tuple[str, str, float, float]


def notebook(path: Path) -> Any:
    return nbformat.read(path, as_version=4)


def suite_module(lesson: Lesson, name: str) -> ModuleType:
    """One of the lesson's suite files (``conftest``, ``test_values``), imported for its tables."""
    spec = importlib.util.spec_from_file_location(f"{lesson.id}_suite_{name}", lesson.suites / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference(lesson: Lesson) -> Any:
    """The solution notebook's namespace."""
    from grader.suites.reference import load_reference

    return load_reference(lesson.solution)


def prose(lesson: Lesson) -> str:
    """The learner notebook's markdown, each run of whitespace one space (a claim may wrap)."""
    cells = notebook(lesson.notebook).cells
    return " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")


def learner_page(lesson: Lesson) -> str:
    """Everything the learner notebook shows (sources and outputs), with 5,400 written as 5400."""
    parts = []
    for cell in notebook(lesson.notebook).cells:
        parts.append(cell.source)
        parts.extend(json.dumps(output) for output in cell.get("outputs", []))
    return re.sub(r"(?<=\d),(?=\d{3})", "", "\n".join(parts))


def _half_unit(shown: str) -> float:
    return 0.5 * 10.0 ** -len(shown.split(".")[1]) if "." in shown and "e" not in shown else 0.5


def _text(page: Lesson | str) -> str:
    return prose(page) if isinstance(page, Lesson) else page


def wrong_claims(page: Lesson | str, claims: Iterable[Claim]) -> list[str]:
    """Each claim whose passage the text (a lesson's prose, or text given) no longer has, or whose number is not
    what was computed."""
    text, wrong = _text(page), []
    for passage, shown, computed, rel in claims:
        tolerance = rel * abs(computed) if rel else _half_unit(shown)
        if passage not in text:
            wrong.append(f"the text no longer says {passage!r}: update the claim with the text")
        elif abs(float(shown) - computed) > tolerance:
            wrong.append(f"{passage!r}: the lesson's functions give {computed!r}")
    return wrong


def unclaimed_bold_numbers(page: Lesson | str, claims: Iterable[Claim], formulas: Sequence[str]) -> list[str]:
    """Bold text starting with a digit that no claim covers and that is not one of ``formulas`` (givens)."""
    claimed = " ".join(passage for passage, *_ in claims)
    bold = re.findall(r"\*\*(?!\d+\.\*\*)[0-9][^*]*\*\*", _text(page))
    assert bold, "no bold numbers found: has the text's format changed?"
    return [b for b in bold if b not in claimed and b not in formulas]


def choice_options(lesson: Lesson) -> dict[str, dict[str, str]]:
    """Each choice question's options, from the markdown cell just above its answer cell."""
    cells = notebook(lesson.notebook).cells
    choices = {q.id for q in lesson.questions if q.kind == "choice"}
    found = {}
    for before, cell in itertools.pairwise(cells):
        if cell.get("id") in choices:
            text = " ".join(before.source.split())
            found[cell["id"]] = dict(re.findall(r"- \*\*([A-D])\.\*\* (.*?)(?= - \*\*[A-D]\.\*\*| Set `)", text))
    assert set(found) == choices
    return found


def wrong_docstring_examples(lesson: Lesson, r: Any) -> list[tuple[str, Any, str]]:
    """Each ``Example: f(...) -> value`` of the solution whose call gives another value (with ``...``: another
    start); also fails unless every function question has one."""
    names, wrong = [], []
    for cell in notebook(lesson.solution).cells:
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


def on_page(value: float, seen: str) -> list[str]:
    """The renderings of ``value`` that occur in ``seen`` as a whole number (not inside a longer one)."""
    return sorted(s for s in renderings(value) if re.search(rf"(?<![\d.]){re.escape(s)}(?![\d])", seen))


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


def corpus_entries(lesson: Lesson) -> tuple[Entry, ...]:
    """The lesson's corpus written for the page's numbers, as ``grade corpus`` writes them (an entry may name a
    field: ``{params_b}``)."""
    from dataclasses import replace

    from grader.authoring.corpus import load_corpus
    from grader.params import default_params, render

    numbers = default_params(lesson)
    return tuple(replace(e, code=render(e.code, numbers), about=render(e.about, numbers)) for e in load_corpus(lesson))


def graded_corpus(lesson: Lesson) -> tuple[tuple[Entry, ...], dict[str, dict[str, Any]]]:
    """The lesson's corpus and what ``grade`` gives each of its answers (one batch)."""
    from grader.authoring.variants import Variant, grade_variants

    entries = corpus_entries(lesson)
    return entries, grade_variants(lesson, [Variant(e.name, e.code) for e in entries], lessons_root=lesson.root.parent)


@dataclass(frozen=True)
class GradedLesson:
    """Everything the lesson gates read, graded in one batch: the corpus's answers, the mutation audit's mutants
    and controls, the solution notebook and the untouched learner notebook, each as ``grade batch`` grades it."""

    entries: tuple[Entry, ...]
    corpus: dict[str, dict[str, Any]]
    """Each corpus entry's name to its result row."""
    audit: AuditReport
    solution: dict[str, Any]
    notebook: dict[str, Any]


#: Each group's prefix in the one batch (a variant's name is its learner id there; the prefixes keep them apart).
_CORPUS, _AUDIT, _SOLUTION, _NOTEBOOK = "corpus.", "audit.", "lesson.solution", "lesson.notebook"


def graded_lesson(lesson: Lesson) -> GradedLesson:
    """Grade the lesson's corpus, its audit's variants, its solution and its untouched notebook in one batch: one
    warm pool for all, where the gates graded the corpus, the audit and each notebook apart."""
    from dataclasses import replace

    from grader.authoring.audit.run import judge_audit, plan_audit
    from grader.authoring.variants import Variant, grade_variants

    entries = corpus_entries(lesson)
    plan = plan_audit(lesson)
    variants = [
        *(Variant(_CORPUS + e.name, e.code) for e in entries),
        *(replace(v, name=_AUDIT + v.name) for v in plan.variants),
        Variant(_SOLUTION, "", notebook=lesson.solution),
        Variant(_NOTEBOOK, "", notebook=lesson.notebook),
    ]
    started = time.monotonic()
    rows = grade_variants(lesson, variants, lessons_root=lesson.root.parent)
    audit = judge_audit(
        lesson, plan, {v.name: rows[_AUDIT + v.name] for v in plan.variants}, time.monotonic() - started
    )
    corpus = {e.name: rows[_CORPUS + e.name] for e in entries}
    return GradedLesson(entries, corpus, audit, rows[_SOLUTION], rows[_NOTEBOOK])


def nbgrader_disagreements(
    lesson: Lesson, graded: tuple[tuple[Entry, ...], dict[str, dict[str, Any]]] | None = None
) -> list[tuple[str, str, float, float]]:
    """(corpus answer, question, nbgrader's score, grade's score) wherever an nbgrader test cell (in the kernel's
    namespace, ``cell_result``) scores an answer of the corpus otherwise than ``grade`` (in the isolated worker).
    ``graded``: :func:`graded_corpus`'s result when the caller has it already (it is the slow part)."""
    from grader.config import SKIP_TAG
    from grader.integrations.nbgrader import cell_result

    entries, graded = graded or graded_corpus(lesson)
    solution = [
        c.source
        for c in notebook(lesson.solution).cells
        if c.cell_type == "code" and SKIP_TAG not in c.metadata.get("tags", [])
    ]
    disagree = []
    for entry in entries:
        namespace: dict[str, Any] = {}
        exec("\n\n".join([*solution, entry.code]), namespace)
        for row in graded[entry.name]["questions"]:
            score = cell_result(lesson.id, row["id"], namespace, lesson.root.parent).score
            if not math.isclose(score, row["score"], abs_tol=1e-9):
                disagree.append((entry.name, row["id"], score, row["score"]))
    return disagree


def copies_credited(
    suites: Any, lesson: Lesson, answers: Callable[[dict[str, Any]], dict[str, Any]], questions: Sequence[str]
) -> list[str]:
    """Part 1 handed in from every other set of the lesson's numbers, graded on the page's: each question that
    earned credit carried forward from a copied answer, or passed with an answer not right on the page's own
    numbers (a copy is never credited, whichever numbers the two learners share)."""
    from grader.params import every_params
    from grader.suites.namespace import NamespaceTarget

    mine, *others = every_params(lesson)
    own = answers(dict(mine))
    wrong = []
    for theirs in others:
        handed_in = answers(dict(theirs))
        for outcome in suites.run(NamespaceTarget(handed_in), frozenset(questions), mine):
            same = math.isclose(float(handed_in[outcome.question]), float(own[outcome.question]), rel_tol=3e-3)
            if outcome.status == "passed" and (outcome.carried or not same):
                wrong.append(f"{outcome.question} on {dict(theirs)}: passed, carried from {outcome.carried}")
    return wrong


def released_part1(lesson: Lesson, questions: Sequence[str]) -> Iterator[tuple[dict[str, Any], Any, SimpleNamespace]]:
    """Each set of the lesson's numbers released to one learner: the numbers, the built notebooks and Part 1's
    answers (``questions``) as the solution built on those numbers computes them."""
    from grader.authoring.build import Owner, build_notebooks, read_source
    from grader.params import as_dict, every_params

    src = read_source(lesson)
    for params in every_params(lesson):
        built = build_notebooks(src, Owner("ada", params))
        namespace: dict[str, Any] = {}
        for cell in built.solution.cells:
            if cell.get("id") in questions:
                exec(cell.source, namespace)
        yield dict(as_dict(params)), built, SimpleNamespace(**namespace)


def answer_shop(path: Path, numbers: dict[str, Any]) -> None:
    """Fill a released notebook of the params fixture lesson ``shop`` in as a learner who worked ``numbers`` would
    (both answers right for them)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if text.startswith("total = None"):
            cell["source"] = f"total = {numbers['items']} * {numbers['price']}"
        else:
            cell["source"] = text.replace('raise NotImplementedError("Write unit_price', "return total / items  #")
    path.write_text(json.dumps(nb), encoding="utf-8")
