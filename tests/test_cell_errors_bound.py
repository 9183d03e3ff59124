"""Many cells that raise (HOSTILE5 finding 12): the worker lists the first ``MAX_CELL_ERRORS`` and counts the rest,
so the notebook is graded and says what happened, instead of crashing with "a message larger than 1024 KB ...
do not write to files or pipes" (the list of 20,000 errors was that message)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from grader.config import DEFAULT_LIMITS, DEFAULT_MODE
from grader.execute.protocol import MAX_CELL_ERRORS
from grader.execute.worker import start_worker
from grader.read import read_submission

#: A message of 16 KB: 400 bare errors (~50 bytes each) were more than one message, two hundred are not.
SMALL = replace(DEFAULT_LIMITS, timeout=20.0, max_message_kb=16)


@pytest.mark.slow
def test_a_notebook_of_many_raising_cells_runs_and_counts_the_errors_it_does_not_list(
    write_notebook: Callable[..., Path],
) -> None:
    cells = 400
    path = write_notebook(["a = 1", *["raise ValueError" for _ in range(cells)], "b = a + 1"])
    worker, execution = start_worker(read_submission(path), SMALL, DEFAULT_MODE)
    with worker:
        assert worker.value("b") == 2  # the cells after them ran, and the notebook was not called a crash
    assert len(execution.cell_errors) == MAX_CELL_ERRORS
    assert execution.more_cell_errors == cells - MAX_CELL_ERRORS
