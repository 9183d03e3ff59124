"""Who submitted a file: learner ids from file names, including the names LMS downloads give files.

An LMS "download all submissions" archive encodes the learner in each file name. The patterns are data
(:data:`LMS_PATTERNS`); a folder is read with one pattern only if most notebooks in it match, so a plain
folder whose names happen to contain underscores keeps its file stems as learner ids. A name in an LMS
download that does not follow the pattern is never guessed: it is reported by name and keeps no LMS identity.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from grader.batch.model import Identity

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class LmsName:
    """What an LMS file name says: the learner id, who they are to the LMS, and whether it marked the submission
    late."""

    learner: str
    late: bool = False
    identity: Identity = Identity()


@dataclass(frozen=True)
class LmsPattern:
    name: str
    regex: re.Pattern[str]
    """Named groups: ``learner`` (the display name; and optionally ``id``, joined to it in the learner id) and
    ``late``."""
    roster_column: str = ""
    """The course roster's column that holds what this LMS's names say of a learner (:mod:`grader.batch.roster`)."""
    carries: str = ""
    """What of the learner the names carry, said to a teaching assistant (``the Canvas user id``)."""
    per_assignment: bool = False
    """Whether the id in the names is one per (assignment, learner), as Moodle's participant id is: then it is no
    identity of the learner (it draws no numbers a release could have used, and joins no lessons); a roster
    maps the display name the names carry instead."""

    def parse(self, stem: str) -> LmsName | None:
        match = self.regex.fullmatch(stem)
        if match is None:
            return None
        groups = match.groupdict()
        learner = "_".join(part for part in (groups["learner"], groups.get("id")) if part)
        identity = Identity(self.name, groups.get("id") or groups["learner"], groups["learner"])
        return LmsName(safe_id(learner), late=bool(groups.get("late")), identity=identity)

    def parse_all(self, stems: Sequence[str], assignments: Sequence[str] = ()) -> list[LmsName | None]:
        """What each of a download's names says (None: it does not follow this LMS's pattern)."""
        return [self.parse(stem) for stem in stems]


#: Blackboard's ``<assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>[_<file name>]``. The head ends at the
#: *first* ``_attempt_<time>``: the file name after it is the learner's own and may hold another (``x_attempt_
#: 2024-02-28-09-00-00_``), which must not change whose it is (nor, in :mod:`grader.batch.late`, when it came).
_ATTEMPT = r"attempt_\d{4}(?:-\d{2}){5}"
_BLACKBOARD = re.compile(rf"(?P<head>.+?)_{_ATTEMPT}(?:_.*)?", re.DOTALL)


@dataclass(frozen=True)
class BlackboardPattern(LmsPattern):
    """Blackboard joins the assignment's name and the username with ``_``, and either may hold ``_``.

    The part before ``_attempt_<timestamp>`` is ``<assignment>_<username>``, and every file of one download
    has the same assignment. So the assignment is a prefix (ending before a ``_``) of every file's head:
    the known assignment name (the lesson's title or id, or ``--export-name``) when one fits, else the one
    prefix all the heads share. Where several prefixes remain (one file, or usernames that all begin
    alike), the name is ambiguous, and is never guessed: :meth:`parse_all` gives None for it.
    """

    def parse(self, stem: str) -> LmsName | None:
        return self.parse_all([stem])[0]

    def parse_all(self, stems: Sequence[str], assignments: Sequence[str] = ()) -> list[LmsName | None]:
        heads = [m.group("head") if (m := self.regex.fullmatch(stem)) else None for stem in stems]
        options = [_prefixes(head) if head is not None else set() for head in heads]
        shared = set.intersection(*(o for o in options if o)) if any(options) else set()
        known = {_fold(name) for name in assignments if name}
        out: list[LmsName | None] = []
        for head, prefixes in zip(heads, options, strict=True):
            named = {p for p in prefixes if _fold(p) in known}
            choice = named or (prefixes & shared if shared else prefixes)
            if head is None or len(choice) != 1:
                out.append(None)
                continue
            username = head[len(next(iter(choice))) + 1 :]
            out.append(LmsName(safe_id(username), identity=Identity(self.name, username, username)))
        return out


def _prefixes(head: str) -> set[str]:
    """Every way to cut ``head`` at a ``_`` into a non-empty assignment and a non-empty username."""
    return {head[:i] for i, char in enumerate(head) if char == "_" and 0 < i < len(head) - 1}


#: Moodle's marker between a participant's name and id and the file's own name.
_MOODLE_MARKER = re.compile(r"_\d+_assignsubmission_")


@dataclass(frozen=True)
class MoodlePattern(LmsPattern):
    """Moodle writes ``<full name>_<participant id>_assignsubmission_file_<file name>``, and the learner may
    choose both the full name (a profile field) and the file's name: a name that holds the marker itself
    (``Eve_12345_assignsubmission_file_x``) would read as participant 12345. A name with the marker more than
    once does not say which participant it is, so it does not follow the pattern: it is graded under its file
    name, reported, and left out of the import, never guessed onto someone."""

    def parse(self, stem: str) -> LmsName | None:
        if len(_MOODLE_MARKER.findall(stem)) > 1:
            return None
        return super().parse(stem)


def _fold(name: str) -> str:
    """An assignment name as compared with a file name's: case, spaces and underscores alike."""
    return unicodedata.normalize("NFC", name).casefold().replace(" ", "_")


LMS_PATTERNS: tuple[LmsPattern, ...] = (
    # Canvas: lovelaceada_12345_67890_decode.ipynb, lovelaceada_LATE_12345_67890_decode-1.ipynb; the name is
    # the learner's sortable name with punctuation and spaces dropped, but not underscores ("Lee, Min_Jun" is
    # leemin_jun_104349_9000404_request.ipynb), so the name is whatever comes before the first
    # ``_[LATE_]<user id>_<submission id>_``: read from the numeric ids, never from the name's own characters
    # (never a name with Moodle's own marker in it: ``X_0_1_assignsubmission_file_`` is Moodle's; nor one with
    # Blackboard's attempt marker: ``Lab_1_0_0_attempt_<time>_x`` is Blackboard's, whose usernames hold digits)
    LmsPattern(
        "Canvas",
        roster_column="canvas_id",
        carries="the Canvas user id",
        regex=re.compile(
            rf"(?!.*_assignsubmission_)(?!.*_{_ATTEMPT})(?P<learner>.+?)_(?P<late>LATE_)?(?P<id>\d+)_\d+_.+",
            re.DOTALL,
        ),
    ),
    # Moodle: Ada Lovelace_12345_assignsubmission_file_decode.ipynb
    MoodlePattern(
        "Moodle",
        re.compile(r"(?P<learner>.+?)_(?P<id>\d+)_assignsubmission_file_.+", re.DOTALL),
        roster_column="moodle_name",
        carries="the full name and a participant id that changes from assignment to assignment",
        per_assignment=True,
    ),
    # Blackboard: Decode_alovelace_attempt_2024-03-01-09-30-00_decode.ipynb, Decode_j_nunez_attempt_...
    BlackboardPattern("Blackboard", _BLACKBOARD, roster_column="blackboard_username", carries="the username"),
)


#: LMS downloads with a folder per learner, read from the folder's name (the files inside keep their names).
LMS_FOLDER_PATTERNS: tuple[LmsPattern, ...] = (
    # Moodle, "download submissions in folders" (its default): Ada Lovelace_12345_assignsubmission_file_/decode.ipynb,
    # beside a folder per other submission plugin (Ada Lovelace_12345_assignsubmission_onlinetext_/)
    LmsPattern(
        "Moodle",
        re.compile(r"(?P<learner>.+?)_(?P<id>\d+)_assignsubmission_[a-z]+_?", re.DOTALL),
        roster_column="moodle_name",
        per_assignment=True,
    ),
)


def lms_rule(lms: str) -> LmsPattern | None:
    """The pattern (and so the identity rule) of the LMS named ``lms`` (``Canvas``, ``Moodle``...), or None."""
    return next((p for p in LMS_PATTERNS if p.name == lms), None)


def identity_value(identity: Identity) -> str:
    """What of ``identity`` names the learner across assignments: the LMS id, or for an LMS whose id is per
    assignment (Moodle) the display name; empty when it has no LMS."""
    rule = lms_rule(identity.lms)
    if rule is None:
        return ""
    return identity.name if rule.per_assignment else identity.lms_id


def lms_names(
    stems: Sequence[str], patterns: tuple[LmsPattern, ...] = LMS_PATTERNS, assignments: Sequence[str] = ()
) -> tuple[str, list[LmsName | None]] | None:
    """The first LMS pattern that more than half of the stems (or folder names) match, with what each says:
    None for a name that does not match (it is reported by name and keeps no LMS identity, never guessed);
    ``None`` overall if no pattern fits most of them (a plain folder). ``assignments``: the names the
    assignment may have in the download (Blackboard's file names begin with it)."""
    if not stems:
        return None
    for pattern in patterns:
        parsed = pattern.parse_all(stems, assignments)
        if 2 * sum(p is not None for p in parsed) > len(stems):
            return pattern.name, parsed
    return None


#: The longest learner id :func:`safe_id` makes (a file name, with ``.html`` and a suffix that tells two apart).
MAX_ID = 100
_SAFE = re.compile(rf"[A-Za-z0-9_][A-Za-z0-9._-]{{0,{MAX_ID + 70}}}")  # with the tag layouts may add


#: Latin letters NFKD leaves whole (no combining accent to drop), spelled as their languages write them in ASCII.
_SPELLED = str.maketrans(
    {
        "ł": "l",
        "Ł": "L",
        "ø": "o",
        "Ø": "O",
        "ß": "ss",
        "ẞ": "SS",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "Ð": "D",
        "þ": "th",
        "Þ": "Th",
        "ı": "i",
        "ħ": "h",
        "Ħ": "H",
        "ŀ": "l",
        "Ŀ": "L",
        "ŧ": "t",
        "Ŧ": "T",
        "ƒ": "f",
        "ĸ": "k",
        "ŋ": "ng",
        "Ŋ": "NG",
    }
)


def safe_id(text: str) -> str:
    """A learner id that is also a safe file name: letters, digits, ``.``, ``_``, ``-``; never hidden, never
    read as a command-line option (no leading ``-``), never empty, at most :data:`MAX_ID` characters.

    Letters are transliterated, never dropped: accents go (``josé`` is ``jose``), and the Latin letters that
    Unicode does not decompose into a letter and an accent are spelled out (``Łukasz`` is ``Lukasz``, ``Øre``
    ``Ore``: :data:`_SPELLED`). A short table, not a transliteration library: ids only need to stay readable
    for the Latin-script names of a class roster, and this table is the whole of what NFKD leaves; two names that
    clean alike are told apart by :mod:`grader.batch.layouts`."""
    unaccented = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    unaccented = unaccented.translate(_SPELLED)
    return _UNSAFE.sub("_", unaccented).lstrip("-").strip("._")[:MAX_ID].strip("._-") or "learner"


def same_id(learner: str) -> str:
    """What two learner ids must differ in to be two learners: their composed form (NFC) and case folded, so
    ``Ada`` is ``ada``: a case-insensitive disk keeps one of ``Ada.html`` and ``ada.html``, and an LMS that ignores
    case merges their rows. A batch never gives two learners ids that are the same here (:mod:`grader.batch.layouts`),
    and a chapter matches ids on it (:func:`grader.batch.chapter.match_key`)."""
    return unicodedata.normalize("NFC", learner).casefold()


def is_safe_id(text: object) -> bool:
    """Whether ``text`` is a learner id this grader could have made: a safe file name of its own (checked on
    every id read back from a gradebook before it names a file)."""
    return isinstance(text, str) and _SAFE.fullmatch(text) is not None  # no "/", so "a..b" is only a name
