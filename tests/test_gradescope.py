"""Gradescope: ``grade gradescope`` writes results.json per Gradescope's specification whatever it finds,
and the bundle built by ``grade gradescope-bundle`` grades an /autograder-like tree with the same scores as
``grade --json``."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from grader.errors import LessonError
from grader.integrations.constraints import pinned, runtime_requirements
from grader.integrations.gradescope import question_output, results_from_report
from grader.integrations.gradescope_bundle import bundle_files
from grader.lessons import load_lesson
from grader.model import QuestionResult, Report
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
        assert set(test) == {"name", "number", "score", "max_score", "status", "output", "output_format", "visibility"}
        assert test["output_format"] == "md"
        assert test["name"].startswith(q.id) and (not q.title or q.title in test["name"])
        assert test["max_score"] == q.points and 0 <= test["score"] <= test["max_score"]
        assert test["status"] in STATUSES and (test["status"] == "passed") == (test["score"] == test["max_score"] > 0)
        assert isinstance(test["output"], str) and test["visibility"] in VISIBILITIES
    assert results["score"] == pytest.approx(sum(t["score"] for t in tests))
    assert results["output_format"] == "md"


def gradescope(root: Path, *extra: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``grade gradescope`` on ``root`` and return the results.json it wrote."""
    result = subprocess.run(
        ["grade", "gradescope", *extra], capture_output=True, text=True, cwd=REPO, timeout=180, env=env
    )
    assert result.returncode == 0, result.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def question(q: dict[str, Any]) -> QuestionResult:
    """A question of ``grade --json``'s output as the result it was made from."""
    return QuestionResult(q["id"], q["score"], q["max_score"], q["status"], tuple(q["feedback"]))


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


@pytest.mark.slow  # about 3 s: two graders in processes of their own
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
        "constraints.txt",
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
    assert [t["output"] for t in results["tests"]] == [question_output(question(q)) for q in expected["questions"]]


# -- results.json: Markdown, partial credit ----------------------------------------------------------------------


def test_feedback_renders_as_markdown_and_partial_credit_is_said() -> None:
    """Gradescope renders ``md`` outputs: the feedback's code spans render, the learner's words stay text, and a
    question partly earned says so (its spec has only "passed" and "failed": a part is not a pass)."""
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    questions = (
        QuestionResult("answer_even", 1.0, 1.0, "passed", ("Right.",)),
        QuestionResult("square", 1.0, 2.0, "partial", ("`square(-2)` returned `<b>-4</b>`", "*not* squared")),
        QuestionResult("sum_of_squares", 0.0, 2.0, "failed", ("`sum_of_squares([])` raised",)),
    )
    report = Report("squares", "answers.ipynb", 2.0, 5.0, questions)
    results = results_from_report(report, lesson, 1.0)
    check_schema(results, "squares", FIXTURE_LESSONS)
    passed, partly, failed = results["tests"]
    assert partly["status"] == "failed" and partly["name"] == "square (partial credit: 1 / 2)"
    assert partly["output"] == (
        "**Partly earned: 1 of 2 points.**\n\n`square(-2)` returned `<b>-4</b>`\n\n\\*not\\* squared"
    )
    assert "partial" not in passed["name"] + failed["name"] and not failed["output"].startswith("**Partly")
    assert passed["status"] == "passed" and failed["status"] == "failed"


# -- the bundle's setup.sh and constraints -------------------------------------------------------------------------

_FAKE_PYTHON = """#!/bin/bash
echo "python3 $*" >> "$LOG"
if [ "$1" = "-c" ]; then
    case "$2" in
        *ensurepip*) [ -e "$FIXED" ] ;;
        *) exit 0 ;;
    esac
    exit $?
fi
if [ "$1 $2" = "-m venv" ]; then
    mkdir -p "$3/bin"
    printf '#!/bin/bash\\necho "venv-python $*" >> "$LOG"\\n' > "$3/bin/python"
    chmod +x "$3/bin/python"
fi
"""
_FAKE_APT = """#!/bin/bash
echo "apt-get $*" >> "$LOG"
[ "$1" = "install" ] && touch "$FIXED"
exit 0
"""


def run_setup(bundle: Path, tmp_path: Path, ensurepip: bool) -> list[str]:
    """Run the bundle's setup.sh with a fake python3 (with or without ensurepip) and apt-get; the calls made."""
    source = tmp_path / "source"
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(source)
    shims = tmp_path / "bin"
    shims.mkdir()
    for name, text in (("python3", _FAKE_PYTHON), ("apt-get", _FAKE_APT)):
        (shims / name).write_text(text)
        (shims / name).chmod(0o755)
    log, fixed = tmp_path / "calls.log", tmp_path / "ensurepip-installed"
    if ensurepip:
        fixed.touch()
    env = {
        "PATH": f"{shims}:/usr/bin:/bin",
        "LOG": str(log),
        "FIXED": str(fixed),
        "GRADER_VENV": str(tmp_path / "venv"),
        "HOME": str(tmp_path),
    }
    run = subprocess.run(["bash", str(source / "setup.sh")], capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0, run.stderr
    return log.read_text().splitlines()


def test_setup_installs_python3_venv_when_ensurepip_is_missing(bundle: Path, tmp_path: Path) -> None:
    """``python3 -m venv --help`` passes on Ubuntu without python3-venv; only ensurepip missing tells."""
    calls = run_setup(bundle, tmp_path, ensurepip=False)
    installs = [c for c in calls if c.startswith("apt-get install")]
    assert "apt-get update" in calls and len(installs) == 1 and "python3-venv" in installs[0].split()
    assert calls.index(installs[0]) < next(i for i, c in enumerate(calls) if c.startswith("python3 -m venv"))
    pip = [c for c in calls if c.startswith("venv-python -m pip install")]
    assert pip and all("-c constraints.txt" in c for c in pip), pip
    assert any(c.endswith("-e .") for c in pip)


def test_setup_leaves_apt_alone_when_python_can_make_a_venv(bundle: Path, tmp_path: Path) -> None:
    calls = run_setup(bundle, tmp_path, ensurepip=True)
    assert not any(c.startswith("apt-get") for c in calls), calls
    assert f"python3 -m venv {tmp_path / 'venv'}" in calls


def test_the_bundle_pins_every_runtime_dependency_at_the_version_that_built_it(bundle: Path) -> None:
    with zipfile.ZipFile(bundle) as zf:
        text = zf.read("constraints.txt").decode()
    pins = dict(line.split("==") for line in text.splitlines() if line and not line.startswith("#"))
    for name in ("pytest", "hypothesis", "ipython", "nbformat", "pluggy", "iniconfig", "traitlets"):  # some via others
        assert pins[name] == metadata.version(name), name
    assert pins == {**pinned(runtime_requirements(REPO / "pyproject.toml")), "pip": metadata.version("pip")}
    assert all(pins[name] == metadata.version(name) for name in pins)


# -- the bundle keeps the answers from the learner's worker ------------------------------------------------------

#: What the bundle holds that the learner's worker must not read, and what it must (it imports ``grader``).
PRIVATE = (
    "solutions/decode.ipynb",
    "exercises/decode/lesson.toml",
    "exercises/decode/suites",
    ".grader-cache/examples",
)
OPEN = ("grader/__init__.py", "grader/suites/pytest.ini")
OTHER_UID = 1_900_000_777  # as the worker at the process level: a uid of its own, in no group


def readable_by_another_user(path: Path) -> bool:
    """Whether a uid that is not the owner's can read ``path`` (list it, if a folder): tried as that uid when the
    tests run as root, else read off the modes of ``path`` and of every folder above it."""
    if os.geteuid() == 0:
        reader = ["ls", "--", str(path)] if path.is_dir() else ["cat", "--", str(path)]
        argv = ["setpriv", f"--reuid={OTHER_UID}", f"--regid={OTHER_UID}", "--clear-groups", *reader]
        return subprocess.run(argv, capture_output=True, timeout=30).returncode == 0
    folders_enterable = all(p.stat().st_mode & stat.S_IXOTH for p in path.parents)
    wanted = stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0)
    return folders_enterable and path.stat().st_mode & wanted == wanted


@pytest.mark.slow
def test_run_autograder_closes_the_solution_suites_and_cache_to_the_workers_uid(bundle: Path) -> None:
    """Gradescope's worker runs at the process level as a uid of its own, which reads what every user may: before
    grading, the solution, the lesson folder (suites) and the kept examples must be closed to it, ``grader/``
    left open (it is imported there). Unzipped world-readable, as unzip makes the folders it creates."""
    scratch = Path(tempfile.mkdtemp(prefix="gs-private-"))  # not under pytest's 0700 folder: reachable by all
    try:
        scratch.chmod(0o755)
        source = scratch / "source"
        with zipfile.ZipFile(bundle) as zf:
            zf.extractall(source)
        examples = source / ".grader-cache" / "examples"
        examples.mkdir(parents=True)
        (examples / "decode-0.json").write_text("{}")  # as setup.sh's grade of the solution leaves it
        for path in sorted(source.rglob("*"), reverse=True):
            path.chmod(0o755 if path.is_dir() or path.name in ("setup.sh", "run_autograder") else 0o644)
        assert all(readable_by_another_user(source / name) for name in PRIVATE + OPEN)  # the test can fail
        env = {k: v for k, v in os.environ.items() if k not in ("GRADER_LESSONS", "GRADER_CACHE_DIR")}
        run = subprocess.run(
            [str(source / "run_autograder")],
            capture_output=True,
            text=True,
            env=env | {"AUTOGRADER_ROOT": str(scratch)},
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        assert "No notebook" in json.loads((scratch / "results" / "results.json").read_text())["output"]
        leaked = [name for name in PRIVATE if readable_by_another_user(source / name)]
        assert not leaked, f"the learner's worker could read {leaked}"
        assert all(readable_by_another_user(source / name) for name in OPEN)
    finally:
        shutil.rmtree(scratch)


def test_the_bundle_keeps_no_answers_in_what_the_worker_may_read(bundle: Path) -> None:
    """``grader/`` stays readable to the worker: it must hold no solution, suite, lesson or secret."""
    with zipfile.ZipFile(bundle) as zf:
        infos = zf.infolist()
    opened = [i.filename for i in infos if i.filename.startswith("grader/")]
    assert opened and not [n for n in opened if n.endswith((".ipynb", ".json", ".toml")) or "/suites/test_" in n]
    private = [i for i in infos if i.filename.startswith(("exercises/", "solutions/"))]
    assert private and all(i.external_attr >> 16 & 0o077 == 0 for i in private)


def test_a_solution_placed_in_the_grader_package_is_refused(tmp_path: Path) -> None:
    """``grader/`` stays readable to the worker, so nothing of a lesson may land there in the zip."""
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    solution = lesson.root.parent.parent / "grader" / "squares.ipynb"
    with pytest.raises(LessonError, match="learner code may read"):
        bundle_files(dataclasses.replace(lesson, solution=solution), package_root=tmp_path)


def test_a_copy_vendored_inside_another_package_is_not_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """setuptools puts its ``_vendor`` folder on ``sys.path`` once imported; its tomli is not installed for pip.
    The bundle's pins were then those of whichever tests had run before in the same process (seen under -n 2)."""
    import setuptools

    from grader.integrations.constraints import constraints_text

    vendor = Path(setuptools.__file__).parent / "_vendor"
    assert any(vendor.glob("tomli-*.dist-info")), "this setuptools vendors no tomli: the test would prove nothing"
    monkeypatch.syspath_prepend(str(vendor))
    pins = constraints_text((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert ("tomli==" in pins) == (sys.version_info < (3, 11))  # a real dependency only before 3.11
