"""Hidden means hidden: a learner's machine, with the engine package installed from its wheel and their notebook
released with the course service, holds no hidden suite, solution, mistakes file, course secret or by-hand answer
of theirs, and ``check``, ``hint``, ``grade NOTEBOOK`` and ``grade submit`` work there (against a stand-in
service on loopback, tests/service_fake.py).

The environment is tests/package_support.py's: the wheel alone in a fresh virtual environment, its dependencies
(IPython, JupyterLab's kernel...) this interpreter's, named by a ``.pth`` line and not copied, so what is on the
environment's disk is what the package brings. Those dependencies are third-party packages: the course reaches a
learner only through the wheel and the notebook, which are what is searched.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest

from grader.authoring.build import Owner, build_notebooks, read_source
from grader.authoring.release import release
from grader.lessons import load_lesson
from grader.params import SECRET_ENV, draw
from tests.conftest import REPO
from tests.package_support import Installed, install, ok, run
from tests.service_fake import SECRET, Fake, fake_service
from tests.test_build import _answers_on_page

pytestmark = pytest.mark.slow

LESSON = load_lesson("decode")
BY_HAND = ("gb_per_step", "ms_per_token", "max_tokens_per_s")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return install(tmp_path_factory.mktemp("learner-package"))


@pytest.fixture
def fake() -> Iterator[Fake]:
    with fake_service() as running:
        yield running


@pytest.fixture
def notebook(tmp_path: Path, fake: Fake, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Ada's notebook, released with the service, in a folder of her own (no course folder above it)."""
    monkeypatch.setenv(SECRET_ENV, SECRET.decode())
    roster = tmp_path / "roster.csv"
    roster.write_text("learner\nada\n", encoding="utf-8")
    (path,) = release(LESSON, roster, tmp_path / "released", REPO / "exercises", service=fake.url)
    home = tmp_path / "ada"
    home.mkdir()
    return Path(shutil.copy(path, home / path.name))


def _hidden_lines() -> set[str]:
    """Long lines only the course has: of every lesson's suites and mistakes files, and of its solutions' answer
    cells, but for those the engine's own code or a learner's notebook holds too (a stub, a shared sentence)."""
    lines: set[str] = set()
    public = [path.read_text(encoding="utf-8") for path in (REPO / "grader").rglob("*.py")]
    for path in [*REPO.glob("exercises/*/suites/**/*"), *REPO.glob("exercises/*/mistakes/**/*")]:
        if path.is_file() and path.suffix != ".pyc":
            lines |= {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if len(line.strip()) > 40}
    for lesson in {p.parent.name for p in REPO.glob("exercises/*/lesson.toml")}:
        found = load_lesson(lesson)
        built = build_notebooks(read_source(found))
        public += [cell.source for cell in built.learner.cells]
        answers = [c.source for c in built.solution.cells if c.get("id") in {q.id for q in found.questions}]
        lines |= {line.strip() for s in answers for line in s.splitlines() if len(line.strip()) > 25}
    engine = "\n".join(public)
    return {line for line in lines if line not in engine}


def _files(*roots: Path) -> Iterator[tuple[Path, bytes]]:
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                yield path, path.read_bytes()


def test_nothing_hidden_is_on_the_learners_disk_or_in_their_notebook(installed: Installed, notebook: Path) -> None:
    hidden = _hidden_lines()
    assert len(hidden) > 200  # the search looks for something
    found = []
    for path, data in _files(installed.venv, notebook.parent):
        if path.name in ("lesson.toml", ".grader-secret") or "solutions" in path.parts or "mistakes" in path.parts:
            found.append(f"{path}: a course file")
        if SECRET in data:
            found.append(f"{path}: the course secret")
        text = data.decode("utf-8", "replace")
        found += [f"{path}: {line[:60]}" for line in hidden if line in text]
    assert found == []
    # Ada's own by-hand answers, from the lesson's solution on her numbers, are nowhere in her notebook
    params = draw(LESSON, "ada", SECRET)
    solution = build_notebooks(read_source(LESSON), Owner("ada", params)).solution
    namespace: dict[str, Any] = {}
    for cell in solution.cells:
        if cell.get("id") in BY_HAND:
            exec(cell.source, namespace)
    assert all(isinstance(namespace[q], float) for q in BY_HAND)
    assert _answers_on_page(nbformat.read(notebook, as_version=4), SimpleNamespace(**namespace)) == {
        q: [] for q in BY_HAND
    }


_KERNEL = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
nb = json.load(open(sys.argv[1]))
setup = next("".join(c["source"]) for c in nb["cells"] if "connect_service(" in "".join(c["source"]))
shell = InteractiveShell.instance()
for source in (setup, "gb_per_step = 6.5", 'check("gb_per_step")', 'hint("gb_per_step")', "check_all()"):
    result = shell.run_cell(source, store_history=True)
    assert result.success, result
"""


def test_the_learner_side_works_with_the_engine_package_alone(installed: Installed, notebook: Path, fake: Fake) -> None:
    here = notebook.parent
    nowhere = run([installed.python, "-c", "from grader.config import lessons_root; lessons_root()"], here)
    assert nowhere.returncode == 1 and "No lessons found" in nowhere.stderr, nowhere.stderr
    out = ok(run([installed.python, "-c", textwrap.dedent(_KERNEL), notebook.name], here)).splitlines()
    assert out[0] == "✓ gb_per_step: 1/1, all checks pass. Well done!", out
    assert out[1].startswith("Hint for gb_per_step: Each step reads every weight once"), out
    assert out[-1] == "Total: 2 / 2", out
    (path, _, body) = fake.requests[0]
    assert body["cells"] == ["gb_per_step = 6.5"] and body["questions"] == ["gb_per_step"], body
    report = json.loads(ok(run([installed.grade, notebook.name, "--json"], here)))  # no lessons: the service grades
    assert (report["score"], report["isolation"]) == (2, "the course service"), report
    receipt = ok(run([installed.grade, "submit", notebook.name], here))
    assert receipt.startswith("Handed in: decode by ada, attempt 1,"), receipt


def test_a_released_notebook_run_in_a_real_kernel_checks_and_hands_in_through_the_service(
    notebook: Path, fake: Fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run All in a real Jupyter kernel (nbclient), as JupyterLab runs it: each check cell prints the service's
    verdict, what was sent is the kernel's history without a self-check cell, and the last cell hands in."""
    from nbclient import NotebookClient

    monkeypatch.setenv("JPY_SESSION_NAME", str(notebook))  # what Jupyter's server sets in a kernel's environment
    nb = nbformat.read(notebook, as_version=4)
    NotebookClient(nb, timeout=120, allow_errors=True, resources={"metadata": {"path": str(notebook.parent)}}).execute()
    checks = [c for c in nb.cells if c.source.startswith('check("')]
    assert checks and all(
        "".join(o.get("text", "") for o in c.outputs).startswith(f"✓ {c.source[7:-2]}: 1/1, all checks pass")
        for c in checks
    ), [c.outputs for c in checks]
    skipped = {c.source for c in nb.cells if "self-check" in c.metadata.get("tags", [])}
    sent = [body for path, _, body in fake.requests if path.endswith("/check")]
    assert len(sent) == len(checks) + 1  # and check_all()
    assert all(cell not in skipped and "connect_service" not in cell for body in sent for cell in body["cells"])
    assert any(cell.startswith("def decode_step_seconds") for cell in sent[-1]["cells"])
    receipt = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert receipt.startswith("Handed in: decode by ada, attempt 1,"), nb.cells[-1].outputs
