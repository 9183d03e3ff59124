"""The class at a glance for the instructor: ``summary.html``.

Per lesson: a histogram of every score, then, over the notebooks that ran (so timeouts and unreadable
files do not hide what learners got wrong), each question's pass rate, mean and most common failure,
which is what to re-teach. Then the submissions that could not be graded normally, with their reasons.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence

from grader.batch.model import STATUSES, Row
from grader.model import Lesson
from grader.report.charts import bars_svg, histogram_svg
from grader.report.markup import inline_html
from grader.report.page import html_page
from grader.text import for_html, num

_WRONG = ("failed", "partial", "error", "missing")


def summary_html(
    rows: Sequence[Row], lessons: Mapping[str, Lesson], class_report: str = "", integrity: str = ""
) -> str:
    """The page; ``class_report``: the sections of :mod:`grader.report.class_report` (already-escaped HTML), and
    ``integrity`` its integrity section, shown right after the counts: a flag buried under "stuck" is missed."""
    counts = Counter(r.status for r in rows)
    parts = [
        "<h1>Batch summary</h1>",
        f"<p>{len(rows)} submissions: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES) + ".</p>",
        integrity,
    ]
    for lesson_id in sorted({r.lesson for r in rows if r.lesson}):
        lesson = lessons.get(lesson_id)
        parts.append(_lesson_section(lesson_id, lesson, [r for r in rows if r.lesson == lesson_id]))
    parts.append(class_report)
    parts.append(_late_section(rows))
    trouble = [r for r in rows if r.status != "graded"]
    if trouble:
        parts.append("<h2>Not graded normally</h2>\n<table><tr><th>learner</th><th>status</th><th>reason</th></tr>")
        parts += [
            f"<tr><td>{for_html(r.learner)}</td><td>{for_html(r.status)}</td><td>{for_html(r.reason)}</td></tr>"
            for r in trouble
        ]
        parts.append("</table>")
    return html_page("Batch summary", "\n".join(parts))


def _lesson_section(lesson_id: str, lesson: Lesson | None, rows: list[Row]) -> str:
    reports = [r.report for r in rows if r.report is not None]
    scores = [r.final_score for r in rows if r.report is not None]  # after any late penalty, as the imports hold
    penalised = any(r.lateness is not None and r.lateness.points_off for r in rows)
    top = reports[0].max_score if reports else 0.0
    title = lesson.title if lesson else lesson_id
    parts = [
        f"<h2>{for_html(title)}</h2>",
        f"<p>{len(reports)} submissions (those that did not run count as 0"
        f"{'; after the late penalty' if penalised else ''}): "
        f"mean {num(round(statistics.fmean(scores), 2))} / "
        f"{num(top)}, median {num(statistics.median(scores))} / {num(top)}.</p>"
        if scores
        else "<p>No submissions.</p>",
        "<h3>Scores</h3>",
        histogram_svg([s / top if top else 0.0 for s in scores]),
    ]
    ran = [rep for rep in reports if rep.status == "graded"]
    question_ids = [q.id for q in ran[0].questions] if ran else []
    stats = []
    for qid in question_ids:
        results = [q for rep in ran for q in rep.questions if q.id == qid]
        passed = sum(q.status == "passed" for q in results) / len(results)
        mean = statistics.fmean(q.score for q in results)
        idle = sum(q.status == "not-attempted" for q in results)
        wrong = Counter(q.staff[0] for q in results if q.status in _WRONG and q.staff)
        stats.append((qid, passed, mean, results[0].max_score, idle, wrong.most_common(1)))
    parts += [
        f"<h3>Pass rate per question, over the {len(ran)} notebooks that ran</h3>",
        bars_svg([(qid, passed) for qid, passed, *_ in stats]),
    ]
    parts.append(
        '<h3>Per question</h3>\n<table><tr><th>question</th><th class="num">passed</th><th class="num">mean</th>'
        '<th class="num">not attempted</th><th>most common failure</th></tr>'
    )
    for qid, passed, mean, max_score, idle, common in stats:
        failure = (
            f"{inline_html(common[0][0])} <small>({common[0][1]} learner{'s' if common[0][1] != 1 else ''})</small>"
            if common
            else ""
        )
        parts.append(
            f'<tr><td><code>{for_html(qid)}</code></td><td class="num">{passed:.0%}</td>'
            f'<td class="num">{num(round(mean, 2))} / {num(max_score)}</td>'
            f'<td class="num">{idle}</td><td>{failure}</td></tr>'
        )
    parts.append("</table>")
    return "\n".join(parts)


def _late_section(rows: Sequence[Row]) -> str:
    """Every submission the late policy found late: when it was due and handed in, the raw score, what the
    penalty took and the score the exports hold."""
    late = [r for r in rows if r.lateness is not None and r.lateness.days > 0]
    if not late:
        return ""
    parts = [
        f"<h2>Late ({len(late)})</h2>\n<table><tr><th>learner</th><th>due</th><th>handed in</th>"
        '<th class="num">days late</th><th class="num">raw score</th><th class="num">penalty</th>'
        '<th class="num">score</th></tr>'
    ]
    for row in late:
        assert row.lateness is not None
        graded = row.status == "graded"
        parts.append(
            f"<tr><td>{for_html(row.learner)}</td><td>{for_html(row.lateness.due)}</td>"
            f'<td>{for_html(row.lateness.how)}</td><td class="num">{row.lateness.days}</td>'
            f'<td class="num">{num(row.score) if graded else for_html(row.status)}</td>'
            f'<td class="num">{num(row.lateness.points_off)} ({for_html(row.lateness.rule)})</td>'
            f'<td class="num">{num(row.final_score) if graded else ""}</td></tr>'
        )
    parts.append("</table>")
    return "\n".join(parts)
