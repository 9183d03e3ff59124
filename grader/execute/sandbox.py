"""How the worker process is started: the command line and the isolation level it gets.

Only process limits for now; namespace isolation plugs in here without the rest of the engine changing.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

_PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True)
class Launch:
    argv: tuple[str, ...]
    env: dict[str, str]
    isolation: str


def worker_env(workdir: Path) -> dict[str, str]:
    """A scrubbed environment: nothing from the grader's environment (tokens, keys) reaches learner code."""
    return {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(workdir),
        "TMPDIR": str(workdir),
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "IPYTHONDIR": str(workdir / ".ipython"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


def launch(workdir: Path) -> Launch:
    code = f"import sys; sys.path.insert(0, {_PACKAGE_PARENT!r}); from grader.execute.worker_main import main; main()"
    return Launch(argv=(sys.executable, "-I", "-c", code), env=worker_env(workdir), isolation="process limits")
