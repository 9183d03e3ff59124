"""Unpack a submissions archive (.zip) safely, so a hostile archive cannot write outside a scratch folder, and
one learner's member can cost that learner's row only, never the class's.

Only ``.ipynb`` members are extracted. A member whose name is absolute, climbs out with ``..`` or is a symbolic
link is skipped and named in a note. What one member can do is bounded before it is read, from the sizes the
archive declares (which bound what ``zipfile`` will inflate): a member larger than a notebook may be, one that
inflates more than :data:`MAX_RATIO` times (a zip bomb), one compressed otherwise than with deflate (whose
inflating alone ``zipfile`` bounds as it goes), a zip inside the zip (never opened), and the largest
members once the archive's total would pass :data:`MAX_TOTAL_BYTES` are *refused*: each is left as an empty
file at its place, listed in :attr:`Unpacked.refused` with a sentence, and becomes its learner's ``unreadable``
row. So is a member that fails while it is read (a bad CRC, encrypted, an unknown compression).

Names are made to fit, never a reason to stop: a name longer than the filesystem allows is shortened (its start,
where an LMS writes who the learner is, and its suffix kept; a hash of the whole name added), and a folder whose
name a file already holds (``x.ipynb`` and ``x.ipynb/y.ipynb``) gets a tag; such members are read, and named in
a note. A name given twice is the later member, as ``zipfile`` reads it. Folders are made one at a time from
open descriptors (no recursion, no path length limit), at most :data:`MAX_DEPTH` (and a learner's and a
wrapping folder) deep; below that nothing is unpacked, and the folder-per-learner walk
(:mod:`grader.batch.layouts`) refuses what is that deep, with the reason.

Only what is the machine's, not a learner's, refuses the whole archive: it is not a zip, it has more than
:data:`MAX_MEMBERS` members, the disk is full.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from grader.errors import UsageError
from grader.read import MAX_NOTEBOOK_BYTES

#: Caps for one archive: every submission of a large class fits far below them.
MAX_MEMBERS = 20_000
MAX_TOTAL_BYTES = 2 * 1024**3
#: A member that inflates more than this many times its stored size, when it is larger than
#: :data:`RATIO_FLOOR_BYTES`, is refused as a zip bomb (a notebook's JSON deflates 3 to 20 times).
MAX_RATIO = 200
RATIO_FLOOR_BYTES = 16 * 1024**2
#: Folders below the archive's top (or, for the folder-per-learner walk, below a learner's folder) that are
#: looked into: a submission is a file or two, and a deeper tree only costs time (or the interpreter's stack).
MAX_DEPTH = 32
#: Folders an archive's member is unpacked under: a wrapping folder and a learner's, then what the walk reads.
_EXTRACT_DEPTH = MAX_DEPTH + 2
#: The longest file name (in bytes) Linux filesystems take.
_NAME_MAX = 255
#: The compressions read: ``zipfile`` inflates deflate a bounded step at a time, but hands bzip2 and LZMA
#: each compressed chunk whole, so one megabyte of a bzip2 bomb could become gigabytes in one call.
_BOUNDED = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED})
#: Write errors that are the machine's (the disk), not a member's: they refuse the archive.
_MACHINE = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO}


@dataclass(frozen=True)
class Unpacked:
    folder: Path
    notes: tuple[str, ...]
    refused: Mapping[Path, str] = field(default_factory=dict)
    """Members left empty at their place, each with why (a sentence for the learner's row)."""


def unpack_zip(archive: Path, into: Path) -> Unpacked:
    """Extract the notebooks of ``archive`` into the empty folder ``into`` (made if missing); raise
    :class:`UsageError` only for what refuses the archive as a whole (see the module docstring)."""
    try:
        into.mkdir(exist_ok=True)
        with zipfile.ZipFile(archive) as zf:
            return _unpack(zf, archive.name, into)
    except zipfile.BadZipFile as err:
        raise UsageError(f"{archive.name} is not a readable zip archive ({err}).") from None
    except OSError as err:  # the scratch folder's disk; a member's own errors are caught per member
        raise UsageError(f"{archive.name} cannot be unpacked ({err}).") from None


def _unpack(zf: zipfile.ZipFile, name: str, into: Path) -> Unpacked:
    members = zf.infolist()
    if len(members) > MAX_MEMBERS:
        raise UsageError(f"{name} has {len(members)} members, more than {MAX_MEMBERS}; it is refused.")
    wanted: list[tuple[zipfile.ZipInfo, PurePosixPath]] = []
    unsafe: list[str] = []
    for info in members:
        lower = info.filename.lower()
        if info.is_dir() or not lower.endswith((".ipynb", ".zip")):
            continue
        relative = _safe_relative(info)
        if relative is None:
            unsafe.append(info.filename)
        else:
            wanted.append((info, relative))
    twice = len(wanted) - len({info.filename: info for info, _ in wanted})
    last = {info.filename: (info, relative) for info, relative in wanted}  # a name twice: the later one, as zip reads
    # Shallow members first: a file keeps its name (in a flat download, its learner), and only a folder of the
    # same name deeper down (``x.ipynb/y.ipynb``) is renamed.
    wanted = sorted(last.values(), key=lambda member: len(member[1].parts))
    over = _over_budget(info for info, _ in wanted if not _nested(info))
    refused: dict[Path, str] = {}
    moved: list[str] = []
    deep = 0
    with _Tree(into) as tree:
        for info, relative in wanted:
            placed = tree.create(relative, _nested(info))
            if placed is None:
                deep += 1
                continue
            path, fd = placed
            if path.relative_to(into).as_posix() not in (relative.as_posix(), f"{relative.as_posix()}.ipynb"):
                moved.append(info.filename)
            with os.fdopen(fd, "wb") as sink:
                why = _refusal(info, relative, info in over) or _copy(zf, info, sink)
                if why:
                    sink.seek(0)
                    sink.truncate(0)
                    refused[path] = why
                sink.flush()
                _keep_time(sink.fileno(), info)
    return Unpacked(into, _notes(unsafe, moved, deep, twice), refused)


def _nested(info: zipfile.ZipInfo) -> bool:
    return info.filename.lower().endswith(".zip")


def _over_budget(infos: Iterable[zipfile.ZipInfo]) -> set[zipfile.ZipInfo]:
    """The members left out so the rest fit in :data:`MAX_TOTAL_BYTES`: the largest, so a learner's bomb is
    refused and the small notebooks of the class are all read. Sizes are the ones the archive declares, which
    bound what is inflated (``zipfile`` stops at the declared size); members already too large on their own
    are refused for that and not counted."""
    budget = MAX_TOTAL_BYTES
    over: set[zipfile.ZipInfo] = set()
    for info in sorted((i for i in infos if i.file_size <= MAX_NOTEBOOK_BYTES), key=lambda i: i.file_size):
        if info.file_size > budget:
            over.add(info)
        else:
            budget -= info.file_size
    return over


def _refusal(info: zipfile.ZipInfo, relative: PurePosixPath, over: bool) -> str:
    """Why a member is refused before it is read ("" if it is not)."""
    shown = relative.name[:120]
    if _nested(info):
        return (
            f"{shown} is a zip archive inside the class's archive, which is never opened: submit the .ipynb "
            "notebook itself."
        )
    if info.compress_type not in _BOUNDED:
        return (
            f"{shown} is compressed with method {info.compress_type}, which is not read (only deflate's inflating "
            "is bounded as it goes): zip it again with plain deflate, as every LMS does."
        )
    if info.file_size > MAX_NOTEBOOK_BYTES:
        return f"{shown} unpacks to more than {MAX_NOTEBOOK_BYTES >> 20} MB; clear its outputs and save it again."
    if info.file_size > RATIO_FLOOR_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        return (
            f"{shown} inflates {info.file_size // max(info.compress_size, 1):,} times its stored size (a zip "
            f"bomb, or a notebook of repeated outputs): clear its outputs, save it and submit it again."
        )
    if over:
        return (
            f"{shown} is among the largest members of an archive that unpacks to more than "
            f"{MAX_TOTAL_BYTES >> 30} GB, so it was not unpacked; clear its outputs and save it again."
        )
    return ""


def _copy(zf: zipfile.ZipFile, info: zipfile.ZipInfo, sink: IO[bytes]) -> str:
    """Copy one member into ``sink``; return why it cannot be read ("" once copied).

    A member's own failures (a bad CRC, encryption, an unknown compression, inflated data that is not
    deflate) are that member's; the disk's (full, read-only) refuse the archive (``OSError`` goes up)."""
    shown = PurePosixPath(info.filename).name[:120]
    read = 0
    try:
        with zf.open(info) as source:
            while chunk := source.read(1 << 20):
                read += len(chunk)
                if read > info.file_size:  # zipfile stops at the declared size; never trust that alone
                    return f"{shown} holds more than its archive says; zip it again and resubmit."
                sink.write(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as err:
        return f"{shown} is damaged in the archive ({err}); download it from the LMS again."
    except RuntimeError as err:  # zipfile's word for an encrypted member
        return f"{shown} cannot be read from the archive ({err}); submit it unencrypted."
    except NotImplementedError as err:
        return f"{shown} uses a compression that cannot be read ({err}); zip it again with plain deflate."
    return ""


class _Tree:
    """Folders and files made under ``into`` one level at a time from open descriptors (``dir_fd``), so no
    path is ever longer than one name, and nothing recursive runs however deep a member lies."""

    def __init__(self, into: Path) -> None:
        self.into = into
        self.fds: dict[tuple[str, ...], int] = {}
        """Each folder made, by the member's own names for it, and its descriptor."""
        self.real: dict[tuple[str, ...], tuple[str, ...]] = {(): ()}
        """The names it was made under (another where the member's own did not fit)."""

    def __enter__(self) -> _Tree:
        self.fds[()] = os.open(self.into, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        return self

    def __exit__(self, *_: object) -> None:
        for fd in self.fds.values():
            os.close(fd)

    def create(self, relative: PurePosixPath, nested: bool) -> tuple[Path, int] | None:
        """A new file for the member at ``relative`` (renamed to fit where it must) and its descriptor; None when
        the member lies deeper than the walk looks (its folders are made that far, for the walk to refuse).

        A zip inside the archive gets a ``.ipynb`` after its own name, so the learner's row says it is refused."""
        *folders, name = relative.parts
        here: tuple[str, ...] = ()
        for depth, part in enumerate(folders):
            here = self._folder(here, part)
            if depth >= _EXTRACT_DEPTH:
                return None
        suffix = ".ipynb" if nested else PurePosixPath(name).suffix
        stem = name if nested else name[: len(name) - len(suffix)]
        for candidate in _names(stem, suffix, relative.as_posix()):
            try:
                fd = os.open(
                    candidate,
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                    0o600,
                    dir_fd=self.fds[here],
                )
            except OSError as err:
                if err.errno in _MACHINE:
                    raise
                continue  # the name is taken (by a file or a folder), or cannot be made: the next one
            return self.into.joinpath(*self.real[here], candidate), fd
        return None

    def _folder(self, parent: tuple[str, ...], part: str) -> tuple[str, ...]:
        """The folder for ``part`` in ``parent`` (made if need be; renamed to fit where a file holds the name)."""
        key = (*parent, part)
        if key in self.fds:
            return key
        for candidate in _names(part, "", "/".join(key)):
            try:
                os.mkdir(candidate, 0o700, dir_fd=self.fds[parent])
            except FileExistsError:
                pass  # made for an earlier member, or a file: opening it as a folder tells which
            except OSError as err:
                if err.errno in _MACHINE:
                    raise
                continue
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                self.fds[key] = os.open(candidate, flags, dir_fd=self.fds[parent])
            except OSError as err:
                if err.errno in _MACHINE:
                    raise
                continue
            self.real[key] = (*self.real[parent], candidate)
            return key
        raise OSError(errno.EEXIST, f"no free folder name for {'/'.join(key)}")


def _names(stem: str, suffix: str, whole: str) -> Iterator[str]:
    """Names to try for a member, first its own: then (or first, when its own is too long for the filesystem)
    its start cut to fit, with longer and longer tags from a hash of its whole path."""
    own = stem + suffix
    if len(os.fsencode(own)) <= _NAME_MAX:
        yield own
    digest = hashlib.sha256(whole.encode("utf-8", "surrogatepass")).hexdigest()
    for length in (8, 16, 32, 64):
        tail = f"-{digest[:length]}{suffix}"
        yield _cut(stem, _NAME_MAX - len(os.fsencode(tail))) + tail


def _cut(text: str, limit: int) -> str:
    """The longest start of ``text`` at most ``limit`` bytes long (never half a character)."""
    while len(os.fsencode(text)) > limit:
        text = text[: max(len(text) - max((len(os.fsencode(text)) - limit) // 4, 1), 0)]
    return text


def _notes(unsafe: list[str], moved: list[str], deep: int, twice: int) -> tuple[str, ...]:
    notes: list[str] = []
    if twice:
        notes.append(f"{twice} archive member name(s) appear twice: the later member of each was unpacked")
    if unsafe:
        notes.append(f"skipped {len(unsafe)} unsafe archive member(s): {', '.join(unsafe[:5])}")
    if moved:
        shown = ", ".join(m[:80] for m in moved[:5])
        notes.append(f"unpacked {len(moved)} member(s) under another name (too long, or clashing): {shown}")
    if deep:
        notes.append(
            f"{deep} member(s) lie more than {_EXTRACT_DEPTH} folders deep (or found no free name) and were not "
            "unpacked"
        )
    return tuple(notes)


def _safe_relative(info: zipfile.ZipInfo) -> PurePosixPath | None:
    """The member's path inside the scratch folder, or ``None`` if it is a link or escapes the folder."""
    if stat.S_ISLNK(info.external_attr >> 16):
        return None
    name = info.filename.replace("\\", "/")
    path = PurePosixPath(name)
    if path.is_absolute() or ":" in path.parts[0] or any(part in ("", "..", ".") for part in path.parts):
        return None
    return path


def _keep_time(fd: int, info: zipfile.ZipInfo) -> None:
    """Give the unpacked file the member's modification time (local time, as zip stores it): when the learner
    handed it in, for the late policy (:func:`grader.batch.late.submitted_at`); left as is if it is not a time."""
    try:
        moment = time.mktime((*info.date_time, 0, 0, -1))
        os.utime(fd, (moment, moment))
    except (OverflowError, ValueError, OSError):
        pass
