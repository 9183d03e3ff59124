"""Gradescope: ``grade gradescope`` writes results.json per Gradescope's specification whatever it finds,
and the bundle built by ``grade gradescope-bundle`` grades an /autograder-like tree with the same scores as
``grade --json``."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.lessons import load_lesson
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED, run_grade
from tests.integration_support import MIX, reference_report, write_mix_notebook

SQUARES = ("--lessons", str(FIXTURE_LESSONS), "--lesson", "squares")
STATUSES = {"passed", "failed"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


def check_schema(results: dict[str, Any], lesson_id: str, lessons: Path | None = None) -> None:
    """results.json as Gradescope specifies it, with one test per question of the lesson, in order."""
    lesson = load_lesson(lesson_id, lessons)
    assert isinstance(results["score"], (int, float)) and isinstance(results["execution_time"], (int, float))
    assert isinstance(results["output"], str) and results["output"]
    assert results.get("visibility", "visible") in VISIBILITIES
    tests = results["tests"]
    assert [t["number"] for t in tests] == [str(i) for i in range(1, len(lesson.questions) + 1)]
    for test, q in zip(tests, lesson.questions, strict=False):
        assert set(test) == {"name", "number", "score", "max_score", "status", "output", "visibility"}
        assert test["name"].startswith(q.id) and (not q.title or q.title in test["name"])
        assert test["max_score"] == q.points and 0 <= test["score"] <= test["max_score"]
        assert test["status"] in STATUSES and (test["status"] == "passed") == (test["score"] == test["max_score"] > 0)
        assert isinstance(test["output"], str) and test["visibility"] in VISIBILITIES
    assert results["score"] == pytest.approx(sum(t["score"] for t in tests))


def gradescope(root: Path, *extra: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``grade gradescope`` on ``root`` and return the results.json it wrote."""
    result = subprocess.run(
        ["grade", "gradescope", *extra], capture_output=True, text=True, cwd=REPO, timeout=180, env=env
    )
    assert result.returncode == 0, result.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def per_question(results: dict[str, Any]) -> dict[str, float]:
    return {t["name"].split(":")[0]: t["score"] for t in results["tests"]}


@pytest.fixture
def submit(tmp_path: Path, write_notebook: Callable[..., Path]) -> Callable[..., Path]:
    """Put fixture notebooks into ``tmp/autograder/submission``; returns the root."""
    root = tmp_path / "autograder"

    def put(*notebooks: tuple[str, list[Any]]) -> Path:
        (root / "submission").mkdir(parents=True, exist_ok=True)
        for name, cells in notebooks:
            target = root / "submission" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            write_notebook(cells, name=Path(name).name).replace(target)
        return root

    return put


def test_a_graded_notebook_gives_one_test_per_question_with_grades_scores(submit: Callable[..., Path]) -> None:
    wrong = [SQUARES_SOLVED[0], "def square(x):\n    return x + x", SQUARES_SOLVED[2]]
    root = submit(("answers.ipynb", wrong))
    results = gradescope(root, "--root", str(root), *SQUARES)
    check_schema(results, "squares", FIXTURE_LESSONS)
    assert per_question(results) == {"answer_even": 1.0, "square": 0.0, "sum_of_squares": 2.0}
    square = results["tests"][1]
    assert square["status"] == "failed" and "square(3) returned 6" in square["output"]
    assert results["tests"][0]["status"] == "passed" and results["score"] == 3.0
    same = json.loads(run_grade(str(root / "submission" / "answers.ipynb"), "--json", *SQUARES).stdout)
    assert per_question(results) == {q["id"]: q["score"] for q in same["questions"]}


def test_the_root_can_come_from_the_environment_and_checkpoints_are_ignored(submit: Callable[..., Path]) -> None:
    root = submit(("work/answers.ipynb", SQUARES_SOLVED), (".ipynb_checkpoints/answers-checkpoint.ipynb", []))
    results = gradescope(root, *SQUARES, env={**os.environ, "AUTOGRADER_ROOT": str(root)})
    assert results["score"] == 5.0 and {t["status"] for t in results["tests"]} == {"passed"}


@pytest.mark.parametrize(
    "notebooks, reason",
    [
        ((), "No notebook"),
        ((("a.ipynb", SQUARES_SOLVED), ("b.ipynb", SQUARES_SOLVED)), "2 notebooks (a.ipynb, b.ipynb)"),
    ],
    ids=["none", "several"],
)
def test_zero_or_several_notebooks_score_zero_with_a_message(
    submit: Callable[..., Path], notebooks: tuple[Any, ...], reason: str
) -> None:
    root = submit(*notebooks)
    results = gradescope(root, "--root", str(root), *SQUARES)
    check_schema(results, "squares", FIXTURE_LESSONS)
    assert results["score"] == 0 and reason in results["output"]
    assert all(t["score"] == 0 and t["status"] == "failed" and reason in t["output"] for t in results["tests"])


def test_an_unreadable_notebook_scores_zero_with_the_reason(tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "broken.ipynb").write_text("{ this is not json")
    results = gradescope(root, "--root", str(root), *SQUARES)
    check_schema(results, "squares", FIXTURE_LESSONS)
    assert results["score"] == 0 and "broken.ipynb is not a readable Jupyter notebook" in results["output"]


@pytest.mark.slow
def test_a_notebook_that_runs_out_of_time_scores_zero_with_the_reason(submit: Callable[..., Path]) -> None:
    root = submit(("loops.ipynb", [SQUARES_SOLVED[0], "while True:\n    pass"]))
    results = gradescope(root, "--root", str(root), *SQUARES, "--timeout", "2")
    check_schema(results, "squares", FIXTURE_LESSONS)
    assert results["score"] == 0 and "longer than 2 s" in results["output"]
    assert all("longer than 2 s" in t["output"] for t in results["tests"])


def test_without_a_lesson_a_missing_notebook_still_gives_valid_results(tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    results = gradescope(root, "--root", str(root))
    assert results["score"] == 0 and results["tests"] == [] and "No notebook" in results["output"]


# -- the bundle -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    result = run_grade("gradescope-bundle", "--lesson", "decode", "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_the_bundle_holds_the_scripts_the_package_and_only_this_lesson(bundle: Path) -> None:
    with zipfile.ZipFile(bundle) as zf:
        names = set(zf.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
        scripts = {n: zf.read(n).decode() for n in ("setup.sh", "run_autograder")}
    for name in (
        "pyproject.toml",
        "README.md",
        "grader/cli.py",
        "grader/suites/pytest.ini",
        "exercises/decode/lesson.toml",
        "solutions/decode.ipynb",
    ):
        assert name in names, name
    assert any(n.startswith("exercises/decode/suites/test_") for n in names)
    assert {n.split("/")[0] for n in names} == {
        "setup.sh",
        "run_autograder",
        "pyproject.toml",
        "README.md",
        "grader",
        "exercises",
        "solutions",
    }
    assert all(n.startswith("exercises/decode/") for n in names if n.startswith("exercises/"))
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    for name, text in scripts.items():
        assert text.startswith("#!/usr/bin/env bash\n") and modes[name] & stat.S_IXUSR, name
        assert subprocess.run(["bash", "-n", "-c", text], capture_output=True).returncode == 0, name
    assert "pip install" in scripts["setup.sh"] and "gradescope --root" in scripts["run_autograder"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", MIX)
def test_run_autograder_gives_the_scores_of_grade_json(bundle: Path, tmp_path: Path, kind: str) -> None:
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):  # zipfile does not restore permissions; Gradescope does
        (root / "source" / name).chmod(0o755)
    write_mix_notebook(kind, root / "submission" / "decode.ipynb")
    env = {k: v for k, v in os.environ.items() if k != "GRADER_LESSONS"} | {"AUTOGRADER_ROOT": str(root)}
    run = subprocess.run(
        [str(root / "source" / "run_autograder")], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
    )
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    check_schema(results, "decode")
    expected = reference_report(kind)
    assert per_question(results) == {q["id"]: q["score"] for q in expected["questions"]}
    assert results["score"] == expected["score"]
    assert [t["output"].splitlines() for t in results["tests"]] == [q["feedback"] for q in expected["questions"]]
