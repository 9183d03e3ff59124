"""Unpack a submissions archive (.zip) safely, so a hostile archive cannot write outside a scratch folder.

Only ``.ipynb`` members are extracted. A member whose name is absolute, climbs out with ``..`` or is a
symbolic link is skipped and named in a note. Sizes are counted while copying (a zip header can lie), and
an archive that unpacks to more than the caps is refused as a whole: that is a zip bomb, not a class.
"""

from __future__ import annotations

import os
import stat
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.errors import UsageError
from grader.read import MAX_NOTEBOOK_BYTES

#: Caps for one archive: every submission of a large class fits far below them.
MAX_MEMBERS = 20_000
MAX_TOTAL_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class Unpacked:
    folder: Path
    notes: tuple[str, ...]


def unpack_zip(archive: Path, into: Path) -> Unpacked:
    """Extract the notebooks of ``archive`` into the empty folder ``into``; raise :class:`UsageError` if refused."""
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if len(members) > MAX_MEMBERS:
                raise UsageError(f"{archive.name} has {len(members)} members, more than {MAX_MEMBERS}; it is refused.")
            skipped: list[str] = []
            budget = MAX_TOTAL_BYTES
            for info in members:
                if info.is_dir() or not info.filename.lower().endswith(".ipynb"):
                    continue
                relative = _safe_relative(info)
                if relative is None:
                    skipped.append(info.filename)
                    continue
                budget -= _copy_capped(zf, info, into / relative, budget, archive.name)
                _keep_time(into / relative, info)
    except zipfile.BadZipFile as err:
        raise UsageError(f"{archive.name} is not a readable zip archive ({err}).") from None
    except (OSError, RuntimeError, NotImplementedError) as err:  # encrypted or unsupported members, disk errors
        raise UsageError(f"{archive.name} cannot be unpacked ({err}).") from None
    notes = (f"skipped {len(skipped)} unsafe archive member(s): {', '.join(skipped[:5])}",) if skipped else ()
    return Unpacked(into, notes)


def _safe_relative(info: zipfile.ZipInfo) -> PurePosixPath | None:
    """The member's path inside the scratch folder, or ``None`` if it is a link or escapes the folder."""
    if stat.S_ISLNK(info.external_attr >> 16):
        return None
    name = info.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if path.is_absolute() or ":" in path.parts[0] or any(part in ("", "..") for part in path.parts):
        return None
    return path


def _keep_time(target: Path, info: zipfile.ZipInfo) -> None:
    """Give the unpacked file the member's modification time (local time, as zip stores it): when the learner
    handed it in, for the late policy (:func:`grader.batch.late.submitted_at`); left as is if it is not a time."""
    try:
        moment = time.mktime((*info.date_time, 0, 0, -1))
        os.utime(target, (moment, moment))
    except (OverflowError, ValueError, OSError):
        pass


def _copy_capped(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, budget: int, name: str) -> int:
    """Copy one member within the archive's remaining byte budget; return the bytes read.

    A member larger than one notebook may be is cut short as a sparse file just over the cap, so reading it
    later says "too large" instead of copying all of it.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    read = 0
    with zf.open(info) as source, open(target, "wb") as sink:
        while chunk := source.read(1 << 20):
            read += len(chunk)
            if read > budget:
                raise UsageError(
                    f"{name} unpacks to more than {MAX_TOTAL_BYTES >> 30} GB; it is refused (a zip bomb?)."
                )
            if read > MAX_NOTEBOOK_BYTES:
                sink.truncate(MAX_NOTEBOOK_BYTES + 1)
                break
            sink.write(chunk)
    return read
