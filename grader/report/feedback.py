"""Per-learner feedback, as a self-contained HTML page and as Markdown, in one of three modes.

``learner`` (the default) is what ``grade`` shows the learner, the lesson's reveal policy applied: safe to
send. ``full`` is the teaching assistant's copy, each question's teaching feedback as grading wrote it
(what was called, what came back, what was expected, the right letter), and says so at its top, so a page
forwarded by mistake announces itself. ``summary`` is for courses that keep their hidden tests hidden:
each question shows its status and score, a generic sentence and the lesson's hint, and never a test's
inputs.

Every text goes through :mod:`grader.text` (``for_html``, ``for_markdown``): a learner's words are shown as
written, never as a tag, a link or Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.batch.model import Row, integrity_flags
from grader.config import FeedbackMode
from grader.model import Lesson, Params, Question, QuestionResult
from grader.params import render
from grader.report.markup import inline_html
from grader.report.page import html_page
from grader.text import for_html, for_markdown, num

_GENERIC = {
    "passed": "Correct: every hidden check passed.",
    "partial": "Partly right: some hidden checks passed and others did not.",
    "failed": "Not right yet: the hidden checks found a mistake.",
    "not-attempted": "Not attempted yet.",
    "missing": "Your notebook does not define this name: keep the names exactly as given and run every answer cell.",
    "error": "This answer could not be checked: the code did not finish (look for a loop that never ends, or a crash).",
}
_NOT_CHECKED = "Not checked: see the note at the top."
#: The first line of every ``full`` page: it shows what a learner must not see before the answers are released.
STAFF_COPY = "Teaching assistant's copy: shows expected values and right answers; do not send to learners."


@dataclass(frozen=True)
class QuestionView:
    """One question as the learner will read it."""

    id: str
    title: str
    score: float
    max_score: float
    status: str
    lines: tuple[str, ...]
    hint: str


@dataclass(frozen=True)
class FeedbackView:
    learner: str
    heading: str
    score: float
    max_score: float | None
    note: str
    questions: tuple[QuestionView, ...]
    errors: tuple[str, ...]
    staff_copy: bool = False
    """A ``full`` page: it opens with :data:`STAFF_COPY`."""
    late: str = ""
    """What the late policy made of the submission (:func:`late_line`); ``score`` is then after its penalty."""
    integrity: tuple[str, ...] = ()
    """Its integrity flags (:func:`grader.batch.model.integrity_flags`), shown at the top of the page."""


def feedback_view(row: Row, lesson: Lesson | None, mode: FeedbackMode) -> FeedbackView:
    """What a learner may see of their row, in ``mode``."""
    report = row.report
    heading = lesson.title if lesson else (row.lesson or "")
    if report is None:
        note = f"Your file could not be graded: {row.reason}"
        return FeedbackView(row.learner, heading, 0.0, None, note, (), (), staff_copy=mode == "full")
    note = {
        # The reason is a whole sentence that starts with "Your notebook ...": say it, then what it meant.
        "timed-out": f"{row.reason} It did not finish running, so no answer could be checked.",
        "crashed": f"{row.reason} It stopped while it ran, so no answer could be checked.",
        "unreadable": f"Your file could not be graded: {row.reason}",
    }.get(row.status, "")
    known = {d.id: d for d in lesson.questions} if lesson else {}
    ran = row.status == "graded"
    flags = integrity_flags(row)
    using = {q for p in lesson.params for q in p.questions} if lesson and flags else set()
    questions = tuple(
        _question_view(q, known.get(q.id), mode, ran, report.params, flagged=q.id in using) for q in report.questions
    )
    errors = tuple(e for e in report.errors if e != row.reason and e not in flags)
    staff = mode == "full"
    late = late_line(row)
    return FeedbackView(
        row.learner, heading, row.final_score, report.max_score, note, questions, errors, staff, late, flags
    )


def late_line(row: Row) -> str:
    """The late policy's verdict in a sentence, for the learner's page and the summary; empty if on time."""
    late = row.lateness
    if late is None or late.days <= 0:
        return ""
    when = f"{late.days} day{'s' if late.days != 1 else ''} late" if row.submitted else "late"
    cost = (
        f"; the late penalty ({late.rule}) took {num(late.points_off)} of your {num(row.score)} points"
        if late.points_off
        else ""
    )
    return f"Handed in {when} (due {late.due}, {late.how}){cost}."


#: A question that uses the learner's numbers, on a flagged notebook: its slips are the flag's, said once at the top.
_SEE_FLAG = "Not right for your own numbers: see the note at the top."


def _question_view(
    q: QuestionResult,
    definition: Question | None,
    mode: FeedbackMode,
    ran: bool,
    params: Params = (),
    flagged: bool = False,
) -> QuestionView:
    """A question's lines: the teaching assistant's feedback (full), what ``grade`` shows the learner, with the
    lesson's reveal policy applied (learner), or a generic sentence (summary); nothing to add if it never ran.

    The title and hint are the lesson's, their ``{field}`` filled with the numbers the report was graded on (the
    learner's own, recomputed), as self-check's ``hint`` fills them; a name that is not one stays as written."""
    if not ran:
        lines: tuple[str, ...] = (_NOT_CHECKED,)
    elif mode == "full":
        lines = q.staff
    elif mode == "learner" and flagged and q.status in ("failed", "partial"):
        lines = (_SEE_FLAG,)  # not "I can't tell which slip" under each: the numbers are someone else's
    elif mode == "learner":
        lines = q.feedback
    else:
        lines = (_GENERIC.get(q.status, ""),)
    hint = render(definition.hint, params) if definition and ran and q.status != "passed" else ""
    title = render(definition.title, params) if definition else ""
    return QuestionView(q.id, title, q.score, q.max_score, q.status, lines, hint)


def feedback_html(view: FeedbackView) -> str:
    parts = [f'<p class="staff"><strong>{for_html(STAFF_COPY)}</strong></p>'] if view.staff_copy else []
    parts.append(f"<h1>Feedback for {for_html(view.learner)}</h1>")
    score = f"Score: {num(view.score)} / {num(view.max_score)}" if view.max_score is not None else "Not graded"
    parts.append(
        f"<p>{for_html(view.heading)}{' &middot; ' if view.heading else ''}<strong>{for_html(score)}</strong></p>"
    )
    if view.note:
        parts.append(f'<p class="note">{inline_html(view.note)}</p>')
    if view.integrity:
        parts.append("<h2>Whose work this is</h2>")
        parts += [f'<p class="note">{inline_html(flag)}</p>' for flag in view.integrity]
    if view.late:
        parts.append(f'<p class="note">{for_html(view.late)}</p>')
    if view.questions:
        parts.append('<table>\n<tr><th>question</th><th class="num">score</th><th>status</th><th>feedback</th></tr>')
        for q in view.questions:
            title = f"<br><small>{for_html(q.title)}</small>" if q.title else ""
            lines = "".join(f"<li>{inline_html(line)}</li>" for line in q.lines if line)
            hint = f'<p class="hint">Hint: {inline_html(q.hint)}</p>' if q.hint else ""
            parts.append(
                f"<tr><td><code>{for_html(q.id)}</code>{title}</td>"
                f'<td class="num">{num(q.score)} / {num(q.max_score)}</td>'
                f'<td class="{for_html(q.status)}">{for_html(q.status.replace("-", " "))}</td>'
                f'<td><ul class="feedback">{lines}</ul>{hint}</td></tr>'
            )
        parts.append("</table>")
    if view.errors:
        parts.append(
            "<h2>While your notebook ran</h2>\n<ul>"
            + "".join(f"<li>{inline_html(e)}</li>" for e in view.errors)
            + "</ul>"
        )
    return html_page(f"Feedback for {view.learner}", "\n".join(parts))


def feedback_markdown(view: FeedbackView) -> str:
    out = [f"> **{for_markdown(STAFF_COPY)}**", ""] if view.staff_copy else []
    out += [f"# Feedback for {for_markdown(view.learner)}", ""]
    score = f"Score: **{num(view.score)} / {num(view.max_score)}**" if view.max_score is not None else "**Not graded**"
    out += [f"{for_markdown(view.heading)}. {score}" if view.heading else score, ""]
    if view.note:
        out += [f"> {for_markdown(view.note)}", ""]
    if view.integrity:
        out += ["## Whose work this is", ""] + [f"> {for_markdown(flag)}" for flag in view.integrity] + [""]
    if view.late:
        out += [f"> {for_markdown(view.late)}", ""]
    for q in view.questions:
        out += [f"## {for_markdown(q.id)}: {num(q.score)} / {num(q.max_score)} ({q.status.replace('-', ' ')})", ""]
        if q.title:
            out += [f"*{for_markdown(q.title)}*", ""]
        out += [f"- {for_markdown(line)}" for line in q.lines if line]
        if q.hint:
            out += ["", f"Hint: {for_markdown(q.hint)}"]
        out.append("")
    if view.errors:
        out += ["## While your notebook ran", ""] + [f"- {for_markdown(e)}" for e in view.errors] + [""]
    return "\n".join(out)
