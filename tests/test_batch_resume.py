"""A batch killed with SIGKILL loses nothing it committed, leaves nothing running, and the rerun finishes it and
deletes the workers' folders its orphans had no time to."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.batch_support import LESSONS, SOLVED_SCORES, batch, grades, question_scores, results, write_nb
from tests.conftest import REPO, SQUARES_SOLVED
from tests.waiting import wait_until

LEARNERS = [f"learner{i}" for i in range(6)]


def committed(db: Path) -> list[tuple[int, str, int]]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT id, learner, run_id FROM gradings ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # the schema is not there yet
        return []


def leftovers(temp: Path) -> list[str]:
    return [name for name in os.listdir(temp) if name.startswith(("grader-zygote-", "grader-worker-"))]


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_a_killed_batch_loses_nothing_and_the_rerun_finishes_it(tmp_path: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "results"
    for i, learner in enumerate(LEARNERS):  # slow-ish: each notebook sleeps before its answers
        write_nb(subs / f"{learner}.ipynb", [f"import time\ntime.sleep(2)  # {i}", *SQUARES_SOLVED])
    db = out / "gradebook.sqlite"
    args = ["grade", "batch", str(subs), "--out", str(out), *LESSONS, "--jobs", "2"]
    log = open(tmp_path / "first.log", "w")
    temp = Path(tempfile.mkdtemp(prefix="grader-resume-"))  # both batches' temporary folders go here
    temp.chmod(0o711)  # traversable, as /tmp is, for a worker that runs as another user
    env = {**os.environ, "TMPDIR": str(temp)}
    try:
        first = subprocess.Popen(args, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        try:
            wait_until(
                lambda: committed(db) or first.poll() is not None,
                240,
                "the batch committing its first notebook",
                every=0.1,
            )
            os.kill(first.pid, signal.SIGKILL)  # the batch process only, as `kill -9 PID` would
            first.wait(10)
            before = committed(db)
            assert 1 <= len(before) < len(LEARNERS), (tmp_path / "first.log").read_text()
            with sqlite3.connect(db) as conn:
                assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            # Its grading processes notice they are orphans and exit, killing the learner code they ran.
            wait_until(
                lambda: not group_alive(first.pid),
                30,
                "the orphaned grading processes exiting (they were left running)",
            )
        finally:
            log.close()
            if group_alive(first.pid):
                os.killpg(first.pid, signal.SIGKILL)
        # An orphan deletes its workers' folders for at most a few seconds before it exits (STOP_SECONDS): on a
        # busy machine some are left (its lender's worker's: one a grading process), and the next batch deletes
        # them. One is planted, of a process surely gone, so that the rerun is seen deleting them under any load.
        (temp / f"grader-worker-{_dead_pid()}-planted").mkdir()

        rerun = batch(*args[2:], env=env)
        assert rerun.returncode == 0, rerun.stderr
        assert not leftovers(temp), f"the rerun left the killed batch's workers' folders: {leftovers(temp)}"
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    assert f"{len(LEARNERS) - len(before)} graded now, {len(before)} unchanged" in rerun.stdout
    assert "the previous run did not finish" in rerun.stdout
    after = committed(db)
    assert after[: len(before)] == before  # nothing committed was lost or rewritten
    assert sorted(learner for _, learner, _ in after) == LEARNERS  # each graded exactly once
    assert {run for _, _, run in after} == {1, 2}
    assert {k: question_scores(v) for k, v in results(out).items()} == {k: SOLVED_SCORES for k in LEARNERS}
    assert set(grades(out)) == set(LEARNERS)


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def test_an_orphaned_grading_process_exits_even_if_its_cleanup_fails() -> None:
    script = (
        "import grader.batch.work as work\n"
        "class Broken:\n"
        "    def abandon(self):\n"
        "        raise RuntimeError('cleanup failed')\n"
        "work._PROCESS_CONTEXT = Broken()\n"
        "try:\n"
        "    work._exit_now()  # in a grading process it runs in the parent-watch thread: an error ends only that\n"
        "except BaseException:\n"
        "    pass\n"
        "print('still running')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "still running" not in result.stdout, result.stderr


def test_an_orphaned_grading_process_lets_a_close_under_way_finish_before_it_exits(tmp_path: Path) -> None:
    """The pool's own exit and the parent-watch thread can both be closing the context when the batch process is
    killed: the second must wait for the first, not exit while its workers' folders are being deleted."""
    deleted = tmp_path / "deleted"
    script = (
        "import threading, time\n"
        "import grader.batch.work as work\n"
        "closing = threading.Event()\n"
        "class Slow:\n"
        "    def close(self):\n"
        "        closing.set()\n"
        "        time.sleep(1)  # ending its workers, then deleting their folders\n"
        f"        open({str(deleted)!r}, 'w').close()\n"
        "    def abandon(self):\n"
        "        pass  # what close has begun is marked closed: nothing left to do here\n"
        "work._PROCESS_CONTEXT = context = Slow()\n"
        "threading.Thread(target=work._close, args=(context,)).start()  # the pool's exit\n"
        "closing.wait()\n"
        "work._exit_now()  # the parent-watch thread's, meanwhile\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert deleted.exists(), "the process exited before the close under way had deleted the folders"
