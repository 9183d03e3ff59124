"""The teaching assistant's live view (``GET /ta``): what the class is stuck on now, rendered on the server.

Per lesson and question, from the checks the service stored: how many learners checked it and how many got
it (full marks in some check); the commonest misconceptions now (each learner's latest wrong verdict, its
feedback's slip grouped as the class report groups them, :func:`grader.report.class_report.normal_form`); and
who is stuck (checked it :data:`STUCK_CHECKS` times or more and never got it); each lesson's hand-ins; and each
learner's latest check's notebook-level lines (cells that raised, time-outs, the integrity flags grading adds).
The page is plain HTML with inline CSS and no script (:func:`grader.report.page.html_page`), every text
escaped; it shows the staff lines, with expected values, so it is served to a TA token only.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from grader.model import Lesson
from grader.report.class_report import normal_form, slip
from grader.report.page import html_page
from grader.service.store import CheckRow, Store
from grader.text import for_html

#: A learner who checked a question this many times without getting it is listed as stuck on it.
STUCK_CHECKS = 3
#: Misconceptions shown per question.
SHOWN = 3


@dataclass(frozen=True)
class QuestionNow:
    id: str
    attempted: int
    got_it: int
    misconceptions: tuple[tuple[str, int], ...]
    """(the slip in its commonest wording, learners whose latest verdict names it), most learners first."""
    stuck: tuple[tuple[str, int], ...]
    """(learner, checks so far) of those stuck on it."""


def question_now(qid: str, rows: Sequence[CheckRow]) -> QuestionNow:
    """One question's figures from its stored verdicts (oldest first)."""
    latest: dict[str, CheckRow] = {}
    checks: Counter[str] = Counter()
    got = set()
    for row in rows:
        latest[row.learner] = row
        checks[row.learner] += 1
        if row.max_score > 0 and row.score >= row.max_score:
            got.add(row.learner)
    learners: dict[str, set[str]] = defaultdict(set)
    wordings: dict[str, Counter[str]] = defaultdict(Counter)
    for learner, row in latest.items():
        if row.status not in ("failed", "partial"):
            continue
        for line in row.staff_feedback:
            text = slip(line)  # as the class report counts: the sentences that name the slip, if any
            key = normal_form(text)
            if text and key:
                learners[key].add(learner)
                wordings[key][text] += 1
    common = sorted(((wordings[k].most_common(1)[0][0], len(who)) for k, who in learners.items()), key=lambda m: -m[1])
    stuck = sorted((who, n) for who, n in checks.items() if n >= STUCK_CHECKS and who not in got)
    return QuestionNow(qid, len(latest), len(got), tuple(common[:SHOWN]), tuple(stuck))


def ta_page(lessons: Sequence[Lesson], store: Store, now: str) -> str:
    """The whole page, from what the store holds now."""
    by_question: dict[tuple[str, str], list[CheckRow]] = defaultdict(list)
    for row in store.checks():
        by_question[(row.lesson, row.question)].append(row)
    handed: dict[str, dict[str, str]] = defaultdict(dict)
    for receipt in store.all_receipts():
        handed[receipt["lesson"]][receipt["learner"]] = receipt["late"]  # the last attempt's, as they come in order
    parts = [f"<h1>The class now</h1>\n<p>As of {for_html(now)} (the service's clock). Reload for newer figures.</p>"]
    for lesson in lessons:
        parts.append(
            _lesson_html(
                lesson,
                [question_now(q.id, by_question[(lesson.id, q.id)]) for q in lesson.questions],
                handed[lesson.id],
            )
        )
    parts.append(_notes_html(store.latest_notes()))
    return html_page("The class now", "\n".join(parts))


def _lesson_html(lesson: Lesson, questions: Sequence[QuestionNow], handed: dict[str, str]) -> str:
    title = f"<h2>{for_html(lesson.title)} <small>({for_html(lesson.id)})</small></h2>\n"
    if not handed and not any(q.attempted for q in questions):
        return title + "<p>No checks or hand-ins yet.</p>"
    late = sum(1 for text in handed.values() if text and text != "on time")
    rows = []
    for q in questions:
        common = "".join(f"<li>{n} &times; {for_html(text)}</li>" for text, n in q.misconceptions)
        stuck = ", ".join(f"{for_html(who)} ({n} checks)" for who, n in q.stuck)
        rows.append(
            f"<tr><td><code>{for_html(q.id)}</code></td><td class=num>{q.attempted}</td>"
            f"<td class=num>{q.got_it}</td><td><ul class=feedback>{common}</ul></td><td>{stuck}</td></tr>"
        )
    return (
        title + f"<p>{len(handed)} learners handed in{f', {late} late' if late else ''}.</p>\n"
        "<table><tr><th>question</th><th class=num>checked it</th><th class=num>got it</th>"
        "<th>commonest misconceptions now (learners)</th><th>stuck</th></tr>\n" + "\n".join(rows) + "\n</table>"
    )


def _notes_html(notes: dict[tuple[str, str], tuple[str, ...]]) -> str:
    """Each learner's latest check's notebook-level lines: a cell that raised, a time-out, and the integrity
    flags grading adds (answers right for another learner's numbers). Near-identical code across learners is
    a batch's to find: run ``grade batch`` on ``grade serve export``'s folder."""
    items = "".join(
        f"<li><b>{for_html(learner)}</b> ({for_html(lesson)}): {for_html(line)}</li>"
        for (lesson, learner), lines in sorted(notes.items())
        for line in lines
    )
    found = f"<ul class=feedback>{items}</ul>" if items else "<p>None now.</p>"
    return (
        "<h2>Notes and integrity flags on the latest checks</h2>\n" + found + "\n<p class=hint>Near-identical code "
        "across learners: run <code>grade batch</code> on <code>grade serve export</code>'s folder.</p>"
    )


def login_page(sentence: str) -> str:
    """The form a browser gets at ``/ta`` without a TA token: the token goes in a POST body, never in a URL."""
    body = (
        f"<h1>The class now</h1>\n<p class=note>{for_html(sentence)}</p>\n"
        '<form method="post" action="/ta"><label>Teaching assistant\'s token (<code>grade serve token --ta</code>): '
        '<input name="token" type="password" size="60" autocomplete="off"></label> <button>Open</button></form>'
    )
    return html_page("The class now: sign in", body)
