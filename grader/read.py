"""Step 1, read: turn a notebook file into a :class:`Submission`, or say in one sentence why it can't be.

nbformat parses and upgrades the file (any nbformat 4 minor version; nbformat 3 is upgraded). Outputs are
dropped: grading only ever runs the learner's sources.

A well-formed nbformat 4 file (every Jupyter since 2015 writes one) needs no upgrade, and nothing nbformat
would do to it changes the fields we read (cell type, source, tags, lesson id), so it is read straight
from its JSON; anything else goes through nbformat. That keeps ``import nbformat`` (0.2-1.3 s, with its
schema validator) off the grading path. What nbformat is given is only what grading reads (:func:`_for_nbformat`),
so its cost is bounded by the cells, never by a learner's outputs or metadata.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from grader.config import SKIP_TAG
from grader.errors import NotebookUnreadable
from grader.model import Cell, Params, Submission
from grader.params import from_mapping

#: Larger files are refused rather than parsed (a notebook with big outputs is still far below this).
MAX_NOTEBOOK_BYTES = 256 * 1024 * 1024

#: A notebook may hold at most this many cells (a long lesson has a few hundred).
MAX_CELLS = 10_000

#: A notebook's JSON may hold at most this many values (counted, over-estimated, before parsing): the batch
#: process parses every notebook and has no memory limit, and a file of ``[{},{},...]`` near the size cap
#: would otherwise become tens of millions of Python objects (gigabytes). A real notebook holds thousands.
MAX_JSON_VALUES = 4_000_000


def _import_nbformat() -> Any:
    """Import nbformat without jsonschema's optional IRI checker, which builds a grammar on import (~1.3 s).

    The notebook schema uses no IRI formats, so leaving that checker out changes no validation result.
    """
    if "rfc3987_syntax" not in sys.modules:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # makes its import fail fast
    import nbformat

    return nbformat


def read_submission(path: Path, root: Path | None = None) -> Submission:
    """Read ``path``; raise :class:`NotebookUnreadable` with an actionable sentence if it is not a notebook.

    The file is read by :func:`read_notebook_bytes` (a regular file only, never through a link, never
    blocking, at most :data:`MAX_NOTEBOOK_BYTES`; inside ``root`` when one is given)."""
    return parse_submission(read_notebook_bytes(path, root), path)


def read_notebook_bytes(path: Path, root: Path | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most :data:`MAX_NOTEBOOK_BYTES`, else
    :class:`NotebookUnreadable` saying what it is.

    Learners name the files a batch reads, so the file is opened without following a link
    (``O_NOFOLLOW``: a link to a teaching assistant's file is refused, not read with their rights) and
    without blocking (``O_NONBLOCK``: a FIFO cannot hang the batch), and what was opened is checked on the
    open descriptor (``fstat``: a regular file, not too large), so nothing can be swapped in between the
    check and the read. With ``root`` (the submissions folder), the opened file's real path must lie inside
    it: a folder on the way that links elsewhere is refused too.
    """
    name = path.name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise NotebookUnreadable(f"{name}: there is no such file; check the path.") from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise NotebookUnreadable(
                f"{name} is a symbolic link, which is never followed; submit the notebook file itself."
            ) from None
        raise NotebookUnreadable(f"{name}: the file cannot be opened ({err.strerror}).") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotebookUnreadable(
                f"{name} is {_kind(info.st_mode)}, not a notebook file; submit the .ipynb file that Jupyter saved."
            )
        if root is not None and not _inside(_real_path(fd, path), root):
            raise NotebookUnreadable(
                f"{name} lies outside the submissions folder (through a linked folder); submit the notebook itself."
            )
        if info.st_size > MAX_NOTEBOOK_BYTES:
            raise NotebookUnreadable(_too_large(name))
        raw = _read_capped(fd)
    finally:
        os.close(fd)
    if raw is None:  # it grew while being read
        raise NotebookUnreadable(_too_large(name))
    return raw


def _too_large(name: str) -> str:
    return f"{name} is larger than {MAX_NOTEBOOK_BYTES >> 20} MB; clear its outputs and save it again."


def _read_capped(fd: int) -> bytes | None:
    """At most :data:`MAX_NOTEBOOK_BYTES` from ``fd``; None if there is more."""
    chunks: list[bytes] = []
    left = MAX_NOTEBOOK_BYTES + 1
    while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
        chunks.append(chunk)
        left -= len(chunk)
    return None if left <= 0 else b"".join(chunks)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (a named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _real_path(fd: int, path: Path) -> Path:
    """Where the open descriptor really is (``/proc/self/fd``: no race with a rename); the path's own real
    path where there is no ``/proc``."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return Path(os.path.realpath(path))


def _inside(real: Path, root: Path) -> bool:
    return real.is_relative_to(Path(os.path.realpath(root)))


def parse_submission(raw: bytes, path: Path) -> Submission:
    """The :class:`Submission` in a notebook file's bytes (``path`` names it in messages and the result)."""
    name = path.name
    if len(raw) > MAX_NOTEBOOK_BYTES:
        raise NotebookUnreadable(_too_large(name))
    if not raw.strip():
        raise NotebookUnreadable(f"{name} is empty; save your notebook in Jupyter and submit it again.")
    values = raw.count(b",") + raw.count(b":") + raw.count(b"[")
    if values > MAX_JSON_VALUES:
        raise NotebookUnreadable(
            f"{name} holds more than {MAX_JSON_VALUES:,} JSON values; clear its outputs and save it again."
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise NotebookUnreadable(
            f"{name} is not a text notebook (it is not UTF-8); submit the .ipynb file that Jupyter saved."
        ) from None
    try:
        data: Any = json.loads(text)
    except ValueError:
        data = None  # nbformat words the error below
    except RecursionError:  # ``[[[[...`` nested deeper than the interpreter's stack: never a notebook
        raise NotebookUnreadable(f"{name} is JSON nested too deeply to be a notebook; {_what_to_do()}") from None
    if isinstance(data, dict) and "nbformat" not in data:
        raise NotebookUnreadable(
            f"{name} is JSON but not a Jupyter notebook (it has no nbformat version); {_what_to_do()}"
        )
    if data is not None and not isinstance(data, dict):
        raise NotebookUnreadable(f"{name} is not a readable Jupyter notebook (not a JSON object); {_what_to_do()}")
    if data is not None and any(type(data.get(k, 0)) is not int for k in ("nbformat", "nbformat_minor")):
        raise NotebookUnreadable(  # nbformat asserts, and says only "AssertionError"
            f"{name} is not a readable Jupyter notebook (its nbformat version is not a whole number); {_what_to_do()}"
        )
    if data is not None and _cell_count(data) > MAX_CELLS:
        raise NotebookUnreadable(f"{name} holds more than {MAX_CELLS:,} cells; {_what_to_do()}")
    nb = data if _is_plain_v4(data) else None
    if nb is None:
        nbformat = _import_nbformat()
        try:  # nbformat sees only what grading reads: its cost is the cells', never the outputs' or metadata's
            nb = nbformat.reads(text if data is None else json.dumps(_for_nbformat(data)), as_version=4)
        except Exception as err:  # nbformat raises many kinds (JSON, schema, version)
            raise NotebookUnreadable(
                f"{name} is not a readable Jupyter notebook ({_why(err)}); {_what_to_do()}"
            ) from None
    shown_params, shown_learner = _display_copy(nb)
    return Submission(
        path=path,
        cells=_code_cells(nb, name),
        lesson_id=_lesson_id(nb),
        digest=hashlib.sha256(raw).hexdigest(),
        shown_params=shown_params,
        shown_learner=shown_learner,
    )


def _is_plain_v4(nb: Any) -> bool:
    """Whether the parsed file is plainly nbformat 4 with well-formed cells (what nbformat accepts unchanged).

    Anything else goes through nbformat, which upgrades older versions and words the error for broken files.
    This fast path spares a single ``grade`` nbformat's import and schema compilation (see bench/RESULTS.md).
    """
    if not (isinstance(nb, dict) and nb.get("nbformat") == 4 and type(nb.get("nbformat_minor")) is int):
        return False
    cells = nb.get("cells")
    if not isinstance(nb.get("metadata"), dict) or not isinstance(cells, list):
        return False
    for cell in cells:
        if not (
            isinstance(cell, dict)
            and isinstance(cell.get("cell_type"), str)
            and isinstance(cell.get("metadata", {}), dict)
        ):
            return False
        source = cell.get("source")
        if not (isinstance(source, str) or (isinstance(source, list) and all(isinstance(s, str) for s in source))):
            return False
    return True


def _cell_count(nb: dict[str, Any]) -> int:
    """The cells of a parsed notebook, nbformat 4's or 3's (in its worksheets, each counted as one too: an
    empty worksheet is still an object nbformat builds)."""
    cells = nb.get("cells")
    sheets = nb.get("worksheets")
    count = len(cells) if isinstance(cells, list) else 0
    if isinstance(sheets, list):
        count += sum(len(w["cells"]) for w in sheets if isinstance(w, dict) and isinstance(w.get("cells"), list))
        count += len(sheets)
    return count


def _for_nbformat(nb: dict[str, Any]) -> dict[str, Any]:
    """The part of a notebook off the fast path that nbformat needs to upgrade it and grading reads: the
    versions, the grader's metadata, and each cell's type, source, id and tags (nbformat 3's worksheets too).

    nbformat builds, deep-copies and validates everything it is given, in the batch's own process (no memory
    limit): 3.95 million ``{}`` in a notebook's metadata cost 13 s and 2.3 GB there, 1.8 million bogus outputs
    81 s and 2 GB (bench/RESULTS.md). Outputs and other metadata are never graded, so they are left out; what is
    left is a few small objects per cell, and at most :data:`MAX_CELLS` cells."""
    small: dict[str, Any] = {key: _scalar(nb.get(key)) for key in ("nbformat", "nbformat_minor") if key in nb}
    small["metadata"] = {"grader": _grader_metadata(nb)} if _grader_metadata(nb) else {}
    major = nb.get("nbformat")
    if "cells" in nb:
        small["cells"] = _cells_for_nbformat(nb["cells"], major)
    sheets = nb.get("worksheets")
    if isinstance(sheets, list):
        small["worksheets"] = [
            {"cells": _cells_for_nbformat(w.get("cells"), major), "metadata": {}} if isinstance(w, dict) else None
            for w in sheets
        ]
    return small


def _cells_for_nbformat(cells: Any, major: Any) -> Any:
    if not isinstance(cells, list):
        return _scalar(cells)
    return [_cell_for_nbformat(cell, major) if isinstance(cell, dict) else None for cell in cells]


def _cell_for_nbformat(cell: dict[str, Any], major: Any) -> dict[str, Any]:
    """One cell as nbformat needs it: scalars kept (type, id, nbformat 3's language and heading level), its
    source (and nbformat 3's input) as one text, its tags, and no outputs."""
    small: dict[str, Any] = {k: v for k, v in cell.items() if _scalar(v) is v and k not in _CELL_CONTAINERS}
    for key in ("source", "input"):
        if key in cell:
            small[key] = _text(cell[key], major)
    metadata = cell.get("metadata")
    tags = metadata.get("tags") if isinstance(metadata, dict) else None
    small["metadata"] = {"tags": tags} if isinstance(tags, list) and all(isinstance(t, str) for t in tags) else {}
    if cell.get("cell_type") == "code":
        small["outputs"] = []
        if "execution_count" in small or "prompt_number" not in cell:
            small["execution_count"] = None
    return small


#: A cell's fields that hold more than one value: never passed to nbformat as they are.
_CELL_CONTAINERS = frozenset({"source", "input", "metadata", "outputs", "attachments"})


def _scalar(value: Any) -> Any:
    """``value`` if it is one JSON scalar, else None (nbformat then says what is wrong)."""
    return value if value is None or isinstance(value, (str, int, float, bool)) else None


def _text(source: Any, major: Any) -> Any:
    """A source as one text when it is one or a list of texts, joined as nbformat joins it (version 4: as is;
    version 3: with newlines, unless its first line ends with one); an older version's list is left to nbformat;
    anything else None (the read then says it is not text). Each line would be an object nbformat validates."""
    if isinstance(source, str):
        return source
    if not (isinstance(source, list) and all(isinstance(part, str) for part in source)):
        return None
    if major == 4 or (major == 3 and source and source[0].endswith(("\n", "\r"))):
        return "".join(source)
    return "\n".join(source) if major == 3 else source


def _why(err: Exception) -> str:
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return first[:160]


def _what_to_do() -> str:
    return "open it in Jupyter, save it, and submit the saved .ipynb file."


def _code_cells(nb: Any, name: str) -> tuple[Cell, ...]:
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise NotebookUnreadable(f"{name} has no list of cells; {_what_to_do()}")
    out: list[Cell] = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(part) for part in source)
        if not isinstance(source, str):
            raise NotebookUnreadable(f"{name}: cell {index} has a source that is not text; {_what_to_do()}")
        metadata = cell.get("metadata")
        tags = metadata.get("tags") if isinstance(metadata, dict) else None
        tags = tags if isinstance(tags, list) else []
        out.append(Cell(index=index, source=source, skip=SKIP_TAG in tags))
    return tuple(out)


def _grader_metadata(nb: Any) -> dict[str, Any]:
    meta = nb.get("metadata")
    grader_meta = meta.get("grader") if isinstance(meta, dict) else None
    return grader_meta if isinstance(grader_meta, dict) else {}


def _lesson_id(nb: Any) -> str | None:
    lesson = _grader_metadata(nb).get("lesson")
    return lesson if isinstance(lesson, str) and lesson else None


def _display_copy(nb: Any) -> tuple[Params, str | None]:
    """The learner's numbers and identity the release wrote into the notebook: a display copy, never trusted."""
    meta = _grader_metadata(nb)
    learner = meta.get("learner")
    return from_mapping(meta.get("params")), learner[:200] if isinstance(learner, str) and learner else None
