"""Decide whom a rerun grades again, and say why: only what changed is regraded.

A learner's stored grade is kept while their notebook, the lesson and every grading option that can change a
score (:func:`grader.batch.fingerprint.grading_fingerprint`, from :mod:`grader.staleness`) are what they were
when it was graded. A rerun with another ``--timeout`` regrades everyone graded under the old one and says so
("3 regraded because --timeout changed from 30 to 60 s"), as it does after a fix to the grader ("... because the
grader's code changed") or another limit ("... the max_call_depth limit changed from 8 to 16"); ``--only``
regrades the learners named and keeps everyone else as is; ``--regrade`` regrades everyone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping

from grader.batch.gradebook import Gradebook, Latest
from grader.errors import UsageError
from grader.staleness import PACKAGES


def describe_change(option: str, before: str, after: str) -> str:
    """One changed option as a teaching assistant reads it."""
    if option == "timeout":
        return f"--timeout changed from {before} to {after} s"
    if option == "kernel":
        return f"--kernel changed from {before} to {after}"
    if option == "isolation":
        return f"the isolation level changed from {before} to {after}"
    if option == "lesson":
        return "the lesson (its hidden suites, lesson.toml or solution) changed"
    if option == PACKAGES:
        changes = sorted(set(after.split(", ")) - set(before.split(", ")))
        return f"the packages notebooks may import changed where they are graded (now {', '.join(changes)})"
    if option == "grader":  # a hash (an older gradebook stored the version): which one says nothing to a person
        return "the grader's code changed"
    return f"the {option} limit changed from {before} to {after}"


def why_regrade(latest: Latest | None, digest: str, suites_hash: str, now: Mapping[str, str]) -> str | None:
    """Why a learner must be graded again (None: their stored grade is still valid)."""
    if latest is None:
        return "new"
    if latest.status == "crashed":  # a crash may be the machine's fault: always retried
        return "their grading crashed last time"
    if latest.digest != digest:
        return "their notebook changed"
    if latest.suites_hash != suites_hash:  # also for gradings stored before options were
        return describe_change("lesson", "", "")
    changed = [
        describe_change(k, latest.options[k], v)
        for k, v in now.items()
        if k in latest.options and latest.options[k] != v
    ]
    return " and ".join(changed) or None


class RegradePlan:
    """Whom this run grades: asked once per submission, then :meth:`notes` says how many were regraded and why."""

    def __init__(
        self, book: Gradebook, fingerprint: Mapping[str, str], everyone: str | None = None, only: Collection[str] = ()
    ) -> None:
        """``everyone``: why every learner is regraded (``--regrade``), or None; ``only``: the learners ``--only``
        names."""
        self.book = book
        self.fingerprint = dict(fingerprint)
        self.everyone = everyone
        self.only = frozenset(only)
        self.reasons: Counter[str] = Counter()

    def check_names(self, learners: Collection[str]) -> None:
        """Refuse ``--only`` names that are not learners of this batch, listing the ones that are."""
        unknown = sorted(self.only - set(learners))
        if unknown:
            known = ", ".join(sorted(learners)[:10]) + (", ..." if len(learners) > 10 else "")
            raise UsageError(f"--only names {', '.join(unknown)}, not among this batch's learners ({known}).")

    def wants(self, learner: str, digest: str, suites_hash: str) -> bool:
        """Whether to grade ``learner`` now (recording why, for :meth:`notes`)."""
        if self.only:
            reason: str | None = "--only named them" if learner in self.only else None
        elif self.everyone is not None:
            reason = self.everyone
        else:
            reason = why_regrade(self.book.latest_grading(learner), digest, suites_hash, self.fingerprint)
        if reason is not None and reason != "new":
            self.reasons[reason] += 1
        return reason is not None

    def notes(self) -> tuple[str, ...]:
        """``3 regraded because --timeout changed from 30 to 60 s``, one line per reason, most frequent first."""
        return tuple(f"{n} regraded because {why}" for why, n in self.reasons.most_common())
