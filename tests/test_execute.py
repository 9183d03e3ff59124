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
    """What a notebook writes where it works is gone once its worker is closed. In a sandbox it works in a folder of
    its own in the sandbox's ``/tmp``, never on the grader's disk; elsewhere in the grader's folder for it."""
    path = write_notebook(["import os\nopen('left.txt', 'w').write('x')\nhome = os.getcwd()"])
    worker, execution = start_worker(read_submission(path), FAST, DEFAULT_MODE)
    workdir = worker.workdir
    try:
        if execution.isolation.startswith("namespaces"):
            assert str(worker.value("home")).startswith("/tmp/learner-") and list(workdir.iterdir()) == []
        else:
            assert (workdir / "left.txt").exists()
    finally:
        worker.close()
    assert not workdir.exists()


def test_a_notebook_imports_the_modules_it_writes_beside_itself(write_notebook: Callable[..., Path]) -> None:
    """As in a Jupyter kernel started in the notebook's folder, its own folder is on the module path (the hostile
    round: ``%%writefile helper.py`` then ``from helper import ...`` failed in the worker, and passed in a kernel)."""
    path = write_notebook(
        [
            "from pathlib import Path\nPath('helper.py').write_text('def seven():\\n    return 7\\n')",
            "from helper import seven\nx = seven()",
            "%%writefile other.py\nEIGHT = 8\n",
            "from other import EIGHT",
        ]
    )
    worker, execution = start_worker(read_submission(path), DEFAULT_LIMITS, DEFAULT_MODE)
    with worker:
        assert execution.cell_errors == ()
        assert (worker.value("x"), worker.value("EIGHT")) == (7, 8)


def test_code_larger_than_a_worker_reads_is_refused_with_a_sentence(
    write_notebook: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notebook whose code is larger than the worker reads in one message is not run, and says why (the hostile
    round: 1.1 MB of code made the worker exit 'before any cell started', pointing at exit() and os._exit())."""
    monkeypatch.setattr("grader.execute.protocol.MAX_RUN_BYTES", 1 << 20)
    path = write_notebook([f"blob = {'x' * (1 << 20)!r}", "y = 1"])
    with pytest.raises(WorkerCrashed, match="code cells hold 1 MB of text, more than the 1 MB a notebook's code may"):
        start_worker(read_submission(path), DEFAULT_LIMITS, DEFAULT_MODE)
    small = write_notebook([f"blob = {'x' * (1 << 19)!r}", "y = 1"], name="small.ipynb")
    worker, execution = start_worker(read_submission(small), DEFAULT_LIMITS, DEFAULT_MODE)
    with worker:
        assert execution.cell_errors == () and worker.value("y") == 1
