"""The course roster: one learner id per learner, the identity their numbers are drawn from, and who they are to
each LMS, so every lesson and every LMS tool agrees on whose numbers a notebook is graded on.

A roster is a CSV with a header line. ``learner`` (required) is the id a batch gives the learner (it names their
feedback page and their folder of released notebooks); ``identity`` (optional; else ``learner``) is what
:func:`grader.params.draw` draws their numbers from; ``name`` is for people. The LMS columns say who the learner
is in each LMS's download names (:data:`grader.batch.lms_table.LMS_PATTERNS`' ``roster_column``):

- ``canvas_id``: the Canvas user id (Canvas's download names end ``_<user id>_<submission id>_<file>``);
- ``blackboard_username``: the Blackboard username (``<assignment>_<username>_attempt_<time>``);
- ``moodle_name``: the full name Moodle writes (``<full name>_<participant id>_assignsubmission_...``). Moodle's
  participant id is one per (assignment, learner), so it is no identity: the name is what a roster maps.

``grade build --roster`` releases each learner's notebook on the numbers of their ``identity``; ``grade batch
--roster`` (and ``grade class --roster``) maps each download's learners to their roster row, grades them on
the same numbers and gives them the roster's learner id in every lesson. ``grade roster`` writes one from the
LMS's own roster export (:func:`from_lms_export`), so nobody predicts ids by hand.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grader.batch.lms_table import LMS_PATTERNS, LMSES, ROSTER_EXPORTS, lms_rule
from grader.batch.model import Identity
from grader.batch.names import safe_id, same_id
from grader.errors import UsageError

#: A learner id a roster may hold: a safe file name (it names the learner's folder) that a batch keeps as it is.
_SAFE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")
#: The roster's LMS columns, in LMS_PATTERNS' order.
LMS_COLUMNS: tuple[str, ...] = tuple(p.roster_column for p in LMS_PATTERNS if p.roster_column)
#: Every column a roster is written with.
COLUMNS: tuple[str, ...] = ("learner", "identity", "name", *LMS_COLUMNS)


@dataclass(frozen=True)
class RosterRow:
    learner: str
    """The learner id a batch knows them by (a flat folder's file stem, nbgrader's student id, or any LMS's
    download once the batch is given the roster)."""
    identity: str
    """What their numbers are drawn from: the ``identity`` column when given, else the learner id."""
    name: str = ""
    lms: tuple[tuple[str, str], ...] = ()
    """(roster column, value) for each LMS column the row fills."""

    def lms_value(self, column: str) -> str:
        return dict(self.lms).get(column, "")


def read_roster(path: Path) -> list[RosterRow]:
    """The roster's rows; :class:`UsageError` names the line and what to write when one is not usable."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"The roster {path} cannot be read ({err}); give a UTF-8 CSV file.") from None
    reader = csv.DictReader(text.splitlines())
    columns = [c.strip() for c in reader.fieldnames or []]
    if "learner" not in columns:
        raise UsageError(f"The roster {path} needs a header line with a `learner` column (and optionally `identity`).")
    rows: list[RosterRow] = []
    seen: set[str] = set()
    for line, raw in enumerate(reader, 2):
        row = {str(k).strip(): (v or "").strip() for k, v in raw.items() if k is not None}
        learner = row.get("learner", "")
        if not _SAFE_ID.match(learner) or safe_id(learner) != learner:
            raise UsageError(
                f"{path}, line {line}: the learner id {learner[:60]!r} must be letters, digits, '.', '_' or '-', "
                "as a batch knows them (it names the learner's folder, and a batch would draw another learner's "
                "numbers from what it makes of it); put an e-mail address in the `identity` column."
            )
        if same_id(learner) in seen:
            raise UsageError(f"{path}, line {line}: the learner id {learner!r} is listed twice.")
        seen.add(same_id(learner))
        lms = tuple((c, row[c]) for c in LMS_COLUMNS if row.get(c))
        rows.append(RosterRow(learner, row.get("identity", "") or learner, row.get("name", ""), lms))
    if not rows:
        raise UsageError(f"The roster {path} lists no learners.")
    for column in LMS_COLUMNS:
        if column == "moodle_name":
            continue  # two learners may share a name: the batch refuses to map either, and says so
        twice = sorted(v for v, n in Counter(_fold(r.lms_value(column)) for r in rows).items() if v and n > 1)
        if twice:
            raise UsageError(f"The roster {path} gives two learners the same {column} ({', '.join(twice[:5])}).")
    return rows


def _fold(text: str) -> str:
    """A name or id as two downloads may write it: composed, case folded, letters and digits only (Moodle turns
    ``_`` into a space and drops some punctuation from the names it writes)."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


def roster_csv(rows: Sequence[RosterRow]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([row.learner, row.identity, row.name, *(row.lms_value(c) for c in LMS_COLUMNS)])
    return buffer.getvalue()


# -- from the LMS's own roster export ---------------------------------------------------------------------


#: The LMS exports ``grade roster`` reads: each LMS whose row of the table can read its roster export.
EXPORTS = ROSTER_EXPORTS


def from_lms_export(path: Path, lms: str) -> tuple[list[RosterRow], tuple[str, ...]]:
    """A roster from an LMS's roster export, and what the teaching assistant should check.

    - ``canvas``: the gradebook's "Export Entire Gradebook" CSV (``Student`` as ``Last, First``, ``ID`` the Canvas
      user id, then ``SIS User ID``, ``SIS Login ID``, ``Section`` and the assignments; a ``Points Possible`` row).
      Each learner's numbers are drawn from their Canvas user id, which every Canvas download carries.
    - ``moodle``: the course's Participants page, "Download table data as" CSV (``First name``, ``Last name``,
      ``Email address``, and ``Username`` or ``ID number`` when the site shows them). Numbers are drawn from
      the username, else the ID number, else the e-mail address (the same in every assignment); the download is
      mapped by the full name (``First Last``), since its participant ids change from assignment to assignment.

    Learner ids are the name, surname first, transliterated (``wojcik_lukasz``); learners whose names make the
    same id each get their LMS identity added (``nguyen_an_5511``), whatever the order of the export.
    """
    if lms not in EXPORTS:
        raise UsageError(f"--lms {lms!r}: grade roster reads {' or '.join(EXPORTS)} roster exports.")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"{path} cannot be read ({err}); give the LMS's CSV export as it downloaded it.") from None
    records = list(csv.DictReader(text.splitlines()))
    people = next(rule.roster for rule in LMSES.values() if rule.export.name == lms and rule.roster)(path, records)
    if not people:
        raise UsageError(f"{path} lists no learners: is it {lms}'s roster export (see grade roster --help)?")
    counts = Counter(same_id(base) for base, *_ in people)
    rows = [
        RosterRow(
            base if counts[same_id(base)] == 1 else safe_id(f"{base}_{identity}").lower(), identity, name, lms_ids
        )
        for base, identity, name, lms_ids in people
    ]
    notes: tuple[str, ...] = ()
    for rule in LMS_PATTERNS:
        if not rule.per_assignment:
            continue  # a learner is their id there, not their full name
        column = rule.roster_column
        shared = sorted({n for n, k in Counter(_fold(r.lms_value(column)) for r in rows).items() if n and k > 1})
        if shared:
            names = [r.lms_value(column) for r in rows if _fold(r.lms_value(column)) in shared]
            notes += (
                f"{len(names)} learners share a full name ({', '.join(sorted(set(names))[:5])}): a {rule.name} "
                "download names them only by it, so grade batch --roster cannot tell their notebooks apart and grades "
                "neither on a guess; rename each one's notebook to their learner id (e.g. nguyen_an_jdoe.ipynb) in a "
                "folder of its own and grade it with --roster",
            )
    return rows, notes


# -- a batch's learners, mapped onto the roster ------------------------------------------------------------


@dataclass(frozen=True)
class Mapped:
    """What the roster made of one learner of a download."""

    learner: str
    """Their roster learner id (or, not on the roster, the batch's own id)."""
    identity: Identity
    """Their LMS identity, with the roster id (``roster``) when the roster maps them."""
    draws: str = ""
    """The identity their numbers are drawn from (the roster's), empty when the roster does not map them."""
    refused: str = ""
    """Why they cannot be given their numbers (two roster rows or two learners of the download fit): a reason."""


def map_learners(
    keys: Mapping[str, tuple[str, Identity]], roster: Sequence[RosterRow]
) -> tuple[dict[str, Mapped], str]:
    """Each download learner (``keys``: their layout key -> their batch learner id and LMS identity) mapped to
    their roster row, and a note on those it does not map (empty if none).

    A learner with an LMS identity is looked up in that LMS's column (:func:`grader.batch.lms_table.identity_value`:
    the id, or Moodle's full name); one without (a flat folder, nbgrader) by their learner id. Never a guess: a
    value two roster rows hold, or a row two learners of the download fit, maps nobody and says so."""
    index: dict[tuple[str, str], list[RosterRow]] = defaultdict(list)
    for row in roster:
        index[("learner", _fold(row.learner))].append(row)
        for column, value in row.lms:
            index[(column, _fold(value))].append(row)
    found: dict[str, RosterRow | str] = {}
    for key, (learner, who) in keys.items():
        rule = lms_rule(who.lms)
        lookup = (
            (rule.roster_column, _fold(who.name if rule.per_assignment else who.lms_id))
            if rule is not None and rule.roster_column
            else ("learner", _fold(learner))
        )
        fits = index.get(lookup, [])
        found[key] = fits[0] if len(fits) == 1 else f"{len(fits)} roster rows have {lookup[0]} {_shown(who, learner)!r}"
    claimed = Counter(f.learner for f in found.values() if isinstance(f, RosterRow))
    mapped: dict[str, Mapped] = {}
    missing: list[str] = []
    for key, (learner, who) in keys.items():
        fit = found[key]
        if isinstance(fit, RosterRow) and claimed[fit.learner] > 1:
            fit = f"{claimed[fit.learner]} learners of this download fit the roster's {fit.learner!r}"
        if isinstance(fit, RosterRow):
            mapped[key] = Mapped(fit.learner, replace(who, roster=fit.learner), fit.identity)
        elif fit.startswith("0 "):
            mapped[key] = Mapped(learner, who)
            missing.append(_shown(who, learner))
        else:
            mapped[key] = Mapped(learner, who, refused=f"the course roster cannot say whose notebook this is: {fit}")
    taken = {same_id(m.learner) for m in mapped.values() if m.draws}
    for key, m in mapped.items():  # an unmapped learner never takes a rostered learner's id
        if not m.draws and same_id(m.learner) in taken:
            mapped[key] = replace(m, learner=f"{m.learner}-not-on-roster")
    note = (
        f"{len(missing)} learner(s) are not on the course roster, so they keep the download's id and their numbers "
        f"are drawn from it: {', '.join(missing[:5])}; add them to the roster if they were released notebooks"
        if missing
        else ""
    )
    return mapped, note


def _shown(who: Identity, learner: str) -> str:
    return f"{who.lms} {who.name or who.lms_id}" if who.lms else learner


# -- the run-level check: is the class graded on the numbers it was released? --------------------------------

#: Fewer notebooks than this that carry their released numbers say nothing about the class (one swap is a flag).
CHECK_MIN_NOTEBOOKS = 3


def identities_said() -> str:
    """Which identity each LMS download gives a learner's numbers, in one sentence (the README says the same)."""
    parts = [f"a {p.name} download carries {p.carries} ({p.roster_column})" for p in LMS_PATTERNS]
    return "; ".join(parts) + "; a plain folder or nbgrader: the learner id"


def check_released(released: Sequence[tuple[str, object, object]], layout: str, rostered: bool) -> None:
    """Stop before grading when most of a class's notebooks show numbers other than the ones this batch would
    grade them on: the release drew them from another identity than the batch (a roster of e-mail addresses,
    Moodle's per-assignment ids), so every learner would lose Part 1 to a mismatch, not to a mistake.

    ``released``: (learner, the numbers their notebook was released with, the numbers the batch draws for them).
    One or two learners who swapped notebooks are each flagged on their own page; a majority is the run's fault.
    """
    wrong = sorted(learner for learner, shown, drawn in released if shown != drawn)
    if len(released) < CHECK_MIN_NOTEBOOKS or 2 * len(wrong) <= len(released):
        return
    fix = (
        "check that the roster's `identity` column is the one `grade build --roster` released them with"
        if rostered
        else "give this batch the roster the notebooks were released with: grade batch ... --roster roster.csv "
        "(its canvas_id, blackboard_username or moodle_name column says who each learner of the download is)"
    )
    raise UsageError(
        f"{len(wrong)} of the {len(released)} notebooks that carry their released numbers ({', '.join(wrong[:5])}"
        f"{', ...' if len(wrong) > 5 else ''}) would be graded on other numbers than they were released: the "
        f"release drew them from another identity than this {layout} gives ({identities_said()}). Nothing was "
        f"graded or written; {fix}."
    )
