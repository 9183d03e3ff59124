"""The package and its tests pass ruff's lint rules and are formatted as ``ruff format`` writes them.

The rules and the line length are chosen in pyproject.toml (``[tool.ruff]``); ruff comes with the test extra.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ruff", *args, "grader", "tests"]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=120)


def test_ruff_finds_nothing_in_grader_and_tests() -> None:
    result = ruff("check", "--output-format", "concise")
    assert result.returncode == 0, f"ruff check grader tests found:\n{result.stdout[-6000:]}{result.stderr[-2000:]}"


def test_grader_and_tests_are_formatted() -> None:
    result = ruff("format", "--check")
    assert result.returncode == 0, f"run `ruff format grader tests`:\n{result.stdout[-4000:]}{result.stderr[-2000:]}"
