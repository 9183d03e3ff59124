"""What to re-teach: the class report added to summary.html, and the same figures in summary.json.

Per question, the misconceptions the feedback named and how many learners hold each ("ms_per_token: 9
learners: the step time in seconds..."); then the learners who are stuck (most questions not attempted,
or losing points to an error: a notebook that did not run, a cell that raised), each linked to their
feedback page; then the pairs of near-identical submissions :mod:`grader.batch.similar` found.

Misconceptions are grouped from the feedback itself, with no rule per lesson: a feedback line's first
sentence says what was called and what came back (different for every learner); the sentences after it
name the slip. Those are normalised (numbers, quoted values and parentheses dropped, spaces collapsed)
and learners are counted per normal form, each shown in its most frequent wording.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.batch.model import Row, error_reason, integrity_flags
from grader.config import SIMILAR_SHOWN
from grader.report.markup import inline_html
from grader.text import for_html

#: Question statuses whose feedback names a mistake (not "not attempted", not "no evidence").
_WRONG = ("failed", "partial")
#: A graded learner is stuck when at least this share of the questions is not attempted.
STUCK_NOT_ATTEMPTED = 0.5

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`])")
_NUMBER = re.compile(r"[-+]?\d[\d,_]*(?:\.\d+)?(?:e[-+]?\d+)?", re.IGNORECASE)
_QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\[[^\]]*\]")
_PARENTHESES = re.compile(r"\([^()]*\)")
#: The space a parenthesis taken out leaves before a punctuation mark.
_SPACE_BEFORE_MARK = re.compile(r"\s+([.,;:!?])")


@dataclass(frozen=True)
class Pair:
    """Two learners whose answer code is near-identical, with that code for a side-by-side look."""

    first: str
    second: str
    similarity: float
    first_code: str
    second_code: str
    evidence: float = 0.0
    """What the two share, weighed by rarity: in fingerprints that only the two of them have (the ranking)."""


@dataclass(frozen=True)
class Misconception:
    question: str
    text: str
    """The most frequent wording of the slip in the feedback."""
    learners: tuple[str, ...]


@dataclass(frozen=True)
class Stuck:
    learner: str
    why: str
    feedback: str
    """The learner's feedback page, relative to the results folder."""


@dataclass(frozen=True)
class QuestionCounts:
    """How the notebooks that ran did on one question: learners per status (passed, partial, failed, ...)."""

    id: str
    statuses: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Flagged:
    """A learner whose notebook has an integrity flag, with the flag and their feedback page."""

    learner: str
    flags: tuple[str, ...]
    feedback: str


@dataclass(frozen=True)
class ClassReport:
    misconceptions: tuple[Misconception, ...]
    stuck: tuple[Stuck, ...]
    similar: tuple[Pair, ...] = ()
    questions: tuple[QuestionCounts, ...] = ()
    flagged: tuple[Flagged, ...] = ()


def slip(line: str) -> str:
    """The sentences of one feedback line after its first (what was called and what came back); may be empty."""
    sentences = _SENTENCE_END.split(line.strip())
    return " ".join(sentences[1:]).strip()


def normal_form(text: str) -> str:
    """A slip with everything that differs from learner to learner taken out: numbers, quoted values, parentheses."""
    text = _QUOTED.sub(" ", text)
    while _PARENTHESES.search(text):  # nested ones too, innermost first
        text = _PARENTHESES.sub(" ", text)
    text = " ".join(_NUMBER.sub("#", text).lower().split())
    return _SPACE_BEFORE_MARK.sub(r"\1", text)  # "factor 2 (yours: 32)." and "factor 2." are one slip


def misconceptions(rows: Sequence[Row]) -> tuple[Misconception, ...]:
    """Every slip the feedback named, per question, with the learners who made it; most learners first. Notebooks
    with an integrity flag (:func:`grader.batch.model.integrity_flags`) are left out: their answers are someone
    else's numbers' or work, not this learner's misconception."""
    learners: dict[tuple[str, str], set[str]] = defaultdict(set)
    wordings: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    order: list[str] = []
    for row in rows:
        if row.report is None or row.status != "graded" or integrity_flags(row):
            continue  # a notebook released to someone else, or a copied Part 1, says nothing of what was misunderstood
        for q in row.report.questions:
            order += [q.id] if q.id not in order else []
            if q.status not in _WRONG:
                continue
            for line in q.feedback:
                text = slip(line)
                key = (q.id, normal_form(text))
                if text and key[1]:
                    learners[key].add(row.learner)
                    wordings[key][text] += 1
    found = [
        Misconception(qid, wordings[(qid, norm)].most_common(1)[0][0], tuple(sorted(who)))
        for (qid, norm), who in learners.items()
    ]
    return tuple(sorted(found, key=lambda m: (order.index(m.question), -len(m.learners), m.text)))


def stuck_learners(rows: Sequence[Row], pages: str = "feedback") -> tuple[Stuck, ...]:
    """Learners to reach out to: their notebook did not run, an error cost them points, or they attempted little."""
    stuck = []
    for row in rows:
        questions = row.report.questions if row.report else ()
        idle = sum(q.status == "not-attempted" for q in questions)
        if row.status != "graded":
            why = f"{row.status}: {row.reason}"
        elif questions and idle >= STUCK_NOT_ATTEMPTED * len(questions):
            why = f"{idle} of {len(questions)} questions not attempted"
        elif error_reason(row):
            why = f"lost points to an error: {error_reason(row)}"
        else:
            continue
        stuck.append(Stuck(row.learner, why, f"{pages}/{row.learner}.html"))
    return tuple(stuck)


def flagged_learners(rows: Sequence[Row], pages: str = "feedback") -> tuple[Flagged, ...]:
    """The learners whose notebook has an integrity flag: released to someone else, or right only for other numbers."""
    return tuple(Flagged(r.learner, f, f"{pages}/{r.learner}.html") for r in rows if (f := integrity_flags(r)))


def class_report(rows: Sequence[Row], similar: Sequence[Pair] = ()) -> ClassReport:
    figures = _question_figures(rows)
    return ClassReport(misconceptions(rows), stuck_learners(rows), tuple(similar), figures, flagged_learners(rows))


def _question_figures(rows: Sequence[Row]) -> tuple[QuestionCounts, ...]:
    """Per question, over the notebooks that ran: how many passed, failed, were not attempted."""
    counts: dict[str, Counter[str]] = {}
    for row in rows:
        if row.report is not None and row.status == "graded":
            for q in row.report.questions:
                counts.setdefault(q.id, Counter())[q.status] += 1
    return tuple(QuestionCounts(qid, tuple(c.items())) for qid, c in counts.items())


def report_json(report: ClassReport) -> str:
    """summary.json: the class report's figures for programs."""
    data = {
        "questions": [{"id": q.id, **dict(q.statuses)} for q in report.questions],
        "misconceptions": [{**asdict(m), "count": len(m.learners)} for m in report.misconceptions],
        "stuck": [asdict(s) for s in report.stuck],
        "integrity": [asdict(f) for f in report.flagged],
        "similar": [_pair_json(p, with_code=i < SIMILAR_SHOWN) for i, p in enumerate(report.similar)],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _pair_json(pair: Pair, with_code: bool) -> dict[str, object]:
    """A pair for summary.json: the cells only for the pairs the page shows side by side (a class of copies
    must not make the file hundreds of megabytes)."""
    data = {**asdict(pair), "similarity": round(pair.similarity, 3)}
    return data if with_code else {**data, "first_code": "", "second_code": ""}


def previous_similar(summary_json: Path) -> tuple[Pair, ...]:
    """The similar pairs a previous run wrote (a one-notebook run keeps them rather than compare one notebook)."""
    try:
        return tuple(Pair(**p) for p in json.loads(summary_json.read_text(encoding="utf-8")).get("similar", []))
    except (OSError, ValueError, TypeError):
        return ()


def integrity_html(report: ClassReport) -> str:
    """summary.html's integrity section, near its top: the notebooks flagged as released to someone else or
    right only for other numbers, and how many pairs of similar submissions follow. Never a score."""
    parts = ["<h2>Integrity: to look at before you import</h2>"]
    if report.flagged:
        parts.append(
            "<p>These notebooks were graded on their learner's own numbers; the flag says why the work may not be "
            "theirs. Its answers are left out of the misconceptions below.</p>"
            "<table><tr><th>learner</th><th>flag</th></tr>"
        )
        parts += [
            f'<tr><td><a href="{for_html(f.feedback)}">{for_html(f.learner)}</a></td>'
            f"<td>{'<br>'.join(inline_html(text) for text in f.flags)}</td></tr>"
            for f in report.flagged
        ]
        parts.append("</table>")
    else:
        parts.append("<p>No notebook was released to someone else or is right only for other numbers.</p>")
    if report.similar:
        parts.append(f"<p>{len(report.similar)} pair(s) of similar submissions: see the last section.</p>")
    return "\n".join(parts)


def report_html(report: ClassReport) -> str:
    """The class report's sections of summary.html (every text escaped; feedback's `code` rendered)."""
    parts = ["<h2>What to re-teach: misconceptions per question</h2>"]
    if report.misconceptions:
        parts.append(
            '<table><tr><th>question</th><th class="num">learners</th>'
            "<th>misconception, as the feedback named it</th></tr>"
        )
        for m in report.misconceptions:
            who = ", ".join(m.learners[:8]) + (", ..." if len(m.learners) > 8 else "")
            parts.append(
                f'<tr><td><code>{for_html(m.question)}</code></td><td class="num">{len(m.learners)}</td>'
                f"<td>{inline_html(m.text)}<br><small>{for_html(who)}</small></td></tr>"
            )
        parts.append("</table>")
    else:
        parts.append("<p>The feedback named no misconception.</p>")
    parts.append("<h2>Learners who are stuck</h2>")
    if report.stuck:
        parts.append("<table><tr><th>learner</th><th>why</th></tr>")
        parts += [
            f'<tr><td><a href="{for_html(s.feedback)}">{for_html(s.learner)}</a></td><td>{inline_html(s.why)}</td></tr>'
            for s in report.stuck
        ]
        parts.append("</table>")
    else:
        parts.append("<p>Nobody: every notebook ran, and every learner attempted most questions.</p>")
    parts.append(_similar_html(report.similar))
    return "\n".join(parts)


def _similar_html(pairs: Sequence[Pair]) -> str:
    parts = ["<h2>Similar submissions, to look at</h2>"]
    if not pairs:
        return (
            parts[0] + "\n<p>No two submissions' answer cells are near-identical once names, comments and layout "
            "are set aside.</p>"
        )
    parts.append(
        "<p>Answer cells that are near-identical once names, comments and layout are set aside, counting only "
        "code few learners share (the lesson's skeleton and what much of the class writes alike weigh little or "
        "nothing), most evidence first. "
        "This never changes a score: "
        "similar code can be honest (a short answer has few ways to be written); look before you act.</p>"
    )
    for p in pairs[:SIMILAR_SHOWN]:
        parts.append(
            f"<h3>{for_html(p.first)} and {for_html(p.second)}: {p.similarity:.0%} similar</h3>"
            f"<p>What they share that the class does not weighs {p.evidence:g} fingerprints only two learners "
            "have (the ranking).</p>"
            f"<table><tr><th>{for_html(p.first)}</th><th>{for_html(p.second)}</th></tr>"
            f"<tr><td><pre>{for_html(p.first_code)}</pre></td><td><pre>{for_html(p.second_code)}</pre></td></tr></table>"
        )
    if len(pairs) > SIMILAR_SHOWN:
        rest = ", ".join(f"{p.first} and {p.second} ({p.similarity:.0%})" for p in pairs[SIMILAR_SHOWN:])
        parts.append(f"<p>{len(pairs) - SIMILAR_SHOWN} more pairs: {for_html(rest)}.</p>")
    return "\n".join(parts)
