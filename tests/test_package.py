"""The package grades when installed from its wheel or sdist, not only from a git checkout.

An editable install hides what a built package leaves out (``grader/suites/pytest.ini`` was missing from the
wheel: every suite session failed to start, and the lesson was blamed). Here the sdist is built from the
package's own files, the wheel from the unpacked sdist (what pip does with an sdist), and the wheel is
installed into a fresh virtual environment; then that environment's ``grade`` grades the solution and a small
batch in a copy of the course folder, with no checkout importable: no ``PYTHONPATH``, a folder outside the
repository, and ``grader`` imported from the environment (checked).

The dependencies are this interpreter's, not downloaded: the environment's site-packages holds a ``.pth``
line naming this interpreter's site-packages folders. A path in a ``.pth`` file is added to ``sys.path`` without its
own ``.pth`` files being run, so the editable install's import hook there (which maps ``grader`` to a
checkout) stays inactive; the test checks that too.
"""

from __future__ import annotations

import json
import shutil
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.package_support import IGNORED, Installed, install, ok, run

pytestmark = pytest.mark.slow

#: What a learner's folder of a course holds besides the lessons' definitions: their notebooks and solutions.
COURSE = ("exercises", "notebooks", "solutions")
#: A small batch: full marks, some marks, and a file that is not a notebook.
BATCH = ("ada.ipynb", "grace.ipynb", "barbara.ipynb")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return install(tmp_path_factory.mktemp("package"))


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A copy of the course folder, outside the repository: its lessons, notebooks, solutions and a few submissions."""
    folder = tmp_path / "course"
    for name in COURSE:
        shutil.copytree(REPO / name, folder / name, ignore=IGNORED)
    (folder / "submissions").mkdir()
    for name in BATCH:
        shutil.copy(REPO / "examples" / "submissions" / name, folder / "submissions" / name)
    return folder


def _package_data() -> set[str]:
    """Every file of the package that is not a module: each must be in the wheel and the sdist."""
    grader = REPO / "grader"
    return {
        p.relative_to(REPO).as_posix()
        for p in grader.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }


def test_the_wheel_and_the_sdist_carry_the_package_data(installed: Installed) -> None:
    data = _package_data()
    assert "grader/suites/pytest.ini" in data
    in_wheel = set(zipfile.ZipFile(installed.wheel).namelist())
    with tarfile.open(installed.sdist) as tar:
        in_sdist = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    assert data - in_wheel == set(), "declare them in pyproject.toml's [tool.setuptools.package-data]"
    assert data - in_sdist == set()


def test_no_checkout_is_importable_in_the_environment(installed: Installed, tmp_path: Path) -> None:
    check = (
        "import sys, grader; print(grader.__file__); "
        "print(any(name.startswith('__editable__') for name in sys.modules))"
    )
    where, editable = ok(run([installed.python, "-c", check], tmp_path)).split()
    assert Path(where).is_relative_to(installed.venv), where
    assert editable == "False"


def test_the_installed_grade_grades_the_solution_in_a_course_folder(installed: Installed, course: Path) -> None:
    report = json.loads(ok(run([installed.grade, "solutions/decode.ipynb", "--json"], course)))
    assert report["status"] == "graded", report
    assert report["score"] == report["max_score"] > 0, report["errors"]


def test_the_installed_grade_grades_a_batch(installed: Installed, course: Path) -> None:
    ok(run([installed.grade, "batch", "submissions", "--lesson", "decode", "--out", "results", "--jobs", "1"], course))
    rows = {
        row["learner"]: row for row in map(json.loads, (course / "results" / "results.jsonl").read_text().splitlines())
    }
    assert set(rows) == {Path(name).stem for name in BATCH}
    assert rows["ada"]["score"] == rows["ada"]["max_score"]
    assert 0 < rows["grace"]["score"] < rows["grace"]["max_score"]
    assert rows["barbara"]["status"] == "unreadable"


def test_outside_a_course_folder_grade_says_where_lessons_are_looked_for(installed: Installed, course: Path) -> None:
    elsewhere = course.parent / "elsewhere"
    elsewhere.mkdir()
    result = run([installed.grade, course / "solutions" / "decode.ipynb"], elsewhere)
    assert result.returncode == 2, result.stderr
    assert "No lessons found" in result.stderr and "--lessons" in result.stderr, result.stderr
    lessons = ["--lessons", course / "exercises", "--json"]
    report = json.loads(ok(run([installed.grade, course / "solutions" / "decode.ipynb", *lessons], elsewhere)))
    assert report["score"] == report["max_score"] > 0, report["errors"]


def test_the_installed_grade_builds_the_gradescope_bundle(installed: Installed, course: Path) -> None:
    """An installed wheel holds no pyproject.toml or README.md: the bundle's are made from the installed
    distribution's metadata, and setup.sh's install reads them (its runtime dependencies, the `grade` script)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the package depends on tomli there
        import tomli as tomllib

    ok(run([installed.grade, "gradescope-bundle", "--lesson", "decode", "-o", "autograder.zip"], course))
    with zipfile.ZipFile(course / "autograder.zip") as zf:
        names = set(zf.namelist())
        project = tomllib.loads(zf.read("pyproject.toml").decode())["project"]
        readme = zf.read("README.md").decode()
        pins = zf.read("constraints.txt").decode()
    assert {"setup.sh", "run_autograder", "grader/cli.py", "grader/suites/pytest.ini"} <= names
    assert "exercises/decode/lesson.toml" in names and not any(n.startswith("exercises/prefill/") for n in names)
    ours = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert (project["name"], project["version"], project["scripts"]) == (ours["name"], ours["version"], ours["scripts"])
    assert sorted(map(_canonical, project["dependencies"])) == sorted(map(_canonical, ours["dependencies"]))
    assert readme.startswith("# inference-grader") and "pytest==" in pins and "numpy==" in pins
    with zipfile.ZipFile(course / "autograder.zip") as zf:
        zf.extractall(course / "source")
    wheels = course / "wheels"  # what setup.sh's pip install does first with the folder: build it
    ok(run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
              "-w", wheels, course / "source"], course))  # fmt: skip
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        built = zf.namelist()
    assert {"grader/cli.py", "grader/suites/pytest.ini"} <= set(built) and not any(n.startswith("ex") for n in built)


def _canonical(requirement: str) -> str:
    from packaging.requirements import Requirement

    return str(Requirement(requirement))
