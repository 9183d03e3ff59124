"""The grader is fully typed: ``mypy --strict`` finds nothing in ``grader/`` (configured in pyproject.toml)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO


def _promised_floor() -> str:
    """The oldest Python pyproject.toml's ``requires-python`` (">=3.10") promises."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'requires-python\s*=\s*">=\s*([0-9]+\.[0-9]+)"', text)
    assert match, 'pyproject.toml should say requires-python = ">=X.Y"'
    return match.group(1)


@pytest.mark.slow
@pytest.mark.parametrize("floor", [None, _promised_floor()], ids=["this-python", "requires-python-floor"])
def test_mypy_strict_finds_nothing(tmp_path: Path, floor: str | None) -> None:
    """Also checked as the oldest Python pyproject.toml promises, so a 3.11-only name cannot slip in."""
    version = ["--python-version", floor] if floor else []
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", *version, "--cache-dir", str(tmp_path / "mypy"), "grader"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
