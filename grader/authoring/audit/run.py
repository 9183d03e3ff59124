"""``audit_lesson``: grade every mutant of a lesson's solution functions and sort them into killed and survived.

The recipe: read the audit file -> for each function question, take the solution's function, make the
lesson's own slips and cosmic-ray's mutants of it -> grade them all, plus the unchanged solution as a control,
in one batch -> a mutant that still gets full marks on its question survived.
"""

from __future__ import annotations

import ast
import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.authoring.audit.mutants import Mutant, diff, function_source, generate_mutants, mutant_id
from grader.authoring.audit.spec import AUDIT_FILE, AuditSpec, Equivalent, Slip, read_spec
from grader.authoring.variants import Variant, grade_variants
from grader.errors import LessonError
from grader.model import KINDS, Lesson, Params
from grader.params import describe, spread
from grader.read import read_submission

if TYPE_CHECKING:
    from grader.batch.progress import Progress

#: The control variant: the solution with its functions defined again, unchanged, in the last cell, as every
#: mutant is; it must get full marks, or a mutant's low score would prove nothing about the suites.
_CONTROL = "solution"


@dataclass(frozen=True)
class Survivor:
    """A mutant that got full marks; ``reason`` is the audit file's, when the author has shown it equivalent."""

    mutant: Mutant
    reason: str | None = None


@dataclass(frozen=True)
class Kill:
    """A mutant the suites caught, and what its question's feedback told the 'learner' (for authors to read)."""

    mutant: Mutant
    score: float
    feedback: tuple[str, ...]


@dataclass(frozen=True)
class FunctionAudit:
    """One function question: its mutants, which were killed, and which survived."""

    function: str
    kills: tuple[Kill, ...]
    survivors: tuple[Survivor, ...]
    uncompilable: int
    unchanged: int
    slips: int
    """How many of the graded mutants are the lesson's own slips (the rest are cosmic-ray's)."""
    unaudited: str | None = None
    """Why no mutant was judged: the unchanged solution itself does not get full marks (its feedback)."""

    @property
    def graded(self) -> int:
        return len(self.kills) + len(self.survivors)

    @property
    def killed(self) -> int:
        return len(self.kills)

    @property
    def equivalent(self) -> int:
        return sum(1 for s in self.survivors if s.reason is not None)

    @property
    def unexplained(self) -> tuple[Survivor, ...]:
        return tuple(s for s in self.survivors if s.reason is None)

    @property
    def score(self) -> float:
        """Killed mutants out of the non-equivalent ones (1.0 when there are none)."""
        counted = self.graded - self.equivalent
        return self.killed / counted if counted else 1.0


@dataclass(frozen=True)
class StaleEntry:
    """An ``[[equivalent]]`` entry that explains nothing: no such mutant now, or the suites kill it."""

    entry: Equivalent
    why: str


@dataclass(frozen=True)
class AuditReport:
    lesson: str
    suites: str
    """The hidden suites audited, and a hash of their files: the score is theirs."""
    functions: tuple[FunctionAudit, ...]
    stale: tuple[StaleEntry, ...]
    seconds: float
    on_numbers: tuple[tuple[str, str | None], ...] = ()
    """For a lesson with learner parameters: each set of numbers of :func:`grader.params.spread` past the page's,
    and why the solution built on it does not get full marks (None: it does). The mutants are graded on the
    page's numbers: they are of function questions, which the lesson's numbers do not reach."""

    @property
    def unexplained(self) -> tuple[Survivor, ...]:
        return tuple(s for f in self.functions for s in f.unexplained)

    @property
    def score(self) -> float:
        counted = sum(f.graded - f.equivalent for f in self.functions)
        return sum(f.killed for f in self.functions) / counted if counted else 1.0

    @property
    def ok(self) -> bool:
        """Every function audited, no survivor the lesson has not explained, and the solution right on every set of
        numbers: ``grade audit``'s exit status."""
        return (
            not self.unexplained
            and not any(f.unaudited for f in self.functions)
            and not any(why for _, why in self.on_numbers)
        )


@dataclass(frozen=True)
class _Plan:
    function: str
    source: str
    mutants: tuple[Mutant, ...]
    uncompilable: int
    unchanged: int
    slips: int


@dataclass(frozen=True)
class AuditPlan:
    """What an audit grades, before grading: each function's mutants, the solution as the control (and on each
    further set of numbers), as the variants of one batch. Made apart from the grading so that a caller can grade
    them in a larger batch of its own (the lesson gates grade a lesson's corpus in the same one)."""

    spec: AuditSpec
    plans: tuple[_Plan, ...]
    controls: tuple[Variant, ...]
    numbers: tuple[Params, ...]
    variants: tuple[Variant, ...]


def plan_audit(lesson: Lesson) -> AuditPlan:
    """The mutants and controls :func:`audit_lesson` grades (cosmic-ray's and the audit file's)."""
    spec = read_spec(lesson)
    cells = read_submission(lesson.solution).cells
    plans = tuple(_plan(q.id, function_source(cells, q.id), spec) for q in lesson.questions if KINDS[q.kind].audited)
    control = Variant(_CONTROL, "\n\n".join(p.source for p in plans) or "pass")
    numbers = tuple(spread(lesson)[1:]) if lesson.params else ()
    controls = tuple(Variant(f"{_CONTROL}@{k}", control.code, n) for k, n in enumerate(numbers, 1))
    mutants = tuple(
        Variant(_variant_name(m), m.code, questions=frozenset({m.function})) for p in plans for m in p.mutants
    )
    return AuditPlan(spec, plans, controls, numbers, (control, *controls, *mutants))


def judge_audit(lesson: Lesson, plan: AuditPlan, rows: Mapping[str, dict[str, Any]], seconds: float) -> AuditReport:
    """The audit's verdicts from the graded rows of ``plan.variants`` (each variant's name to its result row)."""
    on_numbers = tuple((describe(n), _not_full(rows[c.name])) for c, n in zip(plan.controls, plan.numbers, strict=True))
    reasons = {(e.function, e.mutant): e.reason for e in plan.spec.equivalents}
    functions = tuple(_judge(p, rows, reasons) for p in plan.plans)
    return AuditReport(
        lesson=lesson.id,
        suites=f"{lesson.suites} ({_suites_hash(lesson.suites)})",
        functions=functions,
        stale=_stale(plan.spec, plan.plans, functions),
        seconds=seconds,
        on_numbers=on_numbers,
    )


def audit_lesson(
    lesson: Lesson,
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> AuditReport:
    """Mutation-test the lesson's hidden suites (``lesson.suites``): every function question's mutants, in one batch."""
    started = time.monotonic()
    plan = plan_audit(lesson)
    rows = grade_variants(lesson, plan.variants, lessons_root=lesson.root.parent, jobs=jobs, progress=progress)
    return judge_audit(lesson, plan, rows, time.monotonic() - started)


def _not_full(row: dict[str, Any]) -> str | None:
    """Why the solution does not get full marks on these numbers (the questions it lost), or None."""
    lost = [str(q["id"]) for q in row.get("questions", ()) if float(q["score"]) < float(q["max_score"])]
    if not lost and row.get("status", "graded") == "graded":
        return None
    return f"the solution loses points on {', '.join(lost) or row.get('status')}"


def _plan(function: str, source: str, spec: AuditSpec) -> _Plan:
    slips = tuple(_slip_mutant(s, source) for s in spec.slips if s.function == function)
    repeated = sorted({m.origin for m in slips if sum(other.id == m.id for other in slips) > 1})
    if repeated:
        raise LessonError(f"In {AUDIT_FILE}, {repeated} make the same mutant of {function}; keep one.")
    library = generate_mutants(function, source, frozenset(m.id for m in slips))
    return _Plan(function, source, slips + library.mutants, library.uncompilable, library.unchanged, len(slips))


def _slip_mutant(slip: Slip, source: str) -> Mutant:
    """The lesson's own slip as a mutant; a slip that no longer applies is the author's to fix."""
    where = f"{AUDIT_FILE}: mutant {slip.name!r} of {slip.function}"
    if slip.find and source.count(slip.find) != 1:
        raise LessonError(
            f"{where}: `find` text {slip.find!r} occurs {source.count(slip.find)} times in the solution's function; "
            "it must name exactly one place (make it longer, or update it to the current solution)."
        )
    code = source.replace(slip.find, slip.replace, 1) if slip.find else slip.code
    try:
        compile(code, where, "exec")
    except (SyntaxError, ValueError) as err:
        raise LessonError(f"{where} is not valid Python ({err}).") from None
    if not any(isinstance(node, ast.FunctionDef) and node.name == slip.function for node in ast.parse(code).body):
        raise LessonError(f"{where}: its `code` does not define {slip.function}() at the top level.")
    key = mutant_id(code)
    if key == mutant_id(source):
        raise LessonError(f"{where} changes nothing that Python sees; make it a real change.")
    return Mutant(slip.function, key, f"{AUDIT_FILE}: {slip.name}", code, diff(source, code, slip.function, key))


def _variant_name(mutant: Mutant) -> str:
    return f"{mutant.function}.{mutant.id}"


def _question(row: dict[str, Any], qid: str) -> dict[str, Any] | None:
    return next((q for q in row.get("questions", ()) if q.get("id") == qid), None)


def _full_marks(row: dict[str, Any], qid: str) -> bool:
    question = _question(row, qid)
    return question is not None and question.get("status") == "passed" and question["score"] >= question["max_score"]


def _control_failure(row: dict[str, Any], function: str) -> str | None:
    """The unchanged solution must get full marks on a function, or its every mutant is 'killed' for nothing."""
    if _full_marks(row, function):
        return None
    question = _question(row, function)
    said = " ".join(question.get("feedback", ())) if question else ""
    return (
        f"the solution itself does not get full marks on it ({said or row.get('status')}); "
        "fix the suites or the solution"
    )


def _judge(plan: _Plan, rows: Mapping[str, dict[str, Any]], reasons: dict[tuple[str, str], str]) -> FunctionAudit:
    failure = _control_failure(rows[_CONTROL], plan.function)
    if failure:
        return FunctionAudit(plan.function, (), (), plan.uncompilable, plan.unchanged, plan.slips, failure)
    kills: list[Kill] = []
    survivors: list[Survivor] = []
    for mutant in plan.mutants:
        row = rows[_variant_name(mutant)]
        if _full_marks(row, mutant.function):
            survivors.append(Survivor(mutant, reasons.get((mutant.function, mutant.id))))
        else:
            question = _question(row, mutant.function) or {}
            feedback = tuple(question.get("feedback", ())) or tuple(row.get("errors", ()))[-1:]
            kills.append(Kill(mutant, float(question.get("score", 0.0)), feedback))
    return FunctionAudit(
        function=plan.function,
        kills=tuple(kills),
        survivors=tuple(survivors),
        uncompilable=plan.uncompilable,
        unchanged=plan.unchanged,
        slips=plan.slips,
    )


def _stale(spec: AuditSpec, plans: Sequence[_Plan], functions: Sequence[FunctionAudit]) -> tuple[StaleEntry, ...]:
    made = {(m.function, m.id) for p in plans for m in p.mutants}
    survived = {(s.mutant.function, s.mutant.id) for f in functions for s in f.survivors}
    unaudited = {f.function for f in functions if f.unaudited}
    stale: list[StaleEntry] = []
    for entry in spec.equivalents:
        key = (entry.function, entry.mutant)
        if entry.function in unaudited:
            continue
        if key not in made:
            stale.append(
                StaleEntry(entry, "no such mutant any more (the solution or the operators changed): remove the entry")
            )
        elif key not in survived:
            stale.append(
                StaleEntry(entry, "the suites kill it, so it is not equivalent (or a suite rejects correct behaviour)")
            )
    return tuple(stale)


def _suites_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]
