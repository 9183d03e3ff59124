"""Shared helpers: build fixture notebooks in a temp folder and run the real ``grade`` command."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

if TYPE_CHECKING:
    from grader.model import Lesson
    from grader.suites.session import SuiteSession

REPO = Path(__file__).resolve().parent.parent

# Every `grade` these tests start grades cold, and none leaves a daemon behind; tests/test_daemon.py turns
# the warm daemon on for itself.
os.environ["GRADER_DAEMON"] = "off"

# The fixture lessons' hidden suites are graded by the grader's own pytest session, not collected here.
collect_ignore = ["fixtures"]
FIXTURE_LESSONS = Path(__file__).resolve().parent / "fixtures" / "lessons"


def notebook(cells: list[str | tuple[str, list[str]]], lesson: str | None = "squares") -> Any:
    """A notebook from code sources; a (source, tags) pair sets cell tags."""
    nb = new_notebook()
    if lesson:
        nb.metadata["grader"] = {"lesson": lesson}
    nb.cells.append(new_markdown_cell("# fixture"))
    for cell in cells:
        source, tags = cell if isinstance(cell, tuple) else (cell, [])
        code = new_code_cell(source)
        if tags:
            code.metadata["tags"] = tags
        nb.cells.append(code)
    return nb


@pytest.fixture
def write_notebook(tmp_path: Path) -> Callable[..., Path]:
    def write(cells: list[Any], name: str = "submission.ipynb", lesson: str | None = "squares") -> Path:
        path = tmp_path / name
        path.write_text(nbformat.writes(notebook(cells, lesson)), encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def suite_session() -> Iterator[Callable[[Lesson], SuiteSession]]:
    """A lesson's hidden suites, collected and opened once for the whole test session (the default options), for
    the tests that run them against a namespace or a worker: ``suite_session(lesson)``. A test of how a session
    starts, replays or records opens its own."""
    from grader.suites.session import SuiteSession

    opened: dict[tuple[str, Path], SuiteSession] = {}
    with ExitStack() as stack:

        def session(lesson: Lesson) -> SuiteSession:
            key = (lesson.id, lesson.suites)
            if key not in opened:
                opened[key] = stack.enter_context(SuiteSession(lesson))
            return opened[key]

        yield session


@pytest.fixture(scope="module", autouse=True)
def _no_worker_folder_left() -> Iterator[None]:
    """A module whose code started workers in this process and left one's folder behind (a ``Workers`` never
    closed: use it as a context manager) fails at its teardown, naming them: a grading machine's /tmp would collect
    them. Deleted then, so that the next module is judged on its own."""
    from grader.execute.process import WORKDIR_PREFIX

    pattern = os.path.join(tempfile.gettempdir(), f"{WORKDIR_PREFIX}{os.getpid()}-*")
    before = set(glob.glob(pattern))
    yield
    left = sorted(set(glob.glob(pattern)) - before)
    for folder in left:
        shutil.rmtree(folder, ignore_errors=True)
    if left:
        pytest.fail(f"{len(left)} worker folders left behind by this module's workers, never ended: {left[:3]}")


#: The README's first command grades the bundled chapter class so; tests/test_chapter_examples.py reads the same run.
CLASS_STEP = "grade class examples/class --out results/class"


def scratch(tmp_path: Path) -> Path:
    """A folder that sees the repository's files (read through symbolic links) and keeps what commands write."""
    for entry in REPO.iterdir():
        if entry.name not in (".git", "results") and not entry.name.startswith(".pytest"):
            (tmp_path / entry.name).symlink_to(entry)
    return tmp_path


@contextmanager
def bench_script(name: str) -> Iterator[ModuleType]:
    """A script of ``bench/`` imported as a module, with its folder on ``sys.path`` only meanwhile (a script adds
    its folder too, for its siblings)."""
    import importlib

    folder = str(REPO / "bench")
    sys.path.insert(0, folder)
    try:
        yield importlib.import_module(name)
    finally:
        sys.path[:] = [p for p in sys.path if p != folder]


def run_in(command: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRADER_DAEMON": "off"}
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """:data:`CLASS_STEP` run once a session in a scratch folder (20 notebooks): its result and the folder. The
    README's block and the chapter class's own test both read this one run."""
    where = scratch(tmp_path_factory.mktemp("class"))
    return run_in(["bash", "-c", CLASS_STEP], where, timeout=900), where  # on a loaded machine


def run_grade(
    *args: str, cwd: Path = REPO, timeout: float = 180, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real ``grade`` console command (``env``: its environment, else this one's)."""
    return subprocess.run(["grade", *args], capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)


def grade_json(*args: str) -> dict[str, Any]:
    result = run_grade(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def property_tests(suites: Path) -> int:
    """How many generated-inputs tests a suites folder has: each ``@given(...)``, or ``@generated(...)`` (the
    tables' decorator that gives one, grader.checks)."""
    texts = [path.read_text(encoding="utf-8") for path in suites.glob("test_*.py")]
    return sum(text.count("@given(") + text.count("@generated(") for text in texts)


SQUARES_SOLVED = [
    'answer_even = "A"',
    "def square(x):\n    return x * x",
    "def sum_of_squares(xs):\n    return sum(square(x) for x in xs)",
]


#: ``GRADER_QUICK_SECONDS=N python3 -m pytest -m "not slow"`` fails each test not marked ``slow`` that takes more
#: than N seconds (setup, call and teardown together), to find what has outgrown the quick loop. Off unless set:
#: on a loaded machine any test can take long, so no normal run or CI times a test.
QUICK_SECONDS_ENV = "GRADER_QUICK_SECONDS"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    limit = os.environ.get(QUICK_SECONDS_ENV)
    if not limit or item.get_closest_marker("slow") is not None:
        return
    report = outcome.get_result()
    took = item.stash.setdefault(_TOOK, 0.0) + report.duration
    item.stash[_TOOK] = took
    if report.when == "teardown" and report.passed and took > float(limit):
        report.outcome = "failed"
        report.longrepr = f"took {took:.1f} s, more than {QUICK_SECONDS_ENV}={limit}: make it faster or mark it slow"


_TOOK = pytest.StashKey[float]()


# -- the suite's processes (pytest-xdist, `-n auto`) ---------------------------------------------------------------

#: Test processes per core under ``-n auto``. The suite waits more than it computes: its CPU was 45% of two cores'
#: wall time in one process (726 CPU-s in 26 min 51 s, 2026-12-04: kernels and sandboxes starting, time limits
#: running out, hostile notebooks held to their deadlines). Measured whole on this 2-core machine the same day:
#: 4 processes 16 min 4 s (another job's lesson gates beside it), 6 processes 13 min 24 s; so three a core.
PROCESSES_PER_CORE = 3

#: Modules whose tests are split among processes by their parameter (``[decode]``) rather than kept in one: the
#: lesson gates, one process per lesson, each grading its lesson's one batch (tests/test_lesson_gates.py).
SPLIT_BY_PARAMETER = frozenset({"tests/test_lesson_gates.py"})


@pytest.hookimpl(optionalhook=True)  # a run with `-p no:xdist` has no such hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return PROCESSES_PER_CORE * len(os.sched_getaffinity(0))


def scope_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its module (whose module fixtures are then made once), or for a module
    of :data:`SPLIT_BY_PARAMETER`, its module and parameter (one lesson's gates). Node ids are left as they are,
    so ``--lf`` finds the failures of a distributed run (xdist's ``loadgroup`` rewrites them: pytest#11299)."""
    module, _, rest = nodeid.partition("::")
    if module in SPLIT_BY_PARAMETER and rest.endswith("]") and "[" in rest:
        return f"{module}[{rest[rest.index('[') + 1 :]}"
    return module


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``-n``, the units with the most ``slow`` tests first (each unit's tests in their own order): xdist
    hands out units in collection order, and a long module collected last (``test_variant_class.py``) would run
    alone at the end while the other processes wait. A run in one process keeps pytest's order."""
    if not getattr(config.option, "numprocesses", None):
        return
    weight: dict[str, int] = {}
    for item in items:
        weight[scope_of(item.nodeid)] = weight.get(scope_of(item.nodeid), 0) + bool(item.get_closest_marker("slow"))
    items.sort(key=lambda item: -weight[scope_of(item.nodeid)])  # stable: a unit's tests stay together, in order


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadscope`` (pyproject.toml's addopts) by :func:`scope_of`; any other ``--dist`` as xdist has it."""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByModuleAndLesson(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    return ByModuleAndLesson(config, log)
