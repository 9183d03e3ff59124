"""The warm daemon behind ``grade NOTEBOOK``: same output as a cold grade, never stale, never in the way.

Each test gets its own private socket folder (``XDG_RUNTIME_DIR``) and kills the daemons it started.
That the daemon (not a cold ``grade``) answered is read from its log, one line per request.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from grader.execute import sandbox
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED

LESSONS = ("--lessons", str(FIXTURE_LESSONS))


class Daemons:
    def __init__(self, runtime: Path) -> None:
        self.runtime = runtime
        self.env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "GRADER_DAEMON": "on", "GRADER_DAEMON_IDLE": "60"}

    @property
    def folder(self) -> Path:
        return self.runtime / f"inference-grader-{os.getuid()}"

    def grade(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["grade", *args], capture_output=True, text=True, cwd=REPO, timeout=180, env={**self.env, **env})

    def log(self) -> str:
        return "".join(p.read_text() for p in self.folder.glob("*.log"))

    def wait_until_ready(self, count: int = 1, seconds: float = 90) -> None:
        """Until ``count`` daemons have said they are ready (warmed up and accepting)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.log().count(" ready (exits after ") >= count:
                return
            time.sleep(0.1)
        raise AssertionError(f"no daemon started; its log says: {self.log()[-2000:]}")

    def pids(self) -> list[int]:
        found = []
        for lock in self.folder.glob("*.lock"):
            text = lock.read_text().strip()
            if text.isdigit() and Path(f"/proc/{text}").exists():
                found.append(int(text))
        return found

    def stop(self) -> None:
        for pid in self.pids():
            os.kill(pid, signal.SIGTERM)


@pytest.fixture
def daemons() -> Iterator[Daemons]:
    runtime = Path(tempfile.mkdtemp(prefix="gd-"))  # short: a socket path has at most 107 bytes
    started = Daemons(runtime)
    try:
        yield started
    finally:
        started.stop()
        shutil.rmtree(runtime, ignore_errors=True)


def test_the_daemon_answers_the_next_grade_exactly_as_a_cold_grade(daemons: Daemons, write_notebook: Callable[..., Path]) -> None:
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    wrong = write_notebook(['answer_even = "B"', "def square(x):\n    return x + x", SQUARES_SOLVED[2]], name="wrong.ipynb")
    broken = solved.with_name("broken.ipynb")
    broken.write_text("{not json")
    cold = {p: daemons.grade(str(p), *LESSONS, GRADER_DAEMON="off") for p in (solved, wrong, broken)}
    first = daemons.grade(str(solved), *LESSONS)  # cold, then starts a daemon for the next one
    assert (first.stdout, first.returncode) == (cold[solved].stdout, 0)
    daemons.wait_until_ready()
    for path, expected in cold.items():
        for extra in ((), ("--json",)):
            warm = daemons.grade(str(path), *LESSONS, *extra)
            again = expected if not extra else daemons.grade(str(path), *LESSONS, *extra, GRADER_DAEMON="off")
            assert (warm.stdout, warm.stderr, warm.returncode) == (again.stdout, again.stderr, again.returncode)
    assert daemons.log().count(": answered in ") == 6


def test_a_changed_lesson_is_never_graded_by_a_stale_daemon(daemons: Daemons, tmp_path: Path, write_notebook: Callable[..., Path]) -> None:
    lessons = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS, lessons)
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    args = (str(solved), "--lessons", str(lessons), "--json")
    assert '"score": 5.0' in daemons.grade(*args).stdout
    daemons.wait_until_ready()
    assert '"score": 5.0' in daemons.grade(*args).stdout
    assert daemons.log().count(": answered in ") == 1
    suite = lessons / "squares" / "suites" / "test_squares.py"
    suite.write_text(suite.read_text().replace('"square", 3), 9)', '"square", 3), 10)'))  # the instructor changes a hidden test
    changed = daemons.grade(*args)
    assert changed.returncode == 0 and '"score": 5.0' not in changed.stdout, changed.stdout
    assert "stale (lesson squares changed on disk): exiting" in daemons.log()


def test_a_killed_daemon_costs_nothing(daemons: Daemons, write_notebook: Callable[..., Path]) -> None:
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    daemons.grade(str(solved), *LESSONS)
    daemons.wait_until_ready()
    for pid in daemons.pids():
        os.kill(pid, signal.SIGKILL)  # its socket file stays behind
    time.sleep(0.2)
    after = daemons.grade(str(solved), *LESSONS, "--json")
    assert after.returncode == 0 and '"score": 5.0' in after.stdout
    daemons.wait_until_ready(2)  # a new one replaced the dead one's socket
    assert '"score": 5.0' in daemons.grade(str(solved), *LESSONS, "--json").stdout
    assert daemons.log().count(": answered in ") == 1


def test_no_daemon_when_off_from_a_script_or_in_an_unsafe_folder(daemons: Daemons, write_notebook: Callable[..., Path]) -> None:
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    assert daemons.grade(str(solved), *LESSONS, GRADER_DAEMON="off").returncode == 0
    assert daemons.grade(str(solved), *LESSONS, GRADER_DAEMON="auto").returncode == 0  # not a terminal: a script
    assert daemons.grade(str(solved), *LESSONS, GRADER_DAEMON="sometimes").returncode == 0
    time.sleep(0.5)
    assert not daemons.folder.exists() or not list(daemons.folder.glob("*.sock"))
    daemons.folder.mkdir(exist_ok=True)
    daemons.folder.chmod(0o777)  # someone opened it up: its sockets cannot be trusted
    result = daemons.grade(str(solved), *LESSONS, "--json")
    assert result.returncode == 0 and '"score": 5.0' in result.stdout
    time.sleep(1.0)
    assert not list(daemons.folder.glob("*.sock"))


@pytest.mark.skipif(sandbox.bwrap_problem() is not None, reason="the daemon forks workers only under bubblewrap")
def test_the_daemon_keeps_learners_apart(daemons: Daemons, write_notebook: Callable[..., Path]) -> None:
    first = write_notebook(["open('/tmp/left', 'w').write('x')", *SQUARES_SOLVED], name="first.ipynb")
    second = write_notebook(["import os\nassert not os.path.exists('/tmp/left'), 'found the last learner file'", *SQUARES_SOLVED], name="second.ipynb")
    daemons.grade(str(first), *LESSONS)
    daemons.wait_until_ready()
    assert '"score": 5.0' in daemons.grade(str(first), *LESSONS, "--json").stdout
    result = daemons.grade(str(second), *LESSONS, "--json")
    assert '"errors": []' in result.stdout, result.stdout
    assert daemons.log().count(": answered in ") == 2


def test_grade_daemon_status_and_stop(daemons: Daemons, write_notebook: Callable[..., Path]) -> None:
    assert daemons.grade("daemon").stdout.startswith("No grading daemon is running")
    daemons.grade(str(write_notebook(SQUARES_SOLVED)), *LESSONS)
    daemons.wait_until_ready()
    pid = daemons.pids()[0]
    status = daemons.grade("daemon", "status")
    assert status.returncode == 0 and status.stdout.startswith(f"pid {pid}: answers this `grade`; log ")
    other = daemons.grade("daemon", GRADER_TIMEOUT_NOTE="x")  # other GRADER_* settings: another daemon's business
    assert "for other code or settings" in other.stdout
    stop = daemons.grade("daemon", "stop")
    assert (stop.returncode, stop.stdout.strip()) == (0, "Stopped 1 daemon(s).")
    assert not Path(f"/proc/{pid}").exists()
    assert daemons.grade("daemon").stdout.startswith("No grading daemon is running")


def test_a_relative_lessons_folder_is_graded_cold(daemons: Daemons, write_notebook: Callable[..., Path]) -> None:
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    relative = os.path.relpath(FIXTURE_LESSONS, REPO)  # `grade` runs in REPO
    for _ in range(2):
        result = daemons.grade(str(solved), "--json", GRADER_LESSONS=relative)
        assert result.returncode == 0 and '"score": 5.0' in result.stdout, result.stderr
    assert not daemons.folder.exists() or not list(daemons.folder.glob("*.log"))
