"""The package and its tests pass ruff's lint rules (the set chosen in pyproject.toml, ``[tool.ruff.lint]``)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_ruff_finds_nothing_in_grader_and_tests() -> None:
    # ruff comes with the test extra: python3 -m pip install -e '.[test]'
    command = [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "grader", "tests"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 0, f"ruff check grader tests found:\n{result.stdout[-6000:]}{result.stderr[-2000:]}"
