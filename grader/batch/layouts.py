"""Find the notebooks in a submissions folder and say whose each one is.

Three layouts are recognised (see the README's batch section):

- flat: ``*.ipynb`` at the top; the learner id is the file stem, or what an LMS file name encodes
  (:mod:`grader.batch.names`);
- a folder per learner, as Moodle downloads: the learner id is what the folder's name encodes, and every
  notebook inside (at any depth) is that learner's;
- nbgrader: ``submitted/<learner>/<assignment>/<notebook>.ipynb`` (the folder may be the course root or
  ``submitted/`` itself);
- either of these wrapped in one top-level folder, as archives often are, or packed in a ``.zip``
  (unpacked safely by :mod:`grader.batch.archive`).

Every learner id is a safe file name, and no two learners share one (checked after every rename); a learner
with several notebooks keeps one id for all of them, and the batch grades one (:mod:`grader.batch.choose`).
Every ``*.ipynb`` found is an entry, whatever it is: a link, a FIFO or a folder becomes an unreadable row
when it is read (:func:`grader.read.read_notebook_bytes`), inside :attr:`Found.root`.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from grader.batch.archive import MAX_DEPTH, unpack_zip
from grader.batch.lms_table import LMS_FOLDER_PATTERNS, lms_names
from grader.batch.model import Identity
from grader.batch.names import LmsName, safe_id, same_id
from grader.errors import UsageError
from grader.text import plain

_IGNORED_DIRS = {".ipynb_checkpoints", "__MACOSX"}
_SUFFIX = ".ipynb"


@dataclass(frozen=True)
class Entry:
    """One notebook to grade and whose it is."""

    learner: str
    path: Path
    shown: str
    """How the path is shown in reports (inside an archive: ``archive.zip/member``)."""
    late: bool = False
    identity: Identity = Identity()
    """Who the learner is to their LMS, when the file (or folder) name said so."""
    key: str = ""
    """Who the learner is in the download, before any cleaning (``Canvas:12345``, ``file:a b``): entries
    with one key are one learner's notebooks, and share one ``learner`` id that no other key has."""
    download: str = ""
    """The LMS whose download the notebook came in (empty for a plain folder, nbgrader): it says when it was
    handed in even for a file whose own name does not follow that LMS's pattern (:mod:`grader.batch.late`)."""
    refused: str = ""
    """Why this entry is refused before it is read ("" if it is not): a folder nested too deep, an archive
    member that could not be unpacked. It becomes the learner's ``unreadable`` row, with this sentence."""


@dataclass(frozen=True)
class Found:
    entries: tuple[Entry, ...]
    layout: str
    notes: tuple[str, ...] = ()
    root: Path | None = None
    """The folder every notebook read must lie inside (None: one notebook, named by the caller)."""


def shown_name(name: str) -> str:
    """A learner's file or folder name as a note shows it: one line, no control or reordering characters."""
    return plain(name.replace("\n", "\\n").replace("\r", "\\r"), 120)


@contextmanager
def open_submissions(path: Path, assignment: str | None = None, assignments: Sequence[str] = ()) -> Iterator[Found]:
    """The submissions in a folder or a ``.zip`` (unpacked into a scratch folder that lives as long as the context).

    ``assignments``: the names the assignment may have in an LMS download (the lesson's title and id, the
    export's column name), which Blackboard's file names begin with."""
    if path.is_dir():
        yield find_submissions(path, assignment, assignments=assignments)
    elif path.is_file() and path.suffix.lower() == _SUFFIX:
        yield one_notebook(path, assignments)
    elif path.is_file() and path.suffix.lower() == ".zip":
        with tempfile.TemporaryDirectory(prefix="grade-batch-") as scratch:
            unpacked = unpack_zip(path, Path(scratch))
            found = find_submissions(unpacked.folder, assignment, shown_root=str(path), assignments=assignments)
            entries = tuple(replace(e, refused=unpacked.refused.get(e.path, e.refused)) for e in found.entries)
            yield replace(found, entries=entries, notes=unpacked.notes + found.notes)
    else:
        raise UsageError(f"{path} is neither a folder of submissions, a .zip of one, nor a notebook.")


#: The layout of a batch given one notebook: it regrades that learner into an existing results folder.
ONE_NOTEBOOK = "one notebook"


def one_notebook(path: Path, assignments: Sequence[str] = ()) -> Found:
    """One notebook, named as it would be in its folder (an LMS file name is read as the LMS wrote it)."""
    lms = lms_names([path.stem], assignments=assignments)
    name = lms[1][0] if lms is not None else None
    return Found((_entry(path, str(path), path.stem, name),), ONE_NOTEBOOK)


def find_submissions(
    top: Path, assignment: str | None = None, shown_root: str | None = None, assignments: Sequence[str] = ()
) -> Found:
    """The notebooks under ``top``; ``shown_root`` replaces ``top`` in the paths reports show."""
    root = _unwrap(top)
    submitted = root if root.name == "submitted" else root / "submitted"
    if submitted.is_dir():
        return replace(_nbgrader(submitted, assignment, top, shown_root), root=top)
    if assignment is not None:
        raise UsageError(f"--assignment is for nbgrader's submitted/<learner>/<assignment>/ layout; {root} is not one.")
    notebooks = _notebooks(root)
    if not notebooks:
        per_learner = _folder_per_learner(root, top, shown_root)
        if per_learner is not None:
            return replace(per_learner, root=top)
    lms = lms_names([p.stem for p in notebooks], assignments=assignments)
    names: Sequence[LmsName | None] = lms[1] if lms is not None else [None] * len(notebooks)
    download = lms[0] if lms is not None else ""
    entries = [
        replace(_entry(p, _shown(p, top, shown_root), p.stem, n), download=download)
        for p, n in zip(notebooks, names, strict=True)
    ]
    layout = f"{lms[0]} download" if lms is not None else "flat folder"
    skipped = [p.name for p in sorted(root.iterdir()) if p.is_file() and p.suffix != _SUFFIX and not _hidden(p)]
    notes: tuple[str, ...] = (
        (f"ignored {len(skipped)} file(s) that are not .ipynb: {', '.join(map(shown_name, skipped[:5]))}",)
        if skipped
        else ()
    )
    if lms is not None:
        notes += _outside_pattern(lms[0], [p.name for p, n in zip(notebooks, names, strict=True) if n is None], "file")
    return replace(_unique(entries, layout, notes), root=top)


def _entry(path: Path, shown: str, raw: str, name: LmsName | None, prefix: str = "file") -> Entry:
    """The entry of one notebook: named by its LMS name if it has one, else by ``raw`` (its stem or folder).

    The key is in Unicode's composed form (NFC): macOS writes names decomposed (NFD), Linux and most LMSs
    composed, and ``adá`` is one learner's name in either form (one key, so one id, and the same tag)."""
    if name is None:
        return Entry(safe_id(raw), path, shown, key=unicodedata.normalize("NFC", f"{prefix}:{raw}"))
    key = unicodedata.normalize("NFC", f"{name.identity.lms}:{name.identity.lms_id}")
    return Entry(name.learner, path, shown, name.late, name.identity, key=key)


def _outside_pattern(lms: str, names: list[str], what: str) -> tuple[str, ...]:
    """The note naming the files (or folders) of an LMS download whose names do not follow its pattern."""
    if not names:
        return ()
    return (
        f"{len(names)} {what} name(s) do not follow {lms}'s pattern (or could be read more than one way), so they "
        f"are graded under their own names and left out of the {lms} import: {', '.join(map(shown_name, names[:5]))}",
    )


def _folder_per_learner(root: Path, top: Path, shown_root: str | None) -> Found | None:
    """An LMS download with a folder per learner, if most folders' names match one pattern; else None."""
    folders = sorted(c for c in root.iterdir() if c.is_dir() and not ignored(c))
    lms = lms_names([f.name for f in folders], LMS_FOLDER_PATTERNS)
    if lms is None:
        return None
    lms_name, names = lms
    entries: list[Entry] = []
    for folder, name in zip(folders, names, strict=True):
        entries += [
            replace(_entry(p, _shown(p, top, shown_root), folder.name, name, "folder"), download=lms_name, refused=why)
            for p, why in _notebooks_under(folder)
        ]
    with_notebooks = {e.key for e in entries}
    without = [
        safe_id(n.learner if n else f.name)
        for f, n in zip(folders, names, strict=True)
        if _entry(f, "", f.name, n, "folder").key not in with_notebooks
    ]
    notes: tuple[str, ...] = (
        (f"no notebook from {len(without)} learner(s): {', '.join(without[:5])}",) if without else ()
    )
    notes += _outside_pattern(lms_name, [f.name for f, n in zip(folders, names, strict=True) if n is None], "folder")
    return _unique(entries, f"{lms_name} download (a folder per learner)", notes)


def _notebooks_under(folder: Path) -> list[tuple[Path, str]]:
    """Every ``*.ipynb`` at any depth (whatever it is: the read says what is wrong with it), except in hidden
    or checkpoint folders, each with why it is refused ("" if it is not); links to folders are never followed,
    and a folder named ``*.ipynb`` is one entry.

    The walk keeps its own stack, never the interpreter's (a learner's folder nested a thousand deep would
    otherwise stop the class with a ``RecursionError``), and goes at most :data:`MAX_DEPTH` folders down: a
    folder below that, or one that cannot be listed, is itself an entry, refused with the reason."""
    found: list[tuple[Path, str]] = []
    stack = [(folder, 0)]
    while stack:
        here, depth = stack.pop()
        try:
            with os.scandir(here) as listing:
                children = [(Path(child.path), _real_dir(child)) for child in listing]
        except OSError as err:
            found.append((here, f"The folder {shown_name(here.name)} cannot be read ({err.strerror}); {_FLATTEN}"))
            continue
        for path, is_dir in children:
            if ignored(path):
                continue
            if path.name.endswith(_SUFFIX):
                found.append((path, ""))
            elif is_dir and depth >= MAX_DEPTH:
                found.append((path, f"{shown_name(folder.name)} nests folders more than {MAX_DEPTH} deep; {_FLATTEN}"))
            elif is_dir:
                stack.append((path, depth + 1))
    return sorted(found)


_FLATTEN = "nothing in it was read: submit the notebook file itself, not a tree of folders."


def _real_dir(child: os.DirEntry[str]) -> bool:
    """A folder, not a link to one (never followed) nor anything that cannot be looked at."""
    try:
        return child.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _unwrap(root: Path) -> Path:
    """Descend through a single wrapping folder that holds nothing else (``submissions/`` inside a zip)."""
    while True:
        children = [c for c in root.iterdir() if not ignored(c)]
        only = children[0] if len(children) == 1 else None
        if (
            only is not None
            and only.is_dir()
            and not only.name.endswith(_SUFFIX)
            and only.name != "submitted"
            and lms_names([only.name], LMS_FOLDER_PATTERNS) is None
        ):
            root = only  # a wrapper, not the one learner's folder of an LMS download
        else:
            return root


def _nbgrader(submitted: Path, assignment: str | None, top: Path, shown_root: str | None) -> Found:
    found = [
        notebook for learner in _folders(submitted) for lesson in _folders(learner) for notebook in _notebooks(lesson)
    ]
    assignments = sorted({p.parent.name for p in found})
    if assignment is None and len(assignments) > 1:
        raise UsageError(
            f"{submitted} holds several assignments ({', '.join(assignments)}); choose one with --assignment."
        )
    if assignment is not None:
        if assignment not in assignments:
            raise UsageError(
                f"{submitted} has no assignment {assignment!r} (found: {', '.join(assignments) or 'none'})."
            )
        found = [p for p in found if p.parent.name == assignment]
    entries = [_entry(p, _shown(p, top, shown_root), p.parent.parent.name, None, "student") for p in found]
    return _unique(entries, "nbgrader course", ())


def _folders(folder: Path) -> list[Path]:
    """The folders in ``folder`` (a link to one too: reading what is inside it is refused, with the reason)."""
    return sorted(c for c in folder.iterdir() if c.is_dir() and not c.name.endswith(_SUFFIX) and not ignored(c))


def _notebooks(folder: Path) -> list[Path]:
    """Every ``*.ipynb`` in ``folder``, whatever it is (a link, a FIFO, a folder): reading it says what is wrong."""
    return sorted(p for p in folder.iterdir() if p.name.endswith(_SUFFIX) and not _hidden(p))


def ignored(path: Path) -> bool:
    """Hidden, a notebook checkpoint folder, or an archiver's metadata: never a submission or a learner."""
    return _hidden(path) or path.name in _IGNORED_DIRS


def _hidden(path: Path) -> bool:
    return path.name.startswith((".", "~"))


def _shown(path: Path, top: Path, shown_root: str | None) -> str:
    return str(Path(shown_root) / path.relative_to(top)) if shown_root is not None else str(path)


def _unique(entries: list[Entry], layout: str, notes: tuple[str, ...]) -> Found:
    """One id per learner (per key), and no id shared by two learners, checked again after every rename.

    Two learners whose names clean alike (``a b`` and ``a_b``, ``ab`` and ``ab.``, ``josé`` and ``josè``) or
    differ only in case (``Ada`` and ``ada``: :func:`same_id`) both get ``<id>-<tag>``, the tag a hash of their own
    name, so it does not depend on who else submitted; if that is some other learner's id (a learner may name a
    file ``a_b-3f2a1c``), all of them get longer tags, until every id is distinct.
    """
    bases: dict[str, str] = {}
    for entry in entries:
        bases.setdefault(entry.key, entry.learner)
    ids = _distinct(bases)
    several = sorted(ids[key] for key, n in Counter(e.key for e in entries).items() if n > 1)
    if several:
        notes += (
            f"several notebooks for {', '.join(several[:5])}: each gets one row, from the notebook for the lesson "
            "(see the README, 'One row per learner')",
        )
    return Found(tuple(replace(e, learner=ids[e.key]) for e in entries), layout, notes)


def _distinct(bases: dict[str, str]) -> dict[str, str]:
    """Ids for every key, all different: its base id, or the base with a tag made from the key."""
    ids = dict(bases)
    counts = Counter(same_id(learner) for learner in ids.values())
    for length in range(6, 66, 4):
        clashing = [key for key, learner in ids.items() if counts[same_id(learner)] > 1]
        if not clashing:
            return ids
        for key in clashing:
            ids[key] = f"{bases[key]}-{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()[:length]}"
        counts = Counter(same_id(learner) for learner in ids.values())
    for number, key in enumerate(sorted(k for k, learner in ids.items() if counts[same_id(learner)] > 1), start=2):
        ids[key] = f"{ids[key]}-{number}"  # a sha256 clash: never seen, but the ids must still differ
    return ids
