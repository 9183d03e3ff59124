"""Regrade what changed, and only that: a changed grading option or a change to the grader's code regrades and
says so; ``--only``; one notebook."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import Field, fields, replace
from pathlib import Path

import pytest

from grader.batch.fingerprint import grading_fingerprint
from grader.batch.gradebook import Latest
from grader.batch.regrade import why_regrade
from grader.codehash import PACKAGE, source_hash
from grader.config import AFFECTS_SCORE, DEFAULT_LIMITS, Limits, WorkerMode
from grader.pipeline import GradeOptions
from tests.batch_support import LESSONS, WRONG_SQUARE, batch, grades, write_nb
from tests.conftest import REPO, SQUARES_SOLVED

SLOW = [SQUARES_SOLVED[0], "import time\ntime.sleep(4)", *SQUARES_SOLVED[1:]]


def test_every_option_that_can_change_a_score_is_in_the_fingerprint() -> None:
    now = grading_fingerprint(GradeOptions(), "suites-1")
    assert {"lesson", "grader", "isolation", "kernel", "timeout", "call_timeout", "memory_mb"} <= set(now)
    assert now["grader"] == source_hash()
    stored = Latest("d", "suites-1", "graded", dict(now))
    assert why_regrade(stored, "d", "suites-1", now) is None
    assert why_regrade(stored, "d", "suites-1", {**now, "timeout": "60"}) == "--timeout changed from 30 to 60 s"
    assert why_regrade(stored, "d", "suites-1", {**now, "kernel": "on"}) == "--kernel changed from off to on"
    assert why_regrade(stored, "d", "suites-1", {**now, "grader": "0.1.0"}) == "the grader's code changed"
    assert why_regrade(stored, "other", "suites-1", now) == "their notebook changed"
    assert "lesson" in (why_regrade(stored, "d", "suites-2", now) or "")
    assert why_regrade(Latest("d", "suites-1", "crashed", dict(now)), "d", "suites-1", now) is not None
    assert why_regrade(None, "d", "suites-1", now) == "new"


@pytest.mark.parametrize("options", [Limits, WorkerMode, GradeOptions])
def test_every_option_says_whether_it_can_change_a_score(options: type) -> None:
    """A new limit or option must be classified: else a change to it could leave stale grades standing."""
    unclassified = [f.name for f in fields(options) if AFFECTS_SCORE not in f.metadata]
    assert not unclassified, f"{options.__name__}: say option(..., affects_score=...) for {unclassified}"


@pytest.mark.parametrize("limit", [f for f in fields(Limits)], ids=lambda f: f.name)
def test_a_change_to_any_score_changing_limit_regrades_and_names_it(limit: Field[float]) -> None:
    before = grading_fingerprint(GradeOptions(), "suites-1")
    changed = replace(DEFAULT_LIMITS, **{limit.name: getattr(DEFAULT_LIMITS, limit.name) * 2})
    now = grading_fingerprint(GradeOptions(limits=changed), "suites-1")
    why = why_regrade(Latest("d", "suites-1", "graded", before), "d", "suites-1", now)
    if limit.metadata[AFFECTS_SCORE]:
        assert why is not None and limit.name.replace("_", " ") in why.replace("_", " ").replace("--", ""), why
    else:
        assert why is None and now == before  # only bounds what is kept of the output: no regrade


def test_a_mode_change_regrades() -> None:
    before = grading_fingerprint(GradeOptions(), "suites-1")
    now = grading_fingerprint(GradeOptions(mode=WorkerMode(kernel=True)), "suites-1")
    assert (
        why_regrade(Latest("d", "suites-1", "graded", before), "d", "suites-1", now)
        == "--kernel changed from off to on"
    )


def test_the_source_hash_follows_content_not_file_times(tmp_path: Path) -> None:
    copy = tmp_path / "grader"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    first = source_hash(copy)
    assert first == source_hash(PACKAGE)
    os.utime(copy / "score.py", (1, 1))
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "score.cpython-311.pyc").write_bytes(b"cache")
    assert source_hash(copy) == first
    (copy / "score.py").write_text((copy / "score.py").read_text() + "# a fix\n")
    assert source_hash(copy) != first


def _hash_as_rglob_read_it(package: Path) -> str:
    """The source hash as it was first written, with ``Path.rglob``: every gradebook before it holds this value."""
    h = hashlib.sha256()
    files = []
    for path in package.rglob("*"):
        parts = path.relative_to(package).parts
        if path.is_file() and not path.name.endswith((".pyc", ".pyo")):
            if "__pycache__" not in parts and not any(p.startswith(".") for p in parts):
                files.append(path)
    for path in sorted(files):
        h.update(f"{path.relative_to(package).as_posix()}\0".encode())
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def test_the_source_hash_is_the_one_gradebooks_hold(tmp_path: Path) -> None:
    """The hash reads the package with ``os.scandir`` (the warm client pays it on every ``grade``), and must give what
    ``Path.rglob`` gave, or every graded notebook would be regraded once: the same files (hidden ones, caches,
    bytecode and a link to a folder left out) in the same order, where a name sorts before its own folder's
    contents and "a-b" after "a" though "-" sorts before "/"."""
    package = tmp_path / "pkg"
    for name in ("a/x.py", "a-b/x.py", "a.py", "ab", "b/c/d.txt", ".hidden/x.py", "b/.h.py", "b/__pycache__/m.pyc",
                 "b/m.pyc", "__pycache__", "z/__pycache__/x.py", "é.py"):  # fmt: skip
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(name)
    (package / "linked").symlink_to(package / "b", target_is_directory=True)
    (package / "file-link.py").symlink_to(package / "a.py")
    assert source_hash(package) == _hash_as_rglob_read_it(package)
    assert source_hash(PACKAGE) == _hash_as_rglob_read_it(Path(PACKAGE))
    (package / "a-b" / "x.py").write_text("changed")
    assert source_hash(package) == _hash_as_rglob_read_it(package)


@pytest.fixture
def grader_copy() -> Iterator[Path]:
    """A copy of the grader package that a test may edit, readable by a worker running as another user."""
    where = Path(tempfile.mkdtemp(prefix="grader-copy-"))
    try:
        where.chmod(0o755)
        shutil.copytree(PACKAGE, where / "grader", ignore=shutil.ignore_patterns("__pycache__"))
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _batch_with(code: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real ``grade batch``, running the grader in ``code``."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    return subprocess.run(["grade", "batch", *args], capture_output=True, text=True, cwd=REPO, env=env, timeout=300)


@pytest.mark.slow
def test_a_change_to_the_graders_code_or_a_limit_regrades_and_says_why(tmp_path: Path, grader_copy: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "results"
    write_nb(subs / "ada.ipynb", SQUARES_SOLVED)
    write_nb(subs / "sam.ipynb", WRONG_SQUARE)
    args = (str(subs), "--out", str(out), *LESSONS)
    first = _batch_with(grader_copy, *args)
    assert first.returncode == 0, first.stderr
    assert "0 graded now, 2 unchanged and kept" in _batch_with(grader_copy, *args).stdout
    config = grader_copy / "grader" / "config.py"
    text = config.read_text(encoding="utf-8")
    assert "max_call_depth: int = option(8, " in text
    config.write_text(text.replace("max_call_depth: int = option(8, ", "max_call_depth: int = option(16, "))
    deeper = _batch_with(grader_copy, *args)
    assert deeper.returncode == 0, deeper.stderr
    assert "2 graded now" in deeper.stdout, deeper.stdout
    assert "2 regraded because the grader's code changed and the max_call_depth limit changed from 8 to 16" in (
        deeper.stdout
    )
    score = grader_copy / "grader" / "score.py"
    score.write_text(score.read_text(encoding="utf-8") + "# a fix to the grader\n", encoding="utf-8")
    fixed = _batch_with(grader_copy, *args)
    assert fixed.returncode == 0, fixed.stderr
    assert "2 regraded because the grader's code changed\n" in fixed.stdout + "\n", fixed.stdout
    assert grades(out)["ada"]["score"] == "5" and grades(out)["sam"]["score"] == "3"


@pytest.mark.slow
def test_a_changed_timeout_regrades_and_says_so(tmp_path: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "results"
    write_nb(subs / "ada.ipynb", SQUARES_SOLVED)
    write_nb(subs / "sam.ipynb", SLOW)
    short = batch(str(subs), "--out", str(out), *LESSONS, "--timeout", "2")
    assert short.returncode == 0 and grades(out)["sam"]["status"] == "timed-out"
    kept = batch(str(subs), "--out", str(out), *LESSONS, "--timeout", "2")
    assert "0 graded now, 2 unchanged and kept" in kept.stdout
    longer = batch(str(subs), "--out", str(out), *LESSONS, "--timeout", "20")
    assert longer.returncode == 0, longer.stderr
    assert (
        "2 graded now, 0 unchanged" in longer.stdout
        and "2 regraded because --timeout changed from 2 to 20 s" in longer.stdout
    )
    assert grades(out)["sam"]["status"] == "graded" and grades(out)["sam"]["score"] == "5"


@pytest.mark.slow
def test_only_regrades_the_named_learners_and_one_notebook_regrades_its_learner(tmp_path: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "results"
    for name in ("ada", "bob", "cy"):
        write_nb(subs / f"{name}.ipynb", WRONG_SQUARE)
    args = (str(subs), "--out", str(out), *LESSONS)
    assert batch(*args).returncode == 0
    write_nb(subs / "bob.ipynb", SQUARES_SOLVED)  # bob and cy were given an extension and resubmitted
    write_nb(subs / "cy.ipynb", SQUARES_SOLVED)
    only = batch(*args, "--only", "bob")
    assert only.returncode == 0, only.stderr
    assert "1 graded now, 2 unchanged and kept" in only.stdout and "1 regraded because --only named them" in only.stdout
    rows = grades(out)
    assert (rows["bob"]["score"], rows["cy"]["score"], rows["ada"]["score"]) == ("5", "3", "3")  # cy is kept as asked
    unknown = batch(*args, "--only", "zed")
    assert unknown.returncode == 2 and "zed" in unknown.stderr
    alone = batch(str(subs / "cy.ipynb"), "--out", str(out), *LESSONS)
    assert alone.returncode == 0, alone.stderr
    assert (
        "3 submissions (one notebook): 1 graded now" in alone.stdout and "did not finish" not in alone.stdout
    )  # the refused run never started
    rows = grades(out)
    assert sorted(rows) == ["ada", "bob", "cy"] and rows["cy"]["score"] == "5"  # the class is kept, cy regraded
    assert sorted(p.name for p in (out / "feedback").glob("*.html")) == ["ada.html", "bob.html", "cy.html"]
