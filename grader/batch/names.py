"""Who submitted a file: learner ids from file names, including the names LMS downloads give files.

An LMS "download all submissions" archive encodes the learner in each file name. The patterns are data
(:class:`LmsPattern`, one per LMS in :data:`grader.batch.lms_table.LMSES`, whose :func:`lms_names` reads a
download with them); a folder is read with one pattern only if most notebooks in it match, so a plain
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
