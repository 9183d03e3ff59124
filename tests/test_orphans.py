"""A sandbox whose bwrap died while it started is ended by ``grade`` as it exits (grader/execute/limits.py).

bubblewrap's ``--die-with-parent`` misses a bwrap killed during its start (containers/bubblewrap#633): the
sandbox's first process then waits forever, re-parented away from the grader. Seen here as a batch's process
group still alive 30 s after ``grade batch`` exited (tests/test_hostile_signals.py, SIGTERM while grading at the
bubblewrap level, on a loaded machine). The orphan is stood in for by a ``sleep`` copied under the name ``bwrap``
and left behind by a shell that exits; each run is its own Python process, so the test process is never made a
subreaper.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = """
import os, subprocess, sys, time
from grader.execute.limits import _name, live_processes
from grader.execute.upkeep import adopt_orphans, end_adopted_sandboxes
if sys.argv[2] == "adopt":
    adopt_orphans()
subprocess.run(["sh", "-c", sys.argv[1] + " 600 >/dev/null 2>&1 &"], check=True)  # sh exits: its child is orphaned
time.sleep(0.3)
orphan = [p for p, (parent, _) in live_processes().items() if _name(p) == "bwrap" and str(p) != str(os.getpid())
          and open(f"/proc/{p}/cmdline", "rb").read().split(b"\\0")[0] == sys.argv[1].encode()]
adopted = [p for p in orphan if live_processes()[p][0] == os.getpid()]
print(len(orphan), len(adopted), end_adopted_sandboxes(), flush=True)
time.sleep(0.1)
print(sum(1 for p in orphan if p in live_processes()))
for p in orphan:  # the run that adopted nothing leaves its stand-in to init: end it here
    try:
        os.kill(p, 9)
    except ProcessLookupError:
        pass
"""


def _run(tmp_path: Path, how: str) -> list[str]:
    fake = tmp_path / "bwrap"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", fake)
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT), str(fake), how], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_CHILD_SUBREAPER and /proc are Linux's")
def test_an_orphaned_sandbox_comes_to_grade_and_is_ended_as_it_exits(tmp_path: Path) -> None:
    found, adopted, ended, alive = _run(tmp_path, "adopt")
    assert (found, adopted, ended, alive) == ("1", "1", "1", "0")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_CHILD_SUBREAPER and /proc are Linux's")
def test_without_adopting_the_orphan_goes_elsewhere_and_nothing_is_ended(tmp_path: Path) -> None:
    """The control: the same orphan, not taken in, is not this process's to end (and would outlive it)."""
    found, adopted, ended, alive = _run(tmp_path, "none")
    assert (found, adopted, ended, alive) == ("1", "0", "0", "1")
