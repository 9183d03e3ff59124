"""Mutation testing of a lesson's hidden suites: ``grade audit LESSON``.

How strong are the hidden tests? Change the solution's functions in small ways (cosmic-ray's operators, plus
the slips the lesson's ``audit.toml`` lists), grade every changed notebook through the normal batch path, and
report each change that still gets full marks. Modules: ``mutants`` (make them), ``spec`` (the audit file),
``run`` (grade and judge), ``report`` (print).
"""

from __future__ import annotations

from grader.authoring.audit.mutants import Mutant
from grader.authoring.audit.run import AuditReport, FunctionAudit, Kill, StaleEntry, Survivor, audit_lesson

__all__ = ["AuditReport", "FunctionAudit", "Kill", "Mutant", "StaleEntry", "Survivor", "audit_lesson"]
