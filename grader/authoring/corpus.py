"""A lesson's mistakes corpus: realistic answers that prove its hidden suites catch mistakes and name them.

Each file of ``<lesson folder>/mistakes/`` is one extra notebook cell (see :mod:`grader.authoring.variants`) whose
header declares, per question, whether it should lose points and which misconception the feedback must name.
:func:`check_lesson` grades the whole corpus in one batch and lists every broken promise, so a lesson author
learns exactly where the suites let a mistake through, mark down a right answer, or fail to say why.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from grader.authoring.variants import Variant, grade_variants
from grader.config import MISTAKES_FOLDER
from grader.errors import CorpusError
from grader.lessons import load_lesson
from grader.model import Lesson, Params
from grader.params import default_params, describe, render, spread

Kind = Literal["wrong", "correct"]
ProblemKind = Literal["wrong verdict", "unnamed misconception", "misnamed misconception"]
Naming = Literal["right", "wrong", "not named"]

_FIELD = re.compile(r"#\s*(?P<key>kind|about|expect)\b\s*(?P<rest>.*)$")
_EXPECT = re.compile(r"(?P<question>[A-Za-z_]\w*)\s*:\s*(?P<verdict>right|wrong)\s*(?P<regex>.*)$")
_SHOWN = 400
_SHAPE = (
    "Each header line is one of `# kind: wrong` (or `correct`), `# about: what the learner did`, "
    "`# expect QUESTION: right` or `# expect QUESTION: wrong /REGEX/`; the header ends at the first blank line."
)


@dataclass(frozen=True)
class Expectation:
    """What one question should get: full marks (``pattern`` is None) or fewer, with feedback matching."""

    question: str
    pattern: re.Pattern[str] | None
    line: int

    @property
    def wrong(self) -> bool:
        return self.pattern is not None


@dataclass(frozen=True)
class Entry:
    """One corpus file: its answer code and the verdicts it declares (unnamed questions are expected right)."""

    name: str
    path: Path
    kind: Kind
    about: str
    expectations: tuple[Expectation, ...]
    code: str

    def expected(self, question: str) -> Expectation | None:
        return next((e for e in self.expectations if e.question == question), None)


@dataclass(frozen=True)
class Problem:
    """A broken promise: which file, which question, and a sentence saying what came back."""

    entry: str
    question: str
    kind: ProblemKind
    detail: str


@dataclass(frozen=True)
class Misconception:
    """One misconception of one question (the entries declaring the same regex for it), and how its feedback
    fared: named right (its own regex matched), named wrong (it missed its own regex but matched one another
    entry declares for the question: the feedback named a different slip), or not named."""

    question: str
    pattern: str
    entries: tuple[str, ...]
    right: int
    wrong: int
    not_named: int

    @property
    def total(self) -> int:
        return self.right + self.wrong + self.not_named


@dataclass(frozen=True)
class CorpusReport:
    """The outcome of one lesson's corpus: every problem, and the figures a lesson author tracks."""

    lesson: str
    problems: tuple[Problem, ...]
    wrong_answers: int
    wrong_caught: int
    misconceptions: int
    misconceptions_named: int
    correct_answers: int
    correct_kept: int
    by_misconception: tuple[Misconception, ...] = ()
    by_params: tuple[tuple[str, CorpusReport], ...] = ()
    """For a lesson with learner parameters: the same figures on each set of numbers the corpus ran on (each
    answer that uses them, or is about a question that does, runs on every set; the others on the page's)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def named_wrong(self) -> int:
        """Misconceptions whose feedback named another one: a diagnosis that says something false."""
        return sum(m.wrong for m in self.by_misconception)

    @property
    def named_share(self) -> float:
        """Named right over every misconception the corpus declares (1.0 for a corpus with none)."""
        return self.misconceptions_named / self.misconceptions if self.misconceptions else 1.0

    def lines(self) -> list[str]:
        """A readable rendering: the figures, then the problems grouped by question."""
        out = [
            f"Mistakes corpus of lesson {self.lesson!r}:",
            f"  wrong answers caught:   {self.wrong_caught}/{self.wrong_answers}",
            f"  misconceptions named:   {self.misconceptions_named}/{self.misconceptions} "
            f"({self.named_share:.0%} named right, {self.named_wrong} named wrong)",
            f"  correct answers kept:   {self.correct_kept}/{self.correct_answers}",
            *self.misconception_lines(),
            *(
                f"  on {numbers}: caught {r.wrong_caught}/{r.wrong_answers}, named "
                f"{r.misconceptions_named}/{r.misconceptions}, kept {r.correct_kept}/{r.correct_answers}"
                for numbers, r in self.by_params
            ),
        ]
        if not self.problems:
            return out + ["  no problems."]
        out.append(f"  {len(self.problems)} problem(s):")
        for question in dict.fromkeys(p.question for p in self.problems):
            out.append(f"  {question}:")
            for p in (p for p in self.problems if p.question == question):
                out.append(f"    {p.entry}: {p.kind}: {p.detail}")
        return out

    def misconception_lines(self) -> list[str]:
        """Per question, per misconception: named right / named wrong / not named, then precision and recall."""
        out = ["  per misconception (named right / named wrong / not named):"]
        for question in dict.fromkeys(m.question for m in self.by_misconception):
            mine = [m for m in self.by_misconception if m.question == question]
            right, wrong = sum(m.right for m in mine), sum(m.wrong for m in mine)
            total = sum(m.total for m in mine)
            precision = f"{right / (right + wrong):.0%}" if right + wrong else "-"
            out.append(f"    {question}: precision {precision}, recall {right / total:.0%}")
            for m in mine:
                shown = m.pattern if len(m.pattern) <= 60 else m.pattern[:57] + "..."
                out.append(f"      {m.right}/{m.wrong}/{m.not_named}  {', '.join(m.entries)}  /{shown}/")
        return out


def parse_entry(path: Path, questions: Collection[str], text: str | None = None) -> Entry:
    """Read one corpus file's header; a malformed one raises :class:`CorpusError` naming file and line."""
    text = path.read_text(encoding="utf-8") if text is None else text
    kind: str | None = None
    about: str | None = None
    expectations: list[Expectation] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            break
        where = f"{path}, line {number}"
        field = _FIELD.match(line.strip())
        if not field:
            raise CorpusError(f"{where}: {line.strip()!r} is not a header line. {_SHAPE}")
        key, rest = field["key"], field["rest"].strip()
        if key == "expect":
            expectations.append(_parse_expect(rest, where, questions, expectations, number))
            continue
        if not rest.startswith(":") or not rest[1:].strip():
            raise CorpusError(f"{where}: write `# {key}: ...` with a value after the colon. {_SHAPE}")
        value = rest[1:].strip()
        if key == "kind" and value not in ("wrong", "correct"):
            raise CorpusError(f"{where}: the kind is {value!r}; write `# kind: wrong` or `# kind: correct`.")
        if key == "kind":
            kind = value
        else:
            about = value
    if kind is None or about is None:
        missing = " and ".join(k for k, v in (("kind", kind), ("about", about)) if v is None)
        raise CorpusError(f"{path}: the header has no {missing} line. {_SHAPE}")
    wrong = [e for e in expectations if e.wrong]
    if kind == "wrong" and not wrong:
        raise CorpusError(
            f"{path}: a `kind: wrong` answer must expect at least one question wrong: "
            "add `# expect QUESTION: wrong /REGEX/`."
        )
    if kind == "correct" and wrong:
        raise CorpusError(
            f"{path}, line {wrong[0].line}: a `kind: correct` answer expects every question right; "
            "make it `# kind: wrong` or remove this expectation."
        )
    return Entry(path.stem, path, "wrong" if kind == "wrong" else "correct", about, tuple(expectations), text)


def _parse_expect(
    rest: str, where: str, questions: Collection[str], seen: Sequence[Expectation], number: int
) -> Expectation:
    match = _EXPECT.match(rest)
    if not match:
        raise CorpusError(
            f"{where}: write `# expect QUESTION: right` or `# expect QUESTION: wrong /REGEX/`, not {rest!r}."
        )
    question, verdict, regex = match["question"], match["verdict"], match["regex"].strip()
    if question not in questions:
        known = ", ".join(questions)
        raise CorpusError(f"{where}: the lesson has no question {question!r}; its questions are: {known}.")
    if any(e.question == question for e in seen):
        raise CorpusError(f"{where}: {question!r} is expected twice; keep one `expect` line per question.")
    if verdict == "right":
        if regex:
            raise CorpusError(f"{where}: a `right` expectation takes no regex; remove {regex!r}.")
        return Expectation(question, None, number)
    if len(regex) < 3 or not (regex.startswith("/") and regex.endswith("/")):
        raise CorpusError(
            f"{where}: after `wrong`, give the misconception the feedback must name as /REGEX/ "
            f"(e.g. `wrong /factor of 8|bits/`), not {regex!r}."
        )
    try:
        pattern = re.compile(regex[1:-1], re.IGNORECASE)
    except re.error as err:
        raise CorpusError(f"{where}: the regex {regex} does not compile ({err}); fix it.") from None
    return Expectation(question, pattern, number)


def load_corpus(lesson: Lesson) -> tuple[Entry, ...]:
    """Every entry of the lesson's corpus, sorted by file name; an absent or empty folder is an error."""
    folder = lesson.root / MISTAKES_FOLDER
    paths = sorted(folder.glob("*.py"))
    if not paths:
        raise CorpusError(
            f"Lesson {lesson.id!r} has no mistakes corpus: put one answer per `.py` file in {folder} "
            "(see exercises/decode/mistakes/README.md)."
        )
    questions = [q.id for q in lesson.questions]
    entries = tuple(parse_entry(path, questions) for path in paths)
    for entry in entries:
        refuse_vacuous(lesson, entry)
    return entries


def refuse_vacuous(lesson: Lesson, entry: Entry) -> None:
    """Refuse a regex that matches its question's own id, title or hint.

    Feedback may quote any of these for every mistake, so such a regex would count a misconception as named
    when the feedback only repeated the question: it must name what this answer got wrong.
    """
    for expectation in entry.expectations:
        if expectation.pattern is None:
            continue
        question = lesson.question(expectation.question)
        for label, text in (("id", question.id), ("title", question.title), ("hint", question.hint)):
            found = expectation.pattern.search(text)
            if found:
                raise CorpusError(
                    f"{entry.path}, line {expectation.line}: the regex matches {found.group(0)!r} in the {label} of "
                    f"{question.id!r}, which its feedback may repeat for any mistake; make it name this "
                    "misconception only."
                )


def compare(lesson: Lesson, entries: Sequence[Entry], results: Mapping[str, Mapping[str, Any]]) -> CorpusReport:
    """Hold each entry's graded result (a ``results.jsonl`` object) to the verdicts it declares."""
    problems: list[Problem] = []
    caught = named = kept = misconceptions = 0
    for entry in entries:
        rows = {str(q["id"]): q for q in results[entry.name]["questions"]}
        status = str(results[entry.name].get("status", "graded"))
        found = [_judge(entry, lesson_q.id, rows.get(lesson_q.id), status) for lesson_q in lesson.questions]
        entry_problems = [p for p in found if p is not None]
        problems.extend(entry_problems)
        wrong = [e for e in entry.expectations if e.wrong]
        misconceptions += len(wrong)
        lost = {e.question for e in wrong if not _full(rows.get(e.question))}
        named += sum(1 for e in wrong if e.question in lost and not _unnamed(entry, e.question, entry_problems))
        if entry.kind == "wrong" and len(lost) == len(wrong):
            caught += 1
        if entry.kind == "correct" and not entry_problems:
            kept += 1
    wrong_answers = sum(1 for e in entries if e.kind == "wrong")
    order = [q.id for q in lesson.questions]
    namings = _namings(lesson, entries, results)
    misnamed = {key for key, (naming, _) in namings.items() if naming == "wrong"}
    problems = [p for p in problems if p.kind != "unnamed misconception" or (p.entry, p.question) not in misnamed]
    problems.extend(
        Problem(name, question, "misnamed misconception", f"the feedback names another answer's misconception: {why}")
        for (name, question), (naming, why) in namings.items()
        if naming == "wrong"
    )
    return CorpusReport(
        lesson=lesson.id,
        problems=tuple(sorted(problems, key=lambda p: order.index(p.question))),
        wrong_answers=wrong_answers,
        wrong_caught=caught,
        misconceptions=misconceptions,
        misconceptions_named=named,
        correct_answers=len(entries) - wrong_answers,
        correct_kept=kept,
        by_misconception=_tally(entries, namings, order),
    )


def _namings(
    lesson: Lesson, entries: Sequence[Entry], results: Mapping[str, Mapping[str, Any]]
) -> dict[tuple[str, str], tuple[Naming, str]]:
    """For each (entry, question) expected wrong that lost points: how its feedback named the misconception.

    The other entries' regexes for the same question are the catalogue of misconceptions it could be told
    instead: missing its own regex and matching one of those is naming the wrong one. A regex that matches
    the question's own id, title or hint names nothing (:func:`refuse_vacuous`), so it is left out.
    """
    catalogue: dict[str, dict[str, re.Pattern[str]]] = {}
    for entry in entries:
        for e in entry.expectations:
            if e.pattern is not None and not _vacuous(lesson, e.question, e.pattern):
                catalogue.setdefault(e.question, {})[e.pattern.pattern] = e.pattern
    out: dict[tuple[str, str], tuple[Naming, str]] = {}
    for entry in entries:
        rows = {str(q["id"]): q for q in results[entry.name]["questions"]}
        for e in entry.expectations:
            row = rows.get(e.question)
            if e.pattern is None or _full(row):
                continue
            text = _feedback(row)
            if e.pattern.search(text):
                out[entry.name, e.question] = ("right", "")
                continue
            others = [
                p for key, p in catalogue.get(e.question, {}).items() if key != e.pattern.pattern and p.search(text)
            ]
            if others:
                out[entry.name, e.question] = (
                    "wrong",
                    f"/{others[0].pattern}/ matches, not /{e.pattern.pattern}/: {_short(row)}",
                )
            else:
                out[entry.name, e.question] = ("not named", "")
    return out


def _vacuous(lesson: Lesson, question_id: str, pattern: re.Pattern[str]) -> bool:
    question = lesson.question(question_id)
    return any(pattern.search(text) for text in (question.id, question.title, question.hint))


def _tally(
    entries: Sequence[Entry], namings: Mapping[tuple[str, str], tuple[Naming, str]], order: Sequence[str]
) -> tuple[Misconception, ...]:
    """Group the namings by question and regex: one :class:`Misconception` each, in the lesson's order."""
    groups: dict[tuple[str, str], list[tuple[str, Naming]]] = {}
    for entry in entries:
        for e in entry.expectations:
            if e.pattern is not None:
                naming = namings.get((entry.name, e.question), ("not named", ""))[0]
                groups.setdefault((e.question, e.pattern.pattern), []).append((entry.name, naming))
    return tuple(
        Misconception(
            question,
            pattern,
            tuple(name for name, _ in found),
            sum(1 for _, n in found if n == "right"),
            sum(1 for _, n in found if n == "wrong"),
            sum(1 for _, n in found if n == "not named"),
        )
        for (question, pattern), found in sorted(groups.items(), key=lambda g: (order.index(g[0][0]), g[0][1]))
    )


def _judge(entry: Entry, question: str, row: Mapping[str, Any] | None, status: str) -> Problem | None:
    expectation = entry.expected(question)
    full = _full(row)
    got = _score(row, status)
    if expectation is None or expectation.pattern is None:  # expected right
        if full:
            return None
        return Problem(entry.name, question, "wrong verdict", f"expected full marks, got {got}: {_short(row)}")
    if full:
        return Problem(entry.name, question, "wrong verdict", f"expected to lose points ({entry.about}), got {got}")
    if expectation.pattern.search(_feedback(row)):
        return None
    return Problem(
        entry.name,
        question,
        "unnamed misconception",
        f"lost points ({got}) but the feedback does not match /{expectation.pattern.pattern}/: {_short(row)}",
    )


def _unnamed(entry: Entry, question: str, problems: Sequence[Problem]) -> bool:
    return any(p.entry == entry.name and p.question == question for p in problems)


def _full(row: Mapping[str, Any] | None) -> bool:
    return row is not None and float(row["score"]) >= float(row["max_score"])


def _score(row: Mapping[str, Any] | None, status: str) -> str:
    if row is None:
        return f"no result (the notebook was {status})"
    return f"{float(row['score']):g}/{float(row['max_score']):g}"


def _feedback(row: Mapping[str, Any] | None) -> str:
    if row is None:
        return ""
    feedback = row.get("feedback", "")
    return " | ".join(str(f) for f in feedback) if isinstance(feedback, list) else str(feedback)


def _short(row: Mapping[str, Any] | None) -> str:
    """The feedback, cut to a readable length for a problem line (the regex searches all of it)."""
    text = _feedback(row)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def check_lesson(lesson: Lesson | str, *, lessons_root: Path | None = None, jobs: int | None = None) -> CorpusReport:
    """Grade a lesson's whole corpus in one batch and compare every result with what its file declares."""
    if isinstance(lesson, str):
        lesson = load_lesson(lesson, lessons_root)
    return grade_corpus(lesson, load_corpus(lesson), lessons_root=lessons_root, jobs=jobs)


def grade_corpus(
    lesson: Lesson, entries: Sequence[Entry], *, lessons_root: Path | None = None, jobs: int | None = None
) -> CorpusReport:
    """Grade ``entries`` (from files or built in memory) in one batch and compare each with its declarations.

    For a lesson with learner parameters, each entry that uses them (its code names a field, ``{params_b}``, or
    it is about a question that uses them) is graded on every set of :func:`grader.params.spread`, written for
    those numbers, as ``<name>@<k>`` (the page's numbers keep the plain name); the report adds each set's figures.
    """
    sets = spread(lesson)
    runs = [
        (entry, k, numbers) for entry in entries for k, numbers in enumerate(sets) if k == 0 or _uses(lesson, entry)
    ]
    graded = [_on(entry, k, numbers) for entry, k, numbers in runs]
    variants = [Variant(entry.name, entry.code, numbers) for entry, (_, _, numbers) in zip(graded, runs, strict=True)]
    results = grade_variants(lesson, variants, lessons_root=lessons_root or lesson.root.parent, jobs=jobs)
    report = compare(lesson, graded, results)
    if len(sets) < 2:
        return report
    by_params = tuple(
        (describe(numbers), compare(lesson, [g for g, (_, j, _) in zip(graded, runs, strict=True) if j == k], results))
        for k, numbers in enumerate(sets)
    )
    return replace(report, by_params=by_params)


def _uses(lesson: Lesson, entry: Entry) -> bool:
    """Whether an entry depends on the learner's numbers: it names one, or is about a question that uses them."""
    using = {q for p in lesson.params for q in p.questions}
    return render(entry.code, default_params(lesson)) != entry.code or any(
        e.question in using for e in entry.expectations
    )


def _on(entry: Entry, k: int, numbers: Params) -> Entry:
    """The entry written for ``numbers``: its fields filled in, named ``<name>@<k>`` off the page's numbers."""
    name = entry.name if k == 0 else f"{entry.name}@{k}"
    return replace(entry, name=name, code=render(entry.code, numbers), about=render(entry.about, numbers))
