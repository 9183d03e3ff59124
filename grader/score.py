"""Step 4, score: turn test outcomes into points per question and a total.

Points come only from positive evidence: a test earns its share of its question's points only if pytest
reported it passed. Within a question, points are split among its tests by weight (partial credit). A
question that passed with the reference standing in for a wrong earlier answer, or a by-hand answer credited
for following from the learner's own wrong earlier one, keeps its points (one bug costs once) and says so in its
feedback.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import replace

from grader.model import Execution, Lesson, Question, QuestionResult, Report, Submission, TestOutcome
from grader.reveal import learner_view, staff_view

MAX_FEEDBACK_LINES = 3
MAX_PARSED_CHARS = 20_000


def score(lesson: Lesson, submission: Submission, execution: Execution, outcomes: tuple[TestOutcome, ...]) -> Report:
    """Score a graded notebook. With ``execution.failure`` set, every question gets 0 and that reason."""
    results = tuple(
        _failed_run(q, execution.failure)
        if execution.failure
        else score_question(q, [o for o in outcomes if o.question == q.id])
        for q in lesson.questions
    )
    results = note_stand_ins(results, outcomes)
    results = tuple(_note_raised_cell(r, submission, execution) for r in results)
    errors = tuple(
        f"Cell {code_cell_number(submission, e.index)} raised {e.ename}: {e.evalue} (`{e.preview}`); the cells after "
        "it still ran."
        for e in execution.cell_errors
    )
    if execution.more_cell_errors:
        errors += (
            f"{execution.more_cell_errors} more cells raised errors, not listed here; fix the ones above first.",
        )
    errors += (execution.failure,) if execution.failure else ()
    return Report(
        lesson=lesson.id,
        path=str(submission.path),
        score=_round(sum(r.score for r in results)),
        max_score=_round(lesson.max_score),
        questions=results,
        errors=errors,
        isolation=execution.isolation,
        digest=submission.digest,
    )


def _note_raised_cell(result: QuestionResult, submission: Submission, execution: Execution) -> QuestionResult:
    """Say why an answer is missing when the cell that defines it raised: "does not define" alone sends a
    learner looking for a renamed variable, when the fix is the error in that cell (a NameError on a name
    defined further down, a typo). Said only when a cell that raised is the one that assigns or defines the
    name: positive evidence, never a guess."""
    if result.status != "missing":
        return result
    sources = {cell.index: cell.source for cell in submission.cells}
    notes = tuple(
        f"Cell {code_cell_number(submission, e.index)}, which defines `{result.id}`"
        + (f" (`{e.preview}`)" if e.preview else "")  # Jupyter numbers no cell that has not run: show its start
        + f", raised {e.ename}: {e.evalue}; so `{result.id}` was never defined. Fix that error and run the cell "
        "again."
        for e in execution.cell_errors
        if _defines(sources.get(e.index, ""), result.id)
    )[:1]
    if not notes:
        return result
    staff = result.staff_feedback + notes if result.staff_feedback else ()
    return replace(result, feedback=result.feedback + notes, staff_feedback=staff)


def _defines(source: str, name: str) -> bool:
    """Whether a cell's top level assigns ``name`` or defines a function or class of that name.

    Only cells that raised are parsed, and none longer than :data:`MAX_PARSED_CHARS`: this runs on the trusted
    side, which has no memory limit, and an answer cell is a few lines."""
    if len(source) > MAX_PARSED_CHARS:
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AnnAssign, ast.AugAssign))
            else []
        )
        if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
            return True
    return False


def code_cell_number(submission: Submission, index: int) -> int:
    """Which code cell ``index`` (a position among all the notebook's cells) is, counting code cells only from 1.

    JupyterLab numbers no markdown cell: after Run All the code cell shows this number as [n], so a learner can
    find it; the position among all cells would point at the wrong one in a notebook with text.
    """
    return next((n for n, cell in enumerate(submission.cells, start=1) if cell.index == index), index + 1)


def _round(x: float) -> float:
    return round(x + 0.0, 4)


def _failed_run(question: Question, reason: str) -> QuestionResult:
    return QuestionResult(question.id, 0.0, question.points, "error", (reason,))


def score_question(question: Question, outcomes: list[TestOutcome]) -> QuestionResult:
    """Points and feedback for one question from its tests' outcomes.

    One source of sentences gives two views: the learner's (the answer left out unless the question's
    ``reveal`` says otherwise) and the teaching assistant's (everything), see :func:`grader.testing.withheld`.
    """
    if not outcomes:
        return QuestionResult(question.id, 0.0, question.points, "error", ("No hidden test graded this question.",))
    total = sum(o.weight for o in outcomes) or 1.0
    earned = sum(o.weight for o in outcomes if o.status == "passed")
    points = _round(question.points * earned / total)
    statuses = {o.status for o in outcomes}
    if statuses == {"passed"}:
        done = f"All {len(outcomes)} checks passed." if len(outcomes) > 1 else "The check passed."
        return QuestionResult(question.id, points, question.points, "passed", (done,))
    problems = [o for o in outcomes if o.status != "passed"]
    if earned == 0 and "not-attempted" in statuses:
        return QuestionResult(question.id, 0.0, question.points, "not-attempted", ("Not attempted yet.",))
    if earned > 0:
        status = "partial"
    elif statuses == {"missing"}:
        status = "missing"
    elif "error" in statuses:
        status = "error"
    else:
        status = "failed"
    lines = _feedback(problems)
    if status in ("partial", "failed"):
        lines += (_tally(question, outcomes, total),)
    learner = tuple(learner_view(line) if question.reveal == "never" else staff_view(line) for line in lines)
    staff = tuple(staff_view(line) for line in lines)
    return QuestionResult(question.id, points, question.points, status, learner, staff if staff != learner else ())  # type: ignore[arg-type]


def _tally(question: Question, outcomes: list[TestOutcome], total: float) -> str:
    """How many checks passed and what each was worth: '3 of 5 checks passed, each worth 0.8 points.'"""
    passed = sum(1 for o in outcomes if o.status == "passed")
    worths = sorted({_round(question.points * o.weight / total) for o in outcomes})
    if len(worths) == 1:
        worth = f"each worth {worths[0]:g} point{'' if worths[0] == 1 else 's'}"
    else:
        worth = f"worth {worths[0]:g} to {worths[-1]:g} points each"
    return f"{passed} of {len(outcomes)} check{'s' if len(outcomes) != 1 else ''} passed, {worth}."


def _feedback(problems: list[TestOutcome]) -> tuple[str, ...]:
    seen: list[str] = []
    for outcome in problems:
        if outcome.message and outcome.message not in seen:
            seen.append(outcome.message)
    return tuple(seen[:MAX_FEEDBACK_LINES])


_OWN_ANSWER = {
    "partial": "which is wrong",
    "failed": "which is wrong",
    "error": "which did not run to the end",
    "not-attempted": "which is not written yet",
    "missing": "which your notebook does not define",
}


def note_stand_ins(results: Sequence[QuestionResult], outcomes: Sequence[TestOutcome]) -> tuple[QuestionResult, ...]:
    """Add a note (never a change of score) to each question that earned points only with an earlier answer
    stood in for: its passing tests called the reference for an earlier question whose own answer did not pass,
    or credited a by-hand answer for following from the learner's own wrong earlier answer (carried forward).

    ``results`` must include those earlier questions; one that is not there is taken as passed (no note).
    """
    status = {r.id: r.status for r in results}
    noted = []
    for result in results:
        passing = [o for o in outcomes if o.question == result.id and o.status == "passed"]
        called = {n for o in passing for n in o.stood_in}
        carried = _carried_from({n for o in passing for n in o.carried}, outcomes)
        lead = "Passed" if result.status == "passed" else "Its passing checks ran"
        notes = tuple(
            f"{lead} with the reference `{n}` standing in for yours, {_OWN_ANSWER[status[n]]} (see {n})."
            for n in status
            if n in called and status[n] != "passed"
        )
        credited = "Credited" if result.status == "passed" else "Its passing checks were credited"
        notes += tuple(
            f"{credited} because it follows from your own `{n}`, which is marked wrong (see {n}): once `{n}` is "
            "fixed, work this answer again from it."
            for n in status
            if n in carried and status[n] != "passed"
        )
        staff = result.staff_feedback + notes if result.staff_feedback else ()
        noted.append(replace(result, feedback=result.feedback + notes, staff_feedback=staff) if notes else result)
    return tuple(noted)


def _carried_from(names: set[str], outcomes: Sequence[TestOutcome]) -> set[str]:
    """``names`` with each earlier answer that was itself credited for following from another replaced by that
    other, down the chain: tokens per second worked from a carried ms per token follows from the wrong GB."""
    found, todo = set[str](), list(names)
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        todo += [n for o in outcomes if o.question == name and o.status == "passed" for n in o.carried]
    return found
