"""What a grade depends on besides the notebook, defined once: when any of it changes, a grade is stale.

A score depends on the notebook, the lesson (its suites, ``lesson.toml`` and solution:
:func:`grader.lessons.suites_fingerprint`), the grader's own code (:func:`grader.codehash.source_hash`) and each
option or limit that can change a score, and the versions of the packages a notebook may import where it is graded
(:func:`importable_packages`: installing numpy makes the grades graded without it stale). Each field of
:class:`grader.config.Limits`, :class:`grader.config.WorkerMode` and :class:`grader.pipeline.GradeOptions`
declares whether it can (its metadata's :data:`grader.config.AFFECTS_SCORE`), and :func:`fingerprint` takes
every one that can.

Two places ask: a batch's gradebook stores the fingerprint beside each grade and regrades a learner when it
differs (:mod:`grader.batch.regrade` says why), and ``grade``'s warm daemon is found under a name that
includes the code's hash (:func:`grader.serve.client.identity`), so changed code is never answered by a
daemon running the old one. Cheap: a batch's fingerprint reads the packages' metadata once per run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import Field, fields, is_dataclass
from typing import TYPE_CHECKING, Any

from grader.codehash import source_hash
from grader.config import AFFECTS_SCORE, LEARNER_MODULES

if TYPE_CHECKING:
    from grader.pipeline import GradeOptions

#: The fields of :class:`GradeOptions` that change a score only through what is loaded from them, the lesson,
#: whose content the fingerprint's ``lesson`` entry hashes (the same suites from another folder grade alike).
THROUGH_LESSON = ("lesson", "suites", "lessons_root")


def affects_score(field: Field[Any]) -> bool:
    """Whether the option ``field`` can change a score; KeyError for a field that does not say (a test checks)."""
    return bool(field.metadata[AFFECTS_SCORE])


def fingerprint(options: GradeOptions, lesson_hash: str, isolation: str) -> dict[str, str]:
    """Everything but the notebook that a grade under ``options`` depends on, by name, as text.

    ``lesson_hash``: the lesson's :func:`~grader.lessons.suites_fingerprint`; ``isolation``: the level actually
    used (``WorkerMode.isolation`` None means ``$GRADER_ISOLATION`` or ``auto``, resolved where it runs).
    """
    found = {"lesson": lesson_hash, "grader": source_hash()}
    found.update(_scored(options, {"isolation": isolation}))
    found[PACKAGES] = importable_packages()
    return found


#: The fingerprint's entry for the packages a notebook may import where it is graded (:func:`importable_packages`).
PACKAGES = "packages"


def importable_packages(provided: Mapping[str, str] = LEARNER_MODULES) -> str:
    """``matplotlib absent, numpy 2.4.6, ...``: the version of each distribution the course's learner install
    gives notebooks to import, as installed where grading runs (``absent`` when it is not). A right notebook that
    imports numpy is not graded where numpy is missing, and a notebook's results may differ from one numpy to
    the next, so installing, removing or upgrading one makes the grades graded before stale."""
    from importlib import metadata

    shown = []
    for name in sorted(set(provided.values())):
        try:
            shown.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            shown.append(f"{name} absent")
    return ", ".join(shown)


def _scored(options: object, resolved: dict[str, str]) -> dict[str, str]:
    """The score-changing fields of a dataclass of options, nested ones flattened into it."""
    found: dict[str, str] = {}
    for field in fields(options):  # type: ignore[arg-type]
        if not affects_score(field) or field.name in THROUGH_LESSON:
            continue
        value = getattr(options, field.name)
        if is_dataclass(value):
            found.update(_scored(value, resolved))
        else:
            found[field.name] = resolved.get(field.name) or shown(value)
    return found


def shown(value: object) -> str:
    """An option's value as the gradebook stores it and a teaching assistant reads it (``30``, ``on``)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (int, float)):
        return f"{value:g}"
    return "default" if value is None else str(value)
