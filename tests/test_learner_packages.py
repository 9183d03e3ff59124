"""What the learner install gives notebooks to import is importable when grading, or named as the grading
machine's missing package (never the learner's lost point); and its versions decide when a grade is stale."""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from grader.batch.fingerprint import grading_fingerprint
from grader.batch.gradebook import Latest
from grader.batch.model import Row
from grader.batch.regrade import why_regrade
from grader.batch.run import _missing_packages
from grader.config import LEARNER_MODULES
from grader.grader import grade_notebook
from grader.model import CellError, Execution, TestOutcome
from grader.pipeline import MISSING_PACKAGE, GradeOptions, missing_on_machine
from grader.staleness import PACKAGES, importable_packages
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ABSENT = "gradertest_absent_module"


def _raised(evalue: str, ename: str = "ModuleNotFoundError") -> Execution:
    return Execution(cell_errors=(CellError(1, ename, evalue, "import it"),))


def test_a_module_the_learner_install_gives_and_this_machine_lacks_is_the_machines_fault() -> None:
    provided = {ABSENT: "gradertest-absent", "pytest": "pytest"}
    said = missing_on_machine(_raised(f"No module named '{ABSENT}'"), provided=provided)
    assert said is not None and said.startswith(f"{MISSING_PACKAGE}gradertest-absent on the grading machine")
    assert "python3 -m pip install gradertest-absent" in said and "not an error of this notebook" in said
    assert missing_on_machine(_raised("No module named 'pytest'"), provided=provided) is None  # it is here
    assert missing_on_machine(_raised(f"No module named '{ABSENT}.sub'"), provided=provided) is None  # a typo's
    assert missing_on_machine(_raised("No module named 'torch'"), provided=provided) is None  # not the course's
    assert missing_on_machine(_raised(f"No module named '{ABSENT}'", "ValueError"), provided=provided) is None
    call = TestOutcome("q", "t", 1, "failed", f"f(1) raised ModuleNotFoundError: No module named '{ABSENT}'")
    assert missing_on_machine(Execution(), (call,), provided) is not None  # imported inside a learner function


@pytest.mark.slow
def test_a_right_notebook_importing_a_missing_learner_module_is_not_graded_rather_than_scored(
    write_notebook: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_notebook([f"import {ABSENT}", *SQUARES_SOLVED])
    options = GradeOptions(lessons_root=FIXTURE_LESSONS)
    scored = grade_notebook(path, options)  # a module the course does not give: the learner's error, as before
    assert scored.status == "graded" and any(f"No module named '{ABSENT}'" in e for e in scored.errors)
    monkeypatch.setitem(LEARNER_MODULES, ABSENT, "gradertest-absent")
    report = grade_notebook(path, options)
    assert report.status == "crashed" and report.score == 0
    assert any(e.startswith(f"{MISSING_PACKAGE}gradertest-absent on the grading machine") for e in report.errors)


def test_a_batch_tells_the_teaching_assistant_what_to_install() -> None:
    reason = missing_on_machine(_raised(f"No module named '{ABSENT}'"), provided={ABSENT: "gradertest-absent"})
    assert reason is not None
    rows = [Row(who, f"{who}.ipynb", "crashed", reason, None) for who in ("ada", "bob")]
    (note,) = _missing_packages([*rows, Row("cy", "cy.ipynb", "crashed", "the worker died", None)])
    assert note.startswith("2 not graded because this machine lacks gradertest-absent") and "(ada, bob)" in note
    assert "python3 -m pip install gradertest-absent" in note


def test_the_packages_notebooks_may_import_are_part_of_what_a_grade_depends_on() -> None:
    assert importable_packages({"a": "pytest", "b": "gradertest-absent"}) == (
        f"gradertest-absent absent, pytest {metadata.version('pytest')}"
    )
    now = grading_fingerprint(GradeOptions(), "suites-1")
    assert now[PACKAGES] == importable_packages() and f"numpy {metadata.version('numpy')}" in now[PACKAGES]
    before = {**now, PACKAGES: now[PACKAGES].replace(f"numpy {metadata.version('numpy')}", "numpy absent")}
    why = why_regrade(Latest("d", "suites-1", "graded", before), "d", "suites-1", now)
    numpy = metadata.version("numpy")
    assert why == f"the packages notebooks may import changed where they are graded (now numpy {numpy})"


def test_the_table_of_learner_modules_is_what_the_learner_install_gives() -> None:
    """Each distribution of the table comes with the learner extra (itself or what it requires, as installed
    here); the learner extra's importable libraries are all in it; and numpy, what learners compute with, is
    also in the grading install, so a right notebook that imports it grades after `pip install .`."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    learner = {canonicalize_name(Requirement(r).name) for r in project["optional-dependencies"]["learner"]}
    given = set(learner)
    todo = list(learner)
    while todo:
        for line in metadata.requires(todo.pop()) or ():
            requirement = Requirement(line)
            name = canonicalize_name(requirement.name)
            if name not in given and (requirement.marker is None or requirement.marker.evaluate({"extra": ""})):
                given.add(name)
                todo.append(name)
    assert {canonicalize_name(d) for d in LEARNER_MODULES.values()} <= given
    assert learner - {"jupyterlab", "ipykernel"} <= {canonicalize_name(d) for d in LEARNER_MODULES.values()}
    assert "numpy" in {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
