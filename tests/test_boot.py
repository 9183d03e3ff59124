"""A notebook's workers boot while its grader imports pytest (grader/execute/runner.py, ``Workers.boot``).

Without a zygote to fork from (a cold ``grade NOTEBOOK``, or a level without one), each worker is spawned: a
sandbox probed once a process and a new interpreter started, ~40 ms that the grading thread spent before it could
import pytest. They are spawned on a thread of their own, which must live until they are closed: a spawned worker
dies with the thread that started it (bwrap's ``--die-with-parent``, ``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.config import DEFAULT_LIMITS, WorkerMode
from grader.errors import LessonError
from grader.execute import runner
from grader.execute.lender import Lenders
from grader.execute.runner import Workers
from grader.execute.worker import LearnerProcess
from grader.grader import Grader
from grader.model import Submission
from grader.pipeline import GradeOptions
from grader.read import read_submission
from tests.test_hostile import LEVELS, mode_of
from tests.test_lender import notebook

pytestmark = pytest.mark.slow  # each test spawns workers


@pytest.fixture(params=LEVELS)
def mode(request: pytest.FixtureRequest) -> WorkerMode:
    return mode_of(request.param)


@pytest.fixture
def submission(tmp_path: Path) -> Submission:
    (tmp_path / "learner").mkdir()
    return read_submission(notebook(tmp_path / "learner", {"double": "def double(x):\n    return 2 * x"}))


@pytest.fixture
def solution(tmp_path: Path) -> Submission:
    (tmp_path / "solution").mkdir()
    return read_submission(notebook(tmp_path / "solution", {"triple": "def triple(x):\n    return 3 * x"}))


class Held:
    """Makes ``runner``'s spawns wait until :meth:`go`, and says on which thread each was made."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = threading.Event()
        self.released = threading.Event()
        self.threads: list[str] = []
        real = LearnerProcess

        def held(*args: Any, **kwargs: Any) -> LearnerProcess:
            self.threads.append(threading.current_thread().name)
            self.entered.set()
            assert self.released.wait(30), "the test never let the spawn go on"
            return real(*args, **kwargs)

        monkeypatch.setattr(runner, "LearnerProcess", held)

    def go(self) -> None:
        self.released.set()


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    spawns = Held(monkeypatch)
    yield spawns
    spawns.go()  # a failed test must not leave a boot waiting


def test_without_a_zygote_boot_returns_while_the_worker_is_spawned_and_it_outlives_its_thread(
    mode: WorkerMode, submission: Submission, held: Held
) -> None:
    with Workers(DEFAULT_LIMITS, mode) as workers:
        workers.boot(submission)
        assert held.entered.wait(30)  # the spawn has begun, and waits: boot returned without waiting for it
        assert not held.released.is_set()
        held.go()
        worker = workers.start(submission)
        assert held.threads == ["grader-boot"]
        assert worker.run_notebook().cell_errors == ()
        time.sleep(0.3)  # a worker killed with the thread that spawned it is seen dead by now
        assert worker.call("double", [21], {}, {}).value == 42
    assert not _boot_threads()  # closed, the worker's thread is let go


def test_the_lender_is_taken_by_the_boot_once(
    mode: WorkerMode, submission: Submission, solution: Submission, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[str] = []
    take = Lenders.take

    def counted(self: Lenders, wanted: Submission) -> Any:
        taken.append(threading.current_thread().name)
        return take(self, wanted)

    monkeypatch.setattr(Lenders, "take", counted)
    with Workers(DEFAULT_LIMITS, mode) as workers:
        workers.boot(submission, solution)
        lender = workers.lender(solution)
        assert taken == ["grader-boot"]
        lender.ready()
        assert lender.call("triple", [2], {}) == 6
        assert workers.lender(solution) is lender
    assert not _boot_threads()


def test_a_boot_that_fails_raises_where_its_worker_is_needed(
    mode: WorkerMode, submission: Submission, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> LearnerProcess:
        raise OSError("no room for another process")

    monkeypatch.setattr(runner, "LearnerProcess", broken)
    with Workers(DEFAULT_LIMITS, mode) as workers:
        workers.boot(submission)  # returns: the spawn fails on its own thread
        with pytest.raises(OSError, match="no room"):
            workers.ready()
        with pytest.raises(OSError, match="no room"):
            workers.start(submission)  # tries again, on this thread
    assert not _boot_threads()  # closing raised nothing, and let the boot's thread go


def test_closed_during_its_boot_the_worker_is_ended_once_booted_and_its_thread_let_go(
    mode: WorkerMode, submission: Submission, held: Held, monkeypatch: pytest.MonkeyPatch
) -> None:
    booted = _closes_seen(monkeypatch)
    with Workers(DEFAULT_LIMITS, mode) as workers:
        workers.boot(submission)
        assert held.entered.wait(30)
        threading.Timer(0.2, held.go).start()
    # leaving it closed the workers: it waited for the boot, then ended what it started
    assert len(booted) == 1 and not booted[0].alive
    assert not _boot_threads()


def test_a_signal_while_waiting_for_the_boot_loses_nothing(
    mode: WorkerMode, submission: Submission, held: Held, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``grade`` turns SIGTERM into a ``SystemExit`` on its main thread, which may be waiting for the boot: the
    boot must still be there for ``close`` to wait for and end what it made (else its folder is left behind)."""
    booted = _closes_seen(monkeypatch)

    def interrupt(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    before = signal.signal(signal.SIGALRM, interrupt)
    try:
        with Workers(DEFAULT_LIMITS, mode) as workers:
            workers.boot(submission)
            assert held.entered.wait(30)
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            with pytest.raises(SystemExit):
                workers.ready()  # held: the signal arrives while it waits
            held.go()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
    assert len(booted) == 1 and not booted[0].alive
    assert not _boot_threads()


def test_a_lesson_that_fails_to_open_during_the_boot_leaves_no_worker_and_gives_the_lender_back(
    mode: WorkerMode, submission: Submission, held: Held, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Grader.grade`` boots, then opens the lesson's suites (which raises for a broken lesson) while the boot is
    still under way: what the boot made is closed, and the lender given back, once it is done."""
    booted = _closes_seen(monkeypatch)
    given: list[object] = []
    give = Lenders.give
    monkeypatch.setattr(Lenders, "give", lambda self, lender: (given.append(lender), give(self, lender))[1])

    def broken_lesson(self: Grader, lesson_id: str) -> Any:
        assert held.entered.wait(30)
        threading.Timer(0.2, held.go).start()
        raise LessonError("the suites do not import")

    monkeypatch.setattr(Grader, "session", broken_lesson)
    with Grader.cold(GradeOptions(mode=mode)) as grader, pytest.raises(LessonError, match="do not import"):
        grader.grade(submission, "decode")
    assert len(booted) == 1 and not booted[0].alive
    assert len(given) == 1
    assert not _boot_threads()


def _closes_seen(monkeypatch: pytest.MonkeyPatch) -> list[LearnerProcess]:
    """The workers closed from now on (the lender's included)."""
    closed: list[LearnerProcess] = []
    close = LearnerProcess.close

    def seen(self: LearnerProcess) -> None:
        if self.submission.path.parent.name == "learner":
            closed.append(self)
        close(self)

    monkeypatch.setattr(LearnerProcess, "close", seen)
    return closed


def _boot_threads(wait: float = 5.0) -> list[threading.Thread]:
    """The boot threads still alive once ``wait`` seconds have given released ones time to end."""
    deadline = time.monotonic() + wait
    while True:
        alive = [t for t in threading.enumerate() if t.name == "grader-boot"]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.01)


ADOPTS = """
import os
from grader.batch.work import Settings, start_grading_process
from grader.execute import bubblewrap
from grader.pipeline import GradeOptions

assert bubblewrap.known_trial() is None  # a fresh process has tried nothing

def no_trial(exe):
    raise AssertionError("a grading process started a trial sandbox of its own")

bubblewrap._trial = no_trial
start_grading_process(Settings(GradeOptions()), os.getpid(), None, (None, "", "the batch found none"))
print(bubblewrap.bwrap_problem(), bubblewrap.known_trial(), flush=True)  # os._exit flushes nothing
os._exit(0)
"""


def test_a_grading_process_takes_the_batchs_trial_of_bubblewrap_as_its_own() -> None:
    """A batch tries bubblewrap once; each grading process it starts takes that trial instead of starting a trial
    sandbox of its own (~40 ms of CPU, ~90 ms before its zygote could boot)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", ADOPTS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "the batch found none (None, '', 'the batch found none')"
