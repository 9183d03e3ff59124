"""A lesson's audit file, ``exercises/<lesson>/audit.toml``: its known slips and its equivalent mutants.

A mutation library changes operators and constants; it does not think of a learner's unit slips (a factor of
1000, bits for bytes, an inverse, an off-by-one, a constant return). The author lists those as extra mutants,
each a find-and-replace on the solution's function or a whole replacement cell::

    [[mutant]]
    function = "decode_step_seconds"
    name = "milliseconds, not seconds"
    find = "param_bytes / bandwidth"
    replace = "param_bytes / bandwidth * 1000"

    [[equivalent]]
    function = "kv_decode_time"
    mutant = "0123456789"     # the id `grade audit` prints
    reason = "one line a reviewer can check"

A survivor listed under ``[[equivalent]]`` is explained; an entry that names no mutant any more is stale.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.errors import LessonError
from grader.model import KINDS, Lesson

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: The audit file's name, in the lesson's folder.
AUDIT_FILE = "audit.toml"


@dataclass(frozen=True)
class Slip:
    """A hand-written mutant: ``find`` replaced by ``replace`` in the function's source, or a whole ``code`` cell."""

    function: str
    name: str
    find: str = ""
    replace: str = ""
    code: str = ""


@dataclass(frozen=True)
class Equivalent:
    """A mutant the author has shown to behave like the solution on every valid input."""

    function: str
    mutant: str
    reason: str


@dataclass(frozen=True)
class AuditSpec:
    slips: tuple[Slip, ...] = ()
    equivalents: tuple[Equivalent, ...] = ()


def read_spec(lesson: Lesson) -> AuditSpec:
    """The lesson's audit file, checked against its function questions; none at all is an empty spec."""
    path = lesson.root / AUDIT_FILE
    if not path.is_file():
        return AuditSpec()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        spec = AuditSpec(
            tuple(_slip(entry) for entry in data.get("mutant", ())),
            tuple(
                Equivalent(str(e["function"]), str(e["mutant"]), str(e["reason"]).strip())
                for e in data.get("equivalent", ())
            ),
        )
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise LessonError(
            f"The audit file {path} cannot be read ({err!r}); see the README, 'Auditing a lesson's suites'."
        ) from None
    _check(spec, lesson, path)
    return spec


def _slip(entry: dict[str, Any]) -> Slip:
    slip = Slip(
        function=str(entry["function"]),
        name=str(entry["name"]),
        find=str(entry.get("find", "")),
        replace=str(entry.get("replace", "")),
        code=str(entry.get("code", "")),
    )
    if bool(slip.code) == bool(slip.find):
        raise ValueError(f"mutant {slip.name!r} needs either `find` and `replace`, or `code`")
    return slip


def _check(spec: AuditSpec, lesson: Lesson, path: Path) -> None:
    functions = {q.id for q in lesson.questions if KINDS[q.kind].audited}
    named = [s.function for s in spec.slips] + [e.function for e in spec.equivalents]
    unknown = sorted(set(named) - functions)
    if unknown:
        raise LessonError(f"In {path}, {unknown} are not function questions of lesson {lesson.id!r}.")
    unreasoned = [e.mutant for e in spec.equivalents if not e.reason]
    if unreasoned:
        raise LessonError(f"In {path}, equivalent mutants {unreasoned} need a `reason` a reviewer can check.")
    names = [(s.function, s.name) for s in spec.slips]
    if len(set(names)) != len(names):
        raise LessonError(f"In {path}, two mutants of one function share a name; give each a distinct `name`.")
