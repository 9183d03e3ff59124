"""Build the package's sdist and wheel and install the wheel into a fresh virtual environment, with no checkout
importable: what tests/test_package.py grades from, and tests/test_service_learner.py proves holds no answer.

The dependencies are this interpreter's, not downloaded: the environment's site-packages holds a ``.pth``
line naming this interpreter's site-packages. A path in a ``.pth`` file is added to ``sys.path`` without its
own ``.pth`` files being run, so the editable install's import hook there (which maps ``grader`` to a
checkout) stays inactive.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", ".hypothesis")


@dataclass(frozen=True)
class Installed:
    """A virtual environment with the built wheel installed, and the files it was built from."""

    venv: Path
    sdist: Path
    wheel: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def grade(self) -> Path:
        return self.venv / "bin" / "grade"


def run(args: list[str | Path], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRADER_LESSONS", "VIRTUAL_ENV")}
    env |= {"GRADER_DAEMON": "off", "PYTHONNOUSERSITE": "1"}
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, (
        f"{result.args} exited {result.returncode}:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    )
    return result.stdout


def install(work: Path) -> Installed:
    """Build the sdist from the package's own files, the wheel from the unpacked sdist, and install it in ``work``."""
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "grader", source / "grader", ignore=IGNORED)
    build = "from setuptools import build_meta; print(build_meta.build_sdist({out!r}))"
    sdist = work / "dist" / ok(run([sys.executable, "-c", build.format(out=str(work / "dist"))], source)).split()[-1]
    with tarfile.open(sdist) as tar:
        # the sdist is our own; ``filter`` (new in 3.11.4: Debian 12 has 3.11.2) spares 3.12+ its warning
        extract = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(work / "unpacked", **extract)
    (unpacked,) = (work / "unpacked").iterdir()
    wheels = work / "wheels"
    ok(run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
              "-w", wheels, unpacked], work))  # fmt: skip
    (wheel,) = wheels.glob("*.whl")
    venv = work / "venv"
    ok(run([sys.executable, "-m", "venv", "--without-pip", venv], work))
    ok(run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "-q", "--no-deps",
              "--no-index", wheel], work))  # fmt: skip
    site = ok(run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], work))
    # every site-packages this interpreter reads: its own, and a base one it sees (a venv made with system packages)
    folders = dict.fromkeys([sysconfig.get_paths()["purelib"], *(p for p in sys.path if p.endswith("site-packages"))])
    Path(site.strip(), "dependencies.pth").write_text("".join(f"{f}\n" for f in folders), encoding="utf-8")
    return Installed(venv, sdist, wheel)
