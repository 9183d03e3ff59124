"""The one list of processes (``limits.process_ids``) and what is built on it: the live processes, and which
leftover folders belong to a grader that is gone."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from grader.execute import limits

pytestmark = pytest.mark.skipif(not Path("/proc/self").exists(), reason="lists processes from /proc (Linux)")


def test_every_process_is_listed_and_a_zombie_is_not_live() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: a zombie
    try:
        assert {os.getpid(), child.pid} <= set(limits.process_ids())
        live = limits.live_processes()
        assert live[os.getpid()] == (os.getppid(), os.getuid())
        assert child.pid not in live
    finally:
        child.wait()
    assert child.pid not in limits.process_ids()


GHOST = """
import ctypes, threading, time
threading.Thread(target=time.sleep, args=(60,)).start()
print("haunting", flush=True)
ctypes.CDLL(None).pthread_exit(None)
"""


def test_a_process_whose_first_thread_ended_is_live_and_is_killed_with_its_uid() -> None:
    """Its first thread ended (``pthread_exit``), it shows in ``/proc`` as a zombie while its other threads run
    on: it is live, and ending a worker kills it (a learner's outlived the sweep that way)."""
    ghost = subprocess.Popen([sys.executable, "-c", GHOST], stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert ghost.stdout is not None and ghost.stdout.readline() == b"haunting\n"
        for _ in range(200):
            with open(f"/proc/{ghost.pid}/status") as status:
                if "zombie" in status.read():
                    break
            time.sleep(0.01)
        assert ghost.pid in limits.live_processes()
        limits.end_worker(ghost.pid, os.getuid() if os.getuid() != 0 else None)
        assert ghost.wait(timeout=5) == -9
    finally:
        ghost.kill()
        ghost.wait()


def test_the_processes_of_this_user_are_counted_from_the_same_list(monkeypatch: pytest.MonkeyPatch) -> None:
    assert limits._running_processes() >= 1
    monkeypatch.setattr(limits, "process_ids", lambda: [os.getpid(), os.getpid()])
    assert limits._running_processes() == 2
    monkeypatch.setattr(limits, "process_ids", list)
    assert limits._running_processes() == 0


def test_only_the_folders_of_a_grader_that_is_gone_are_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    ours = tmp_path / f"grader-test-{os.getpid()}-abc"
    theirs = tmp_path / f"grader-test-{gone.pid}-def"
    for folder in (ours, theirs):
        (folder / "inside").mkdir(parents=True)
    limits.remove_stale("grader-test-")
    assert ours.is_dir() and not theirs.exists()
