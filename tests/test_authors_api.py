"""Lesson suites import from grader only the suite authors' API: the ``__all__`` of grader.testing, grader.checks,
grader.diagnose and grader.reveal (README, "Writing a lesson's hidden suites").

The engine may then change anything else without breaking a lesson, and a lesson author knows where to look.
Every suite file of every lesson the tree holds is read with the ast module (nothing is imported from it).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tests.conftest import REPO

#: The modules lesson suites may import from, each through its ``__all__``.
API = ("grader.testing", "grader.checks", "grader.diagnose", "grader.reveal")

#: Imports outside the API a lesson still makes, each with why it may for now. An entry that is no longer needed
#: fails the test below, so the list only shrinks.
DEFERRED = {
    # Decode's suites were being changed by another branch when the API was declared; they move to
    # grader.testing's re-exports of these two names when that branch has landed.
    ("decode/suites/conftest.py", "grader.config", "REL_TOL"),
    ("decode/suites/conftest.py", "grader.config", "STAND_IN_MAX_TOKENS"),
}

SUITE_FILES = sorted((REPO / "exercises").glob("*/suites/*.py"))


def _public(module: str) -> set[str]:
    return set(importlib.import_module(module).__all__)


def outside_api(source: str) -> list[tuple[str, str]]:
    """Each (module, name) a suite file's source imports from grader that is not in the authors' API; a whole
    module imported (``from grader import checks``, ``import grader.diagnose``) counts as its name ``*``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "grader":
                found += [(f"grader.{a.name}", "*") for a in node.names if f"grader.{a.name}" not in API]
            elif node.module.startswith("grader."):
                allowed = _public(node.module) if node.module in API else set()
                found += [(node.module, a.name) for a in node.names if a.name not in allowed]
        elif isinstance(node, ast.Import):
            found += [(a.name, "*") for a in node.names if a.name.startswith("grader") and a.name not in API]
    return found


def test_there_are_suites_to_read() -> None:
    assert len({p.parent.parent.name for p in SUITE_FILES}) >= 2


def test_every_name_of_the_api_exists() -> None:
    for module in API:
        loaded = importlib.import_module(module)
        assert [name for name in loaded.__all__ if not hasattr(loaded, name)] == [], module


@pytest.mark.parametrize("path", SUITE_FILES, ids=lambda p: str(p.relative_to(REPO / "exercises")))
def test_suites_import_only_the_authors_api(path: Path) -> None:
    where = str(path.relative_to(REPO / "exercises"))
    outside = [(m, n) for m, n in outside_api(path.read_text(encoding="utf-8")) if (where, m, n) not in DEFERRED]
    assert outside == [], f"{where} imports names outside the suite authors' API (the __all__ of {', '.join(API)})"


def test_every_deferred_import_is_still_made() -> None:
    made = {
        (str(p.relative_to(REPO / "exercises")), m, n)
        for p in SUITE_FILES
        for m, n in outside_api(p.read_text("utf-8"))
    }
    assert DEFERRED - made == set(), "remove these entries of DEFERRED: the suites no longer need them"


def test_the_check_sees_each_way_out_of_the_api() -> None:
    """A name left out of an ``__all__``, a module outside the API, and a whole engine module, each found."""
    source = (
        "from grader.testing import show, Target\n"
        "from grader.config import REL_TOL\n"
        "from grader import lessons, checks\n"
        "import grader.score\n"
        "def f():\n    from grader.checks import Numbers, _options\n"
    )
    assert sorted(outside_api(source)) == [
        ("grader.checks", "_options"),
        ("grader.config", "REL_TOL"),
        ("grader.lessons", "*"),
        ("grader.score", "*"),
        ("grader.testing", "Target"),
    ]
