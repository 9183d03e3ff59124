"""Hostile round (issue 29), item 2: SIGTERM to the whole process group of ``grade batch``, many times, at every
stage, as GNU ``timeout``, systemd, a CI cancel and ``kill -TERM -PGID`` send it.

A grading process's SIGTERM handler used to clean up on the main thread, wherever grading was; the next SIGTERM
re-entered it inside ``Lenders.close`` and waited forever on the lock its own interrupted frame held, while the
batch process waited forever in the pool's shutdown. Now no handler does more than note the signal
(``batch/work.py``: a wakeup pipe and a thread; ``batch/dispatch.py``: a flag the dispatch loop looks at), and
every wait on the way out is bounded. Each test asserts that the batch exits, says why with status 143, leaves no
process or folder behind, and keeps what it graded: the same command run again grades everyone in full.

Run at every isolation level of ``sandbox.LEVELS`` that works here.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.batch.gradebook import FILE_NAME
from grader.environment import ISOLATION_ENV
from tests.batch_support import LESSONS, SOLVED_SCORES, batch, question_scores, results, write_nb
from tests.conftest import SQUARES_SOLVED
from tests.test_batch_resume import group_alive
from tests.test_hostile import level_params, shared_tmp  # noqa: F401  (fixture)
from tests.test_hostile_sandbox import OURS, working_in
from tests.waiting import wait_until

LEVELS = level_params()
LEARNERS = ("ada", "bob", "cy", "dee", "eve", "fay")
SLOW = "import time\ntime.sleep(1.5)"
"""A first cell that keeps each notebook's worker alive a while, so that grading is under way when signals come."""
SIGNALS = 10
#: A grading process, started as a batch's pool starts one, that receives SIGTERM twice while its main thread is
#: inside ``Lenders`` (holding its lock, as ``take``, ``give`` and ``close`` do on every notebook).
SIGNALLED_INSIDE_LENDERS = """
import os, signal, sys, time
from grader.batch import work
from grader.pipeline import GradeOptions
from pathlib import Path
work.start_grading_process(work.Settings(GradeOptions(lessons_root=Path(sys.argv[1])).for_any_lesson()), os.getppid())
lenders = work._PROCESS_CONTEXT.grader.runner._lenders
with lenders._lock:
    os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(120)
print("not stopped")
"""
EXIT_SECONDS = 60
"""Far beyond what stopping takes (a few seconds); a batch that deadlocks never exits."""


@pytest.mark.slow  # 6 s a level: the exit waits out its bounded wait for the lock held by the signalled thread
@pytest.mark.parametrize("level", LEVELS)
def test_a_grading_process_signalled_while_it_holds_a_lock_exits(level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The handler used to clean up on the main thread, so a SIGTERM that came while that thread held the lenders'
    lock waited forever for it (``Lenders.close``); now the process kills its workers and exits, status 1."""
    monkeypatch.setenv(ISOLATION_ENV, level)
    lessons = LESSONS[1]
    child = subprocess.Popen([sys.executable, "-c", SIGNALLED_INSIDE_LENDERS, lessons], stdout=subprocess.PIPE)
    try:
        out, _ = child.communicate(timeout=EXIT_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        pytest.fail(f"the grading process did not exit within {EXIT_SECONDS} s of SIGTERM (a deadlock)")
    assert child.returncode == 1 and b"not stopped" not in out


def _deaf_to_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def test_a_stopped_pool_is_ended_even_when_a_process_ignores_sigterm() -> None:
    """The batch's side: stopping a pool never waits for its notebooks, nor for a process that does not exit on
    SIGTERM (``shutdown(wait=True)`` waited forever for one): it is killed a bounded time later."""
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor

    from grader.batch.dispatch import _stop_pool

    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_deaf_to_sigterm)
    future = pool.submit(time.sleep, 600)
    while not future.running():
        time.sleep(0.01)
    processes = list(pool._processes.values())
    stopping = threading.Thread(target=_stop_pool, args=(pool,), daemon=True)
    stopping.start()
    stopping.join(EXIT_SECONDS)
    assert not stopping.is_alive(), "stopping the pool waited for a process that ignores SIGTERM"
    assert not any(p.is_alive() for p in processes)


def _first_child(grade: subprocess.Popen[str], _out: Path, _temp: Path) -> bool:
    """Starting: a grading process exists (the batch has read the notebooks and started its pool)."""
    return any(_parent_of(pid) == grade.pid for pid in _pids())


def _grading(_grade: subprocess.Popen[str], _out: Path, temp: Path) -> bool:
    """Grading: a notebook is in flight in a grading process."""
    return any(p.is_file() for p in temp.glob("grade-inflight-*/*"))


def _writing(_grade: subprocess.Popen[str], out: Path, _temp: Path) -> bool:
    """Writing the outputs: the feedback folder is there (made before the pages are rendered; every file is moved
    into place last, together)."""
    return (out / "feedback").is_dir()


STAGES: dict[str, Callable[[subprocess.Popen[str], Path, Path], bool]] = {
    "starting": _first_child,
    "grading": _grading,
    "writing outputs": _writing,
}


def _pids() -> list[int]:
    return [int(e.name) for e in os.scandir("/proc") if e.name.isdigit()]


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rpartition(b")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("stage", list(STAGES))
def test_sigterm_to_the_group_many_times_ends_the_batch_and_keeps_its_rows(
    level: str,
    stage: str,
    shared_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,  # noqa: F811
) -> None:
    monkeypatch.setenv(ISOLATION_ENV, level)
    temp = shared_tmp / f"signals-{level}-{stage.replace(' ', '-')}-{time.monotonic_ns()}"
    temp.mkdir()
    temp.chmod(0o711)  # every user may traverse it, as /tmp: the process level still drops to a uid of its own
    folder, out = temp / "subs", temp / "out"
    for learner in LEARNERS:
        write_nb(folder / f"{learner}.ipynb", [SLOW, *SQUARES_SOLVED])
    env = {**os.environ, "TMPDIR": str(temp)}
    command = ["grade", "batch", str(folder), *LESSONS, "--out", str(out), "--jobs", "2"]
    grade = subprocess.Popen(command, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        reached = STAGES[stage]
        while grade.poll() is None and not reached(grade, out, temp) and time.monotonic() < deadline:  # type: ignore[arg-type]
            time.sleep(0.01)
        assert grade.poll() is None or stage == "writing outputs", f"the batch ended before {stage}"
        for _ in range(SIGNALS):  # as `timeout`, systemd or a CI cancel: the whole group, again and again
            try:
                os.killpg(grade.pid, signal.SIGTERM)
            except ProcessLookupError:
                break
            time.sleep(0.01)
        try:
            _, stderr = grade.communicate(timeout=EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"grade batch did not exit within {EXIT_SECONDS} s of SIGTERM at {stage} (a deadlock)")
        wait_until(lambda: not group_alive(grade.pid), 30, "the end of its grading processes")  # a loaded machine
    finally:
        if grade.poll() is None:
            os.killpg(grade.pid, signal.SIGKILL)
            grade.wait()
    said = stderr.decode(errors="replace")
    if grade.returncode != 0:  # a batch already finished when the signals came exits 0
        assert grade.returncode == 128 + signal.SIGTERM, said[-2000:]
        assert "stopped by SIGTERM" in said, said[-2000:]
    wait_until(lambda: working_in(temp) == [], 30, "the end of every learner's worker")
    assert [name for name in os.listdir(temp) if name.startswith(OURS)] == [], "a grading folder was left behind"
    if (out / FILE_NAME).exists():  # the gradebook is whole: what was recorded before the signal can be read
        with sqlite3.connect(out / FILE_NAME) as book:
            assert book.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    again = batch(str(folder), *LESSONS, "--out", str(out), "--jobs", "2", timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert {learner: question_scores(r) for learner, r in results(out).items()} == dict.fromkeys(
        LEARNERS, SOLVED_SCORES
    )


@pytest.mark.slow
def test_sigterm_to_grade_class_while_its_kept_processes_grade_the_next_lesson(shared_tmp: Path) -> None:  # noqa: F811
    """`grade class` keeps its grading processes from one lesson's batch to the next (`LocalPools(keep=True)`):
    signalled while they grade its second lesson, it exits 143 and says why, leaves no process or folder, keeps the
    first lesson's rows, and the same command grades the rest."""
    from tests.test_chapter import _two_lessons

    temp = shared_tmp / f"class-{time.monotonic_ns()}"
    temp.mkdir()
    temp.chmod(0o711)
    lessons, klass, out = _two_lessons(temp), temp / "class", temp / "out"
    for learner in LEARNERS[:4]:
        write_nb(klass / "squares" / f"{learner}.ipynb", [SLOW, *SQUARES_SOLVED])
        write_nb(klass / "cubes" / f"{learner}.ipynb", [SLOW, *SQUARES_SOLVED], "cubes")
    command = ["grade", "class", str(klass), "--out", str(out), "--lessons", str(lessons), "--jobs", "2"]
    env = {**os.environ, "TMPDIR": str(temp)}
    grade = subprocess.Popen(command, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until(
            lambda: (out / "cubes" / "grades.csv").exists() and _grading(grade, out, temp),  # type: ignore[arg-type]
            120,
            "the second lesson's grading",
        )
        for _ in range(SIGNALS):
            os.killpg(grade.pid, signal.SIGTERM)
            time.sleep(0.01)
        _, stderr = grade.communicate(timeout=EXIT_SECONDS)
        wait_until(lambda: not group_alive(grade.pid), 30, "the end of its grading processes")
    finally:
        if grade.poll() is None:
            os.killpg(grade.pid, signal.SIGKILL)
            grade.wait()
    said = stderr.decode(errors="replace")
    assert grade.returncode == 128 + signal.SIGTERM, said[-2000:]
    assert "stopped by SIGTERM" in said, said[-2000:]
    wait_until(lambda: working_in(temp) == [], 30, "the end of every learner's worker")
    assert [name for name in os.listdir(temp) if name.startswith(OURS)] == [], "a grading folder was left behind"
    assert set(results(out / "cubes")) == set(LEARNERS[:4])  # the first lesson's rows were kept
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    for lesson in ("cubes", "squares"):
        scores = {learner: question_scores(r) for learner, r in results(out / lesson).items()}
        assert scores == dict.fromkeys(LEARNERS[:4], SOLVED_SCORES), lesson
