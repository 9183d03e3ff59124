"""The warm daemon behind ``grade NOTEBOOK``: same output as a cold grade, never stale, never in the way.

Each test gets its own private socket folder (``XDG_RUNTIME_DIR``) and kills the daemons it started.
The tests synchronise on the daemons' state, as ``grade daemon --json`` reports it (each live daemon's pid,
whether it is ready, how many requests it answered), never on a fixed sleep or the wording of a log.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.config import DEFAULT_LIMITS
from grader.execute import sandbox
from tests import test_hostile_lent as lent
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED
from tests.waiting import wait_until

LESSONS = ("--lessons", str(FIXTURE_LESSONS))
pytestmark = pytest.mark.slow  # every test starts daemons: a few seconds each


class Daemons:
    def __init__(self, runtime: Path) -> None:
        self.runtime = runtime
        self.env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "GRADER_DAEMON": "on", "GRADER_DAEMON_IDLE": "60"}

    @property
    def folder(self) -> Path:
        return self.runtime / f"inference-grader-{os.getuid()}"

    def grade(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["grade", *args], capture_output=True, text=True, cwd=REPO, timeout=180, env={**self.env, **env}
        )

    def log(self) -> str:
        return "".join(p.read_text() for p in self.folder.glob("*.log"))

    def state(self) -> list[dict[str, Any]]:
        """``grade daemon --json``: each live daemon, with the status it reports (None while it warms up)."""
        shown = self.grade("daemon", "--json")
        assert shown.returncode == 0, shown.stderr
        found: list[dict[str, Any]] = json.loads(shown.stdout)
        return found

    def wait_until_ready(self, not_pid: int | None = None, seconds: float = 90) -> dict[str, Any]:
        """The status of a daemon (other than ``not_pid``) once it is ready: warmed up and accepting."""
        try:
            ready = wait_until(
                lambda: [
                    d["status"] for d in self.state() if d["status"] and d["status"]["ready"] and d["pid"] != not_pid
                ],
                seconds,
                "a daemon becoming ready",
            )
        except AssertionError as err:
            raise AssertionError(f"{err}; its log says: {self.log()[-2000:]}") from None
        status: dict[str, Any] = ready[0]
        return status

    def answered(self) -> int:
        """Requests answered by the daemons alive now."""
        return sum(d["status"]["answered"] for d in self.state() if d["status"])

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

    def none_started(self) -> bool:
        """No daemon was started: ``grade`` opens a daemon's log before starting it, and none holds a lock."""
        return not list(self.folder.glob("*.log")) and not list(self.folder.glob("*.sock")) and self.state() == []


@pytest.fixture
def daemons() -> Iterator[Daemons]:
    runtime = Path(tempfile.mkdtemp(prefix="gd-"))  # short: a socket path has at most 107 bytes
    started = Daemons(runtime)
    try:
        yield started
    finally:
        started.stop()
        shutil.rmtree(runtime, ignore_errors=True)


def test_the_daemon_answers_the_next_grade_exactly_as_a_cold_grade(
    daemons: Daemons, write_notebook: Callable[..., Path]
) -> None:
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    wrong = write_notebook(
        ['answer_even = "B"', "def square(x):\n    return x + x", SQUARES_SOLVED[2]], name="wrong.ipynb"
    )
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
    assert daemons.answered() == 6


def test_a_changed_lesson_is_never_graded_by_a_stale_daemon(
    daemons: Daemons, tmp_path: Path, write_notebook: Callable[..., Path]
) -> None:
    lessons = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS, lessons)
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    args = (str(solved), "--lessons", str(lessons), "--json")
    assert '"score": 5.0' in daemons.grade(*args).stdout
    warm = daemons.wait_until_ready()
    assert '"score": 5.0' in daemons.grade(*args).stdout
    assert daemons.answered() == 1
    suite = lessons / "squares" / "suites" / "test_squares.py"
    before = suite.read_text()
    suite.write_text(
        before.replace('learner.call("square", 3), 9', 'learner.call("square", 3), 10')
    )  # the instructor changes a hidden test
    assert suite.read_text() != before, "the squares suite no longer has the line this test changes"
    changed = daemons.grade(*args)
    assert changed.returncode == 0 and '"score": 5.0' not in changed.stdout, changed.stdout
    wait_until(
        lambda: all(d["pid"] != warm["pid"] for d in daemons.state()),
        30,
        "the stale daemon exiting (its idle time is 60 s)",
    )
    assert "stale (lesson squares changed on disk): exiting" in daemons.log()  # and it said why


def test_a_killed_daemon_costs_nothing(daemons: Daemons, write_notebook: Callable[..., Path]) -> None:
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    daemons.grade(str(solved), *LESSONS)
    killed = daemons.wait_until_ready()["pid"]
    os.kill(killed, signal.SIGKILL)  # its socket file stays behind
    wait_until(lambda: daemons.state() == [], 30, "the killed daemon's lock being released")
    after = daemons.grade(str(solved), *LESSONS, "--json")
    assert after.returncode == 0 and '"score": 5.0' in after.stdout
    daemons.wait_until_ready(not_pid=killed)  # a new one replaced the dead one's socket
    assert '"score": 5.0' in daemons.grade(str(solved), *LESSONS, "--json").stdout
    assert daemons.answered() == 1


def test_no_daemon_when_off_from_a_script_or_in_an_unsafe_folder(
    daemons: Daemons, write_notebook: Callable[..., Path]
) -> None:
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    assert daemons.grade(str(solved), *LESSONS, GRADER_DAEMON="off").returncode == 0
    assert daemons.grade(str(solved), *LESSONS, GRADER_DAEMON="auto").returncode == 0  # not a terminal: a script
    assert daemons.grade(str(solved), *LESSONS, GRADER_DAEMON="sometimes").returncode == 0
    assert daemons.none_started()
    daemons.folder.mkdir(exist_ok=True)
    daemons.folder.chmod(0o777)  # someone opened it up: its sockets cannot be trusted
    result = daemons.grade(str(solved), *LESSONS, "--json")
    assert result.returncode == 0 and '"score": 5.0' in result.stdout
    assert daemons.none_started()


@pytest.mark.skipif(sandbox.bwrap_problem() is not None, reason="the daemon forks workers only under bubblewrap")
def test_the_daemon_keeps_learners_apart(daemons: Daemons, write_notebook: Callable[..., Path]) -> None:
    first = write_notebook(["open('/tmp/left', 'w').write('x')", *SQUARES_SOLVED], name="first.ipynb")
    second = write_notebook(
        ["import os\nassert not os.path.exists('/tmp/left'), 'found the last learner file'", *SQUARES_SOLVED],
        name="second.ipynb",
    )
    daemons.grade(str(first), *LESSONS)
    daemons.wait_until_ready()
    assert '"score": 5.0' in daemons.grade(str(first), *LESSONS, "--json").stdout
    result = daemons.grade(str(second), *LESSONS, "--json")
    assert '"errors": []' in result.stdout, result.stdout
    assert daemons.answered() == 2


def test_grade_daemon_status_and_stop(daemons: Daemons, tmp_path: Path, write_notebook: Callable[..., Path]) -> None:
    assert daemons.grade("daemon").stdout.startswith("No grading daemon is running")
    daemons.grade(str(write_notebook(SQUARES_SOLVED)), *LESSONS)
    pid = daemons.wait_until_ready()["pid"]
    [shown] = daemons.state()
    assert shown["current"] and shown["status"] == {
        "pid": pid,
        "ready": True,
        "answered": 0,
        "left_cold": 0,
        "stale": False,
    }
    assert shown["log"] == shown["socket"].removesuffix(".sock") + ".log"
    two = tmp_path / "two"  # a course of two lessons, and a notebook that does not say which: a usage error
    for name in ("squares", "cubes"):
        shutil.copytree(FIXTURE_LESSONS / "squares", two / name)
    unsure = daemons.grade(str(write_notebook(SQUARES_SOLVED, name="which.ipynb", lesson=None)), "--lessons", str(two))
    assert unsure.returncode == 2 and "does not say which lesson" in unsure.stderr, unsure.stderr
    assert daemons.state()[0]["status"] == {"pid": pid, "ready": True, "answered": 0, "left_cold": 1, "stale": False}
    status = daemons.grade("daemon", "status")
    assert status.returncode == 0 and status.stdout.startswith(f"pid {pid}: answers this `grade`; log ")
    other = daemons.grade("daemon", GRADER_TIMEOUT_NOTE="x")  # other GRADER_* settings: another daemon's business
    assert "for other code or settings" in other.stdout
    stop = daemons.grade("daemon", "stop")
    assert (stop.returncode, stop.stdout.strip()) == (0, "Stopped 1 daemon(s).")
    assert not Path(f"/proc/{pid}").exists()
    assert daemons.grade("daemon").stdout.startswith("No grading daemon is running")
    assert daemons.state() == []


def test_a_relative_lessons_folder_is_graded_cold(daemons: Daemons, write_notebook: Callable[..., Path]) -> None:
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    relative = os.path.relpath(FIXTURE_LESSONS, REPO)  # `grade` runs in REPO
    for _ in range(2):
        result = daemons.grade(str(solved), "--json", GRADER_LESSONS=relative)
        assert result.returncode == 0 and '"score": 5.0' in result.stdout, result.stderr
    assert not daemons.folder.exists() or not list(daemons.folder.glob("*.log"))


def test_a_warm_grade_bounds_lent_references_called_with_huge_arguments(daemons: Daemons, tmp_path: Path) -> None:
    """Issue 19 through the daemon: a learner whose code calls the lesson's lent reference functions with huge
    arguments costs the daemon one call's time per call and no memory of its own (they run in the daemon's lender's
    worker, kept warm between requests), scores as a cold grade does, and the honest learner after it keeps full marks.
    The daemon is started under the hostile tests' address-space cap, so one that ran them itself would fail."""
    honest = tmp_path / "honest.ipynb"
    honest.write_bytes(lent.SOLUTION.read_bytes())
    hostile = [lent.hostile_notebook(tmp_path, name, lent.ATTACKS[name]) for name in ("spin", "alloc")]
    cold = {p: daemons.grade(str(p), *lent.LENT, "--json", GRADER_DAEMON="off") for p in (*hostile, honest)}
    first = subprocess.run(  # cold, then starts the daemon, which inherits the cap
        ["prlimit", f"--as={lent.CAP}", "--", "grade", str(honest), *lent.LENT, "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=lent.PER_LEARNER,
        env=daemons.env,
    )
    assert (first.stdout, first.returncode) == (cold[honest].stdout, 0), first.stderr[-2000:]
    daemons.wait_until_ready()
    for path in (*hostile, honest):
        warm = subprocess.run(
            ["grade", str(path), *lent.LENT, "--json"],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=lent.PER_LEARNER,
            env=daemons.env,
        )
        assert warm.returncode == cold[path].returncode == 0, warm.stderr[-2000:]
        # The attacked question (combine) may score either way, warm or cold: whether its own call's huge lent
        # request fails inside the per-call limit or runs past it is a race with the machine's speed (two runs of
        # the same grade differ). Every other question must score as cold, as test_hostile_lent checks.
        scores = {q["id"]: q["score"] for q in json.loads(warm.stdout)["questions"] if q["id"] != "combine"}
        same = {q["id"]: q["score"] for q in json.loads(cold[path].stdout)["questions"] if q["id"] != "combine"}
        assert scores == same, path.name
    assert json.loads(warm.stdout)["score"] == lent.FULL  # the honest learner, graded after the hostile ones
    assert daemons.answered() == 3  # all three answered warm, none left to a cold grade
    (daemon,) = daemons.pids()
    assert lent._trusted_peak(daemon) < lent.TRUSTED_PEAK_KB  # the daemon and its trusted children, never its workers


def test_a_stopped_daemon_costs_the_next_grade_only_a_greeting(
    daemons: Daemons, write_notebook: Callable[..., Path]
) -> None:
    """A daemon stopped with ``kill -STOP`` (red team round 5) still holds its lock and its socket, and the kernel
    queues connections to it: the next ``grade`` used to wait ``TimeBudget.daemon_reply`` (10 minutes) for an
    answer. It waits for the daemon's greeting only, then grades cold and says why, in one line."""
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")
    daemons.grade(str(solved), *LESSONS)
    stopped = daemons.wait_until_ready()["pid"]
    os.kill(stopped, signal.SIGSTOP)
    try:
        after = daemons.grade(str(solved), *LESSONS, "--json", GRADER_DAEMON="auto")  # run_grade's 180 s, not 600
        assert after.returncode == 0 and '"score": 5.0' in after.stdout, after.stderr
        said = [line for line in after.stderr.splitlines() if "grading daemon" in line]
        within = f"did not answer within {DEFAULT_LIMITS.budget.daemon_hello:g} s"
        assert len(said) == 1 and within in said[0] and "graded without it" in said[0], said
    finally:
        os.kill(stopped, signal.SIGCONT)
    assert daemons.answered() == 0  # it never saw the request: nothing was sent to it


#: What the warm path must not import: the command line (click), grading (pytest), and what only starting, listing or
#: stopping a daemon uses (subprocess, fcntl), or finding its folder without ``XDG_RUNTIME_DIR`` (tempfile).
NOT_ON_THE_WARM_PATH = ("click", "pytest", "subprocess", "fcntl", "tempfile", "dataclasses", "pathlib", "grader.config")
#: ``grade ARGS`` run as the script runs it, saying on stderr's last line which of those it imported (not counting
#: what the interpreter had imported before it ran: a machine's ``.pth`` files may import tempfile at start-up).
#: The client's first wait is made a minute long: a warm grade reads its limits (grader.config) only once a wait
#: outlasts it, which a daemon on a loaded machine (CI's parallel workers) may take longer than 0.25 s to need;
#: tests/test_daemon_client.py checks that longer wait.
IMPORTED = (
    "import atexit, sys; before = set(sys.modules); from grader.__main__ import run; "
    "import grader.serve.client as client; client.FIRST_WAIT = 60.0; "
    f"atexit.register(lambda: print('imported:', *[m for m in {NOT_ON_THE_WARM_PATH!r} "
    "if m in set(sys.modules) - before], file=sys.stderr)); sys.argv[0] = 'grade'; run()"
)


def test_a_plain_grade_notebook_is_answered_before_the_command_line_is_even_imported(
    daemons: Daemons, write_notebook: Callable[..., Path]
) -> None:
    """The daemon answers a notebook in tens of milliseconds, and importing all of ``grade``'s commands took ~50 ms
    more: ``grade NOTEBOOK [--json] [--lessons FOLDER]`` asks it first (grader/__main__.py). Any other form is parsed
    by the command as always, and a daemon still answers it; both answers are the cold grade's."""
    solved = write_notebook(SQUARES_SOLVED, name="solved.ipynb")

    def grade(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-c", IMPORTED, *args]
        return subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=180, env=daemons.env)

    cold = daemons.grade(str(solved), *LESSONS, "--json", GRADER_DAEMON="off")
    grade(str(solved), *LESSONS, "--json")  # cold, and starts a daemon for this interpreter
    daemons.wait_until_ready()
    plain = grade(str(solved), *LESSONS, "--json")
    assert (plain.stdout, plain.returncode) == (cold.stdout, 0) and plain.stderr.splitlines()[-1] == "imported:"
    assert daemons.answered() == 1
    other = grade(str(solved), *LESSONS, "--json", "--timeout", f"{DEFAULT_LIMITS.timeout:g}")
    assert (other.stdout, other.returncode) == (cold.stdout, 0)
    imported = other.stderr.splitlines()[-1].split()
    # the command line parsed it (and imported what starting a daemon needs), and the daemon graded it: no pytest here
    assert imported[0] == "imported:" and "click" in imported and "pytest" not in imported, imported
    assert daemons.answered() == 2


def test_the_answer_is_sent_before_the_notebooks_worker_is_ended(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, write_notebook: Callable[..., Path]
) -> None:
    """Ending a forked worker (the zygote kills it and sweeps its sandbox) comes after the learner has the answer:
    with every learner worker's end held, the whole answer still arrives, and the worker is ended once let go."""
    import socket
    import threading

    from grader.execute.worker import LearnerProcess
    from grader.serve.client import notebook_request
    from grader.serve.daemon import Daemon
    from grader.serve.protocol import HELLO, parse_reply

    write_notebook(SQUARES_SOLVED, name="mine.ipynb")
    monkeypatch.chdir(tmp_path)
    request = notebook_request(Path("mine.ipynb"), as_json=True, lessons=FIXTURE_LESSONS)
    daemon = Daemon()
    daemon.warm(request)
    let_go, ended = threading.Event(), []
    close = LearnerProcess.close

    def held(worker: LearnerProcess) -> None:
        let_go.wait(60)
        ended.append(worker)
        close(worker)

    monkeypatch.setattr(LearnerProcess, "close", held)
    ours, theirs = socket.socketpair()
    with daemon._lock:
        daemon.busy += 1  # as the daemon's accept loop counts a connection it hands to a thread
    server = threading.Thread(target=daemon.serve, args=(theirs,), daemon=True)
    server.start()
    try:
        with ours:
            ours.settimeout(30)
            assert ours.recv(len(HELLO)) == HELLO
            ours.sendall(request.to_json())
            ours.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := ours.recv(1 << 16):
                chunks.append(chunk)
        answer = parse_reply(b"".join(chunks))
        assert answer is not None and json.loads(answer.stdout)["score"] == json.loads(answer.stdout)["max_score"]
        assert ended == []  # the answer came while the worker's end was held
    finally:
        let_go.set()
        server.join(60)
        daemon.close()
    assert ended and not server.is_alive()
