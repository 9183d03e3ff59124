"""Who submitted a file: learner ids from file names, including the names LMS downloads give files.

An LMS "download all submissions" archive encodes the learner in each file name. The patterns are data
(:data:`LMS_PATTERNS`); a folder is read with one pattern only if every notebook in it matches, so a plain
folder whose names happen to contain underscores keeps its file stems as learner ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Identity:
    """Who a learner is to their LMS, kept apart from the learner id (which must be a unique, safe file name).

    ``name`` is the display name the file name carries (Canvas: ``lovelaceada``; Moodle: ``Ada Lovelace``),
    ``lms_id`` the LMS's own key for the learner (Canvas user id, Moodle participant id, Blackboard username);
    an LMS import file is keyed on ``lms_id``, never on the display name.
    """

    lms: str = ""
    """``Canvas``, ``Moodle``, ``Blackboard``; empty when the file name named no LMS (a flat folder, nbgrader)."""
    lms_id: str = ""
    name: str = ""


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

    def parse(self, stem: str) -> LmsName | None:
        match = self.regex.fullmatch(stem)
        if match is None:
            return None
        groups = match.groupdict()
        learner = "_".join(part for part in (groups["learner"], groups.get("id")) if part)
        identity = Identity(self.name, groups.get("id") or groups["learner"], groups["learner"])
        return LmsName(safe_id(learner), late=bool(groups.get("late")), identity=identity)


LMS_PATTERNS: tuple[LmsPattern, ...] = (
    # Canvas: lovelaceada_12345_67890_decode.ipynb, lovelaceada_LATE_12345_67890_decode-1.ipynb
    LmsPattern("Canvas", re.compile(r"(?P<learner>[A-Za-z0-9-]+)_(?P<late>LATE_)?(?P<id>\d+)_\d+_.+")),
    # Moodle: Ada Lovelace_12345_assignsubmission_file_decode.ipynb
    LmsPattern("Moodle", re.compile(r"(?P<learner>.+?)_(?P<id>\d+)_assignsubmission_file_.+")),
    # Blackboard: Decode_alovelace_attempt_2024-03-01-09-30-00_decode.ipynb
    LmsPattern("Blackboard", re.compile(r".+?_(?P<learner>[^_]+)_attempt_\d{4}(?:-\d{2}){5}(?:_.+)?")),
)


#: LMS downloads with a folder per learner, read from the folder's name (the files inside keep their names).
LMS_FOLDER_PATTERNS: tuple[LmsPattern, ...] = (
    # Moodle, "download submissions in folders" (its default): Ada Lovelace_12345_assignsubmission_file_/decode.ipynb,
    # beside a folder per other submission plugin (Ada Lovelace_12345_assignsubmission_onlinetext_/)
    LmsPattern("Moodle", re.compile(r"(?P<learner>.+?)_(?P<id>\d+)_assignsubmission_[a-z]+_?")),
)


def lms_names(stems: list[str], patterns: tuple[LmsPattern, ...] = LMS_PATTERNS) -> tuple[str, list[LmsName]] | None:
    """The first LMS pattern that every stem (or folder name) matches, with what each says; ``None`` if none
    fits all."""
    if not stems:
        return None
    for pattern in patterns:
        parsed = [pattern.parse(stem) for stem in stems]
        if all(p is not None for p in parsed):
            return pattern.name, [p for p in parsed if p is not None]
    return None


def safe_id(text: str) -> str:
    """A learner id that is also a safe file name: letters, digits, ``.``, ``_``, ``-``; never hidden or empty."""
    cleaned = _UNSAFE.sub("_", text).strip("._") or "learner"
    return cleaned[:100]
