"""Two ways grading spends less: ``Learner.once`` (a diagnosis computed once per notebook) and
``upkeep.keep_to_one_cpu`` (a grading process and its learners' workers on one CPU)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.lessons import load_lesson
from grader.selfcheck import NamespaceTarget
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS, REPO

ONCE_SUITE = """
import itertools

from grader.testing import Mismatch, question

_computed = itertools.count(1)


@question("square")
def test_asks_first(learner):
    raise Mismatch(f"once gave {learner.once('panel', lambda: next(_computed))}")


@question("square")
def test_asks_again(learner):
    raise Mismatch(f"once gave {learner.once('panel', lambda: next(_computed))}")


@question("square")
def test_asks_for_another_key(learner):
    raise Mismatch(f"once gave {learner.once('other', lambda: next(_computed))}")
"""


def test_once_is_computed_once_per_notebook_and_again_for_the_next(tmp_path: Path) -> None:
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
    (root / "squares" / "suites" / "test_once.py").write_text(ONCE_SUITE)
    with SuiteSession(load_lesson("squares", root)) as session:
        runs = []
        for _ in range(2):
            outcomes = session.run(NamespaceTarget({"square": lambda x: x * x}), frozenset({"square"}))
            runs.append({o.name: o.message for o in outcomes if o.name.startswith("test_asks")})
    assert runs[0] == {
        "test_asks_first": "once gave 1",
        "test_asks_again": "once gave 1",
        "test_asks_for_another_key": "once gave 2",
    }
    assert runs[1] == {
        "test_asks_first": "once gave 3",
        "test_asks_again": "once gave 3",
        "test_asks_for_another_key": "once gave 4",
    }


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="CPU affinity is Linux's")
@pytest.mark.parametrize("slot", [0, 1, 5])
def test_a_grading_process_keeps_to_the_cpu_of_its_slot(slot: int) -> None:
    cpus = sorted(os.sched_getaffinity(0))
    code = (
        "import os\n"
        "from grader.execute.upkeep import keep_to_one_cpu\n"
        f"keep_to_one_cpu({slot})\n"
        "print(sorted(os.sched_getaffinity(0)))\n"
        "pid = os.fork()\n"  # what it starts from now on inherits it
        "if pid == 0:\n"
        "    print(sorted(os.sched_getaffinity(0)), flush=True)\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.split("\n")[:2] == [str([cpus[slot % len(cpus)]])] * 2


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="CPU affinity is Linux's")
def test_a_process_without_a_slot_keeps_to_the_cpu_it_runs_on() -> None:
    code = (
        "import os\n"
        "from grader.execute.upkeep import _running_on, keep_to_one_cpu\n"
        "cpus = sorted(os.sched_getaffinity(0))\n"
        "keep_to_one_cpu()\n"
        "now = sorted(os.sched_getaffinity(0))\n"
        "print(len(now), now[0] in cpus, _running_on(cpus) == now[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.split() == ["1", "True", "True"]
