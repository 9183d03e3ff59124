"""What ``grade audit`` prints: a line per function, each unexplained survivor with its diff, stale entries."""

from __future__ import annotations

from typing import Any

from grader.authoring.audit.run import AuditReport, FunctionAudit, Survivor


def _counts(f: FunctionAudit) -> str:
    if f.unaudited:
        return f"{f.function}: NOT AUDITED: {f.unaudited}."
    dropped = (
        f"; dropped: {f.uncompilable} not valid Python, {f.unchanged} unchanged or repeated"
        if f.uncompilable or f.unchanged
        else ""
    )
    return (
        f"{f.function}: {f.graded} mutants ({f.slips} of the lesson's slips), {f.killed} killed, "
        f"{len(f.survivors) - f.equivalent} survived, {f.equivalent} equivalent; score {f.score:.0%}{dropped}"
    )


def _survivor(s: Survivor) -> str:
    return f"SURVIVED {s.mutant.function} mutant {s.mutant.id} ({s.mutant.origin}): full marks, yet\n{s.mutant.diff}"


def format_text(report: AuditReport) -> str:
    lines = [f"Audit of lesson {report.lesson!r}, suites {report.suites}:"]
    lines += ["  " + _counts(f) for f in report.functions]
    total = sum(f.graded for f in report.functions)
    lines.append(
        f"Mutation score {report.score:.1%}: {sum(f.killed for f in report.functions)} of "
        f"{total - sum(f.equivalent for f in report.functions)} non-equivalent mutants killed, "
        f"{len(report.unexplained)} unexplained survivor(s), in {report.seconds:.1f} s."
    )
    lines += [f"  the solution on {numbers}: " + (why or "full marks") for numbers, why in report.on_numbers]
    for s in report.unexplained:
        lines += ["", _survivor(s).rstrip("\n")]
    explained = [s for f in report.functions for s in f.survivors if s.reason is not None]
    if explained:
        lines.append("")
    lines += [f"EQUIVALENT {s.mutant.function} mutant {s.mutant.id} ({s.mutant.origin}): {s.reason}" for s in explained]
    for stale in report.stale:
        lines += ["", f"STALE equivalent entry: {stale.entry.function} mutant {stale.entry.mutant}: {stale.why}."]
    if report.unexplained:
        lines += [
            "",
            "Each survivor gets full marks though it is wrong: strengthen the suites until they fail it, or, if it "
            "behaves like the solution on every valid input, record it in audit.toml as [[equivalent]] with a reason.",
        ]
    return "\n".join(lines) + "\n"


def as_json(report: AuditReport) -> dict[str, Any]:
    """The report as plain data (``grade audit --json``)."""

    def survivor(s: Survivor) -> dict[str, Any]:
        m = s.mutant
        return {"id": m.id, "origin": m.origin, "diff": m.diff, "code": m.code, "equivalent": s.reason}

    return {
        "lesson": report.lesson,
        "suites": report.suites,
        "score": report.score,
        "ok": report.ok,
        "seconds": report.seconds,
        "functions": [
            {
                "function": f.function,
                "graded": f.graded,
                "slips": f.slips,
                "killed": f.killed,
                "survived": len(f.unexplained),
                "equivalent": f.equivalent,
                "score": f.score,
                "dropped_uncompilable": f.uncompilable,
                "dropped_unchanged": f.unchanged,
                "survivors": [survivor(s) for s in f.survivors],
                "kills": [
                    {
                        "id": k.mutant.id,
                        "origin": k.mutant.origin,
                        "score": k.score,
                        "feedback": list(k.feedback),
                        "diff": k.mutant.diff,
                    }
                    for k in f.kills
                ],
                "unaudited": f.unaudited,
            }
            for f in report.functions
        ],
        "on_numbers": [{"numbers": numbers, "problem": why} for numbers, why in report.on_numbers],
        "stale": [
            {"function": s.entry.function, "mutant": s.entry.mutant, "reason": s.entry.reason, "why": s.why}
            for s in report.stale
        ],
    }
