"""Scale-out: a batch on a real Dask cluster (daemonic worker processes) gives every learner the same row.

The rows expected here are the ones local processes give (tests/test_batch.py); tests/test_one_score.py
compares local and Dask batches question by question on the Decode lesson.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.batch_support import (
    LESSONS,
    LOOPS_FOREVER,
    SOLVED_SCORES,
    SQUARES_SOLVED,
    UNTOUCHED,
    WRONG_SCORES,
    WRONG_SQUARE,
    ZERO_SCORES,
    batch,
    question_scores,
    results,
    write_nb,
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    # Worker processes are daemonic: grading must not need process pools inside them.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        yield local


@pytest.mark.slow
def test_a_dask_cluster_grades_like_local_processes(tmp_path: Path, cluster: Any) -> None:
    subs, out = tmp_path / "subs", tmp_path / "results"
    write_nb(subs / "ada.ipynb", SQUARES_SOLVED)
    write_nb(subs / "bob.ipynb", WRONG_SQUARE)
    write_nb(subs / "cy.ipynb", LOOPS_FOREVER)
    write_nb(subs / "ike.ipynb", UNTOUCHED)
    (subs / "fay.ipynb").write_text("not a notebook")
    result = batch(str(subs), "--out", str(out), *LESSONS, "--timeout", "2", "--dask", cluster.scheduler_address)
    assert result.returncode == 0, result.stderr
    rows = {k: (v["status"], question_scores(v)) for k, v in results(out).items()}
    assert rows == {
        "ada": ("graded", SOLVED_SCORES),
        "bob": ("graded", WRONG_SCORES),
        "cy": ("timed-out", ZERO_SCORES),
        "ike": ("graded", ZERO_SCORES),
        "fay": ("unreadable", ZERO_SCORES),
    }
