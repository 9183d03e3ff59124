"""The versions of pytest and hypothesis are within the bounds pyproject.toml pins, because the hidden suites'
session reaches into their internals; on a version outside, this test fails loudly, naming what to re-check
(``INTERNALS``).
"""

from __future__ import annotations

import sys
from importlib.metadata import version

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from tests.conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: package -> the internals grader/suites/ relies on, to check before raising the package's upper bound.
INTERNALS = {
    "pytest": ("Item._fixtureinfo.argnames (suites/replay.py)",),
    "hypothesis": (
        "test._hypothesis_internal_use_settings (suites/replay.py, suites/session.py)",
        "test._hypothesis_internal_use_seed and _hypothesis_internal_database_key (suites/session.py)",
        "replacing test.hypothesis.inner_test (suites/replay.py, suites/session.py)",
    ),
}


def _requirements() -> dict[str, Requirement]:
    with open(REPO / "pyproject.toml", "rb") as f:
        listed = tomllib.load(f)["project"]["dependencies"]
    return {r.name: r for r in map(Requirement, listed)}


@pytest.mark.parametrize("package", sorted(INTERNALS))
def test_the_installed_version_is_within_the_pinned_bounds(package: str) -> None:
    requirement = _requirements()[package]
    uppers = [s for s in requirement.specifier if s.operator in ("<", "<=")]
    assert uppers, f"pyproject.toml must give {package} an upper bound: grader/suites/ uses its internals"
    installed = Version(version(package))
    assert requirement.specifier.contains(installed, prereleases=True), (
        f"{package} {installed} is outside pyproject.toml's {requirement.specifier}. grader/suites/ relies on: "
        + "; ".join(INTERNALS[package])
        + ". Check each on this version, then move the bound."
    )
