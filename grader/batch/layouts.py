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

Every learner id is a safe file name and unique: a learner with several notebooks gets one id per notebook.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from grader.batch.archive import unpack_zip
from grader.batch.names import LMS_FOLDER_PATTERNS, Identity, lms_names, safe_id
from grader.errors import UsageError

_IGNORED_DIRS = {".ipynb_checkpoints", "__MACOSX"}


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


@dataclass(frozen=True)
class Found:
    entries: tuple[Entry, ...]
    layout: str
    notes: tuple[str, ...] = ()


@contextmanager
def open_submissions(path: Path, assignment: str | None = None) -> Iterator[Found]:
    """The submissions in a folder or a ``.zip`` (unpacked into a scratch folder that lives as long as the context)."""
    if path.is_dir():
        yield find_submissions(path, assignment)
    elif path.is_file() and path.suffix.lower() == ".ipynb":
        yield one_notebook(path)
    elif path.is_file() and path.suffix.lower() == ".zip":
        with tempfile.TemporaryDirectory(prefix="grade-batch-") as scratch:
            unpacked = unpack_zip(path, Path(scratch))
            found = find_submissions(unpacked.folder, assignment, shown_root=str(path))
            yield replace(found, notes=unpacked.notes + found.notes)
    else:
        raise UsageError(f"{path} is neither a folder of submissions, a .zip of one, nor a notebook.")


#: The layout of a batch given one notebook: it regrades that learner into an existing results folder.
ONE_NOTEBOOK = "one notebook"


def one_notebook(path: Path) -> Found:
    """One notebook, named as it would be in its folder (an LMS file name is read as the LMS wrote it)."""
    lms = lms_names([path.stem])
    if lms is None:
        return Found((Entry(safe_id(path.stem), path, str(path)),), ONE_NOTEBOOK)
    name = lms[1][0]
    return Found((Entry(name.learner, path, str(path), name.late, name.identity),), ONE_NOTEBOOK)


def find_submissions(top: Path, assignment: str | None = None, shown_root: str | None = None) -> Found:
    """The notebooks under ``top``; ``shown_root`` replaces ``top`` in the paths reports show."""
    root = _unwrap(top)
    submitted = root if root.name == "submitted" else root / "submitted"
    if submitted.is_dir():
        return _nbgrader(submitted, assignment, top, shown_root)
    if assignment is not None:
        raise UsageError(f"--assignment is for nbgrader's submitted/<learner>/<assignment>/ layout; {root} is not one.")
    notebooks = _notebooks(root)
    if not notebooks:
        per_learner = _folder_per_learner(root, top, shown_root)
        if per_learner is not None:
            return per_learner
    stems = [p.stem for p in notebooks]
    lms = lms_names(stems)
    if lms is None:
        entries = [Entry(safe_id(p.stem), p, _shown(p, top, shown_root)) for p in notebooks]
        layout = "flat folder"
    else:
        lms_name, names = lms
        entries = [
            Entry(n.learner, p, _shown(p, top, shown_root), n.late, n.identity)
            for p, n in zip(notebooks, names, strict=False)
        ]
        layout = f"{lms_name} download"
    skipped = [p.name for p in sorted(root.iterdir()) if p.is_file() and p.suffix != ".ipynb" and not _hidden(p)]
    notes = (f"ignored {len(skipped)} file(s) that are not .ipynb: {', '.join(skipped[:5])}",) if skipped else ()
    return _unique(entries, layout, notes)


def _folder_per_learner(root: Path, top: Path, shown_root: str | None) -> Found | None:
    """An LMS download with a folder per learner, if every folder's name matches one pattern; else None."""
    folders = sorted(c for c in root.iterdir() if c.is_dir() and not _ignored(c))
    lms = lms_names([f.name for f in folders], LMS_FOLDER_PATTERNS)
    if lms is None:
        return None
    lms_name, names = lms
    entries: list[Entry] = []
    for folder, name in zip(folders, names, strict=False):
        entries += [
            Entry(name.learner, p, _shown(p, top, shown_root), name.late, name.identity)
            for p in _notebooks_under(folder)
        ]
    without = sorted({n.learner for n in names} - {e.learner for e in entries})
    notes = (f"no notebook from {len(without)} learner(s): {', '.join(without[:5])}",) if without else ()
    return _unique(entries, f"{lms_name} download (a folder per learner)", notes)


def _notebooks_under(folder: Path) -> list[Path]:
    """Every notebook at any depth, except in hidden or checkpoint folders."""
    return sorted(
        p
        for p in folder.rglob("*.ipynb")
        if p.is_file() and not any(_ignored(part) for part in (p, *p.relative_to(folder).parents))
    )


def _unwrap(root: Path) -> Path:
    """Descend through a single wrapping folder that holds nothing else (``submissions/`` inside a zip)."""
    while True:
        children = [c for c in root.iterdir() if not _ignored(c)]
        only = children[0] if len(children) == 1 else None
        if (
            only is not None
            and only.is_dir()
            and only.name != "submitted"
            and lms_names([only.name], LMS_FOLDER_PATTERNS) is None
        ):
            root = only  # a wrapper, not the one learner's folder of an LMS download
        else:
            return root


def _nbgrader(submitted: Path, assignment: str | None, top: Path, shown_root: str | None) -> Found:
    found = sorted(
        p for p in submitted.glob("*/*/*.ipynb") if not any(_ignored(part) for part in (p, p.parent, p.parent.parent))
    )
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
    entries = [Entry(safe_id(p.parent.parent.name), p, _shown(p, top, shown_root)) for p in found]
    return _unique(entries, "nbgrader course", ())


def _notebooks(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.ipynb") if p.is_file() and not _hidden(p))


def _ignored(path: Path) -> bool:
    """Hidden, a notebook checkpoint folder, or an archiver's metadata: never a submission or a learner."""
    return _hidden(path) or path.name in _IGNORED_DIRS


def _hidden(path: Path) -> bool:
    return path.name.startswith((".", "~"))


def _shown(path: Path, top: Path, shown_root: str | None) -> str:
    return str(Path(shown_root) / path.relative_to(top)) if shown_root is not None else str(path)


def _unique(entries: list[Entry], layout: str, notes: tuple[str, ...]) -> Found:
    """A learner with several notebooks gets ``<learner>-<stem>`` ids (then ``-2``, ``-3`` if still shared)."""
    counts = Counter(e.learner for e in entries)
    renamed = [
        replace(e, learner=safe_id(f"{e.learner}-{e.path.stem}")) if counts[e.learner] > 1 else e for e in entries
    ]
    seen: Counter[str] = Counter()
    unique = []
    for entry in renamed:
        seen[entry.learner] += 1
        unique.append(
            entry if seen[entry.learner] == 1 else replace(entry, learner=f"{entry.learner}-{seen[entry.learner]}")
        )
    shared = sorted(name for name, n in counts.items() if n > 1)
    if shared:
        notes += (f"several notebooks for {', '.join(shared[:5])}: each is graded under <learner>-<notebook>",)
    return Found(tuple(unique), layout, notes)
