"""Step 2 on its own: the worker runs cells like Jupyter would, and stops what must be stopped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from grader.config import DEFAULT_LIMITS, DEFAULT_MODE
from grader.errors import ExecutionTimeout, WorkerCrashed
from grader.execute.worker import LearnerProcess, start_worker
from grader.read import read_submission

FAST = replace(DEFAULT_LIMITS, timeout=10.0, call_timeout=2.0)


def test_ipython_syntax_and_errors_do_not_stop_the_notebook(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(
        ["%time a = 1\n!echo shell-ok\nlen?", "1 / 0", "b = a + 1", ("raise SystemExit", ["self-check"])]
    )
    worker, execution = start_worker(read_submission(path), FAST, DEFAULT_MODE)
    with worker:
        assert worker.value("b") == 2
        assert [(e.index, e.ename) for e in execution.cell_errors] == [(2, "ZeroDivisionError")]
        assert execution.isolation
    output, _ = worker.output()
    assert "shell-ok" in output


def test_input_gets_no_answer(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(["name = input('name? ')", "after = 1"])
    worker, execution = start_worker(read_submission(path), FAST, DEFAULT_MODE)
    with worker:
        assert execution.cell_errors[0].ename == "EOFError"
        assert worker.value("after") == 1


def test_a_loop_at_top_level_times_out_naming_the_cell(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(["x = 1", "while True:\n    pass"])
    worker = LearnerProcess(read_submission(path), replace(FAST, timeout=1.0), DEFAULT_MODE)
    with pytest.raises(ExecutionTimeout) as err:
        worker.run_notebook()
    assert "cell 2" in str(err.value) and "while True:" in str(err.value)
    assert not worker.alive


def test_os_exit_is_a_crash_with_a_reason(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(["import os\nos._exit(3)"])
    worker = LearnerProcess(read_submission(path), FAST, DEFAULT_MODE)
    with pytest.raises(WorkerCrashed, match="exited with status 3"):
        worker.run_notebook()


def test_output_is_capped(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(["for i in range(200000):\n    print('flood' * 10)", "done = True"])
    worker, _ = start_worker(read_submission(path), replace(FAST, output_kb=4), DEFAULT_MODE)
    with worker:
        assert worker.value("done") is True
    output, truncated = worker.output()
    assert truncated and len(output.encode()) <= 4 * 1024


def test_workdir_is_removed(write_notebook: Callable[..., Path]) -> None:
    path = write_notebook(["open('left.txt', 'w').write('x')"])
    worker, _ = start_worker(read_submission(path), FAST, DEFAULT_MODE)
    workdir = worker.workdir
    assert (workdir / "left.txt").exists()
    worker.close()
    assert not workdir.exists()
