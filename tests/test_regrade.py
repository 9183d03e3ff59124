"""Regrade what changed, and only that: a changed grading option regrades and says so; ``--only``; one notebook."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.batch.fingerprint import grading_fingerprint
from grader.batch.gradebook import Latest
from grader.batch.regrade import why_regrade
from grader.config import DEFAULT_LIMITS, DEFAULT_MODE
from tests.batch_support import LESSONS, WRONG_SQUARE, batch, grades, write_nb
from tests.conftest import SQUARES_SOLVED

SLOW = [SQUARES_SOLVED[0], "import time\ntime.sleep(4)", *SQUARES_SOLVED[1:]]


def test_every_option_that_can_change_a_score_is_in_the_fingerprint() -> None:
    now = grading_fingerprint(DEFAULT_LIMITS, DEFAULT_MODE, "suites-1")
    assert {"lesson", "grader", "isolation", "kernel", "timeout", "call_timeout", "memory_mb"} <= set(now)
    stored = Latest("d", "suites-1", "graded", dict(now))
    assert why_regrade(stored, "d", "suites-1", now) is None
    assert why_regrade(stored, "d", "suites-1", {**now, "timeout": "60"}) == "--timeout changed from 30 to 60 s"
    assert why_regrade(stored, "d", "suites-1", {**now, "kernel": "on"}) == "--kernel changed from off to on"
    assert why_regrade(stored, "d", "suites-1", {**now, "grader": "9.9"}).startswith("the grader changed from version")  # type: ignore[union-attr]
    assert why_regrade(stored, "other", "suites-1", now) == "their notebook changed"
    assert "lesson" in (why_regrade(stored, "d", "suites-2", now) or "")
    assert why_regrade(Latest("d", "suites-1", "crashed", dict(now)), "d", "suites-1", now) is not None
    assert why_regrade(None, "d", "suites-1", now) == "new"


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
