"""A batch's local pools (grader/batch/dispatch.py): a pool started before its tasks are known grades them, one no
task uses is stopped, and one started for other settings is not used; and when a batch starts its pool early
(grader/batch/run.py)."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.batch import dispatch
from grader.batch.dispatch import LocalPools
from grader.batch.gradebook import FILE_NAME
from grader.batch.layouts import ONE_NOTEBOOK
from grader.batch.run import BatchOptions, _grades_every_one
from grader.batch.work import Settings, Task
from grader.config import DEFAULT_LIMITS
from grader.errors import GraderError
from grader.model import Report
from grader.pipeline import GradeOptions
from grader.read import read_submission
from tests.conftest import FIXTURE_LESSONS, SQUARES_SOLVED, notebook

pytestmark = pytest.mark.slow  # grading processes are started: seconds each


def _tasks(tmp_path: Path, settings: Settings, n: int) -> list[Task]:
    tasks = []
    tmp_path.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        path = tmp_path / f"l{i}.ipynb"
        nbformat.write(notebook(SQUARES_SOLVED), path)
        tasks.append(Task(f"l{i}", read_submission(path), "squares", settings))
    return tasks


def _settings(**limits: Any) -> Settings:
    options = GradeOptions(lessons_root=FIXTURE_LESSONS, limits=replace(DEFAULT_LIMITS, **limits))
    return Settings(options.for_any_lesson())


@pytest.fixture
def pools_made(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every pool the dispatch makes, in order."""
    made: list[Any] = []
    new_pool = dispatch._new_pool

    def counted(settings: Settings, processes: int) -> Any:
        made.append(new_pool(settings, processes))
        return made[-1]

    monkeypatch.setattr(dispatch, "_new_pool", counted)
    return made


def test_a_pool_started_before_its_tasks_grades_them(tmp_path: Path, pools_made: list[Any]) -> None:
    settings = _settings()
    with LocalPools(2) as pools:
        pools.start(settings, most=5)
        (pool,) = pools_made
        started = list(pool._processes.values())
        assert len(started) == 2, "the grading processes start at once, before any task is given"
        results = dict(pools.run(_tasks(tmp_path, settings, 3)))
    assert len(pools_made) == 1, "the tasks were graded in a pool of their own, not the one started for them"
    assert sorted(t.learner for t in results) == ["l0", "l1", "l2"]
    assert all(isinstance(r, Report) and r.score == 5.0 for r in results.values())
    assert not any(p.is_alive() for p in started), "a grading process outlived its batch"


def test_a_started_pool_no_task_uses_is_stopped(pools_made: list[Any]) -> None:
    with LocalPools(2) as pools:
        pools.start(_settings(), most=1)
        (pool,) = pools_made
        started = list(pool._processes.values())
        assert len(started) == 1, "one notebook: one grading process"
        inflight = pools._inflight
        assert inflight.is_dir()
    assert not any(p.is_alive() for p in started)
    assert not inflight.exists()


def test_a_pool_started_for_other_settings_is_not_used(tmp_path: Path, pools_made: list[Any]) -> None:
    with LocalPools(1) as pools:
        pools.start(_settings(), most=3)
        first = list(pools_made[0]._processes.values())
        other = _settings(output_kb=DEFAULT_LIMITS.output_kb + 1)
        results = dict(pools.run(_tasks(tmp_path, other, 2)))
    assert len(pools_made) == 2
    assert all(isinstance(r, Report) and r.score == 5.0 for r in results.values())
    assert not any(p.is_alive() for p in first)


@pytest.mark.parametrize(
    ("given", "gradebook", "layout", "expected"),
    [
        ({}, False, "flat folder", True),  # a first run grades every notebook
        ({}, True, "flat folder", False),  # a rerun grades what changed, maybe nothing
        ({"regrade": True}, True, "flat folder", True),
        ({"only": ("ada",)}, False, "flat folder", False),
        ({}, True, ONE_NOTEBOOK, True),  # one learner regraded into the class's folder
    ],
)
def test_a_batch_starts_its_processes_early_only_when_it_grades_every_notebook(
    tmp_path: Path, given: dict[str, Any], gradebook: bool, layout: str, expected: bool
) -> None:
    if gradebook:
        (tmp_path / FILE_NAME).write_bytes(b"")
    assert _grades_every_one(tmp_path, BatchOptions(**given), layout) is expected


def test_kept_processes_grade_the_next_run_and_a_larger_one_gets_more(tmp_path: Path, pools_made: list[Any]) -> None:
    """``keep`` (``grade class``): the processes that graded one run grade the next of the same settings, while
    running between them; a run that needs more processes than they are gets a new pool, and they end."""
    settings = _settings()
    with LocalPools(2, keep=True) as pools:
        first = dict(pools.run(_tasks(tmp_path / "a", settings, 1)))  # one notebook: one process
        (small,) = pools_made
        one = list(small._processes.values())
        assert len(one) == 1 and one[0].is_alive(), "kept between runs"
        again = dict(pools.run(_tasks(tmp_path / "b", settings, 1)))
        assert len(pools_made) == 1, "the next run of the same settings started processes of its own"
        more = dict(pools.run(_tasks(tmp_path / "c", settings, 3)))
        assert len(pools_made) == 2, "three notebooks on two CPUs kept to one process"
        one[0].join(30)
        assert not one[0].is_alive(), "the smaller pool did not end"
        two = list(pools_made[1]._processes.values())
    assert [r.score for r in (*first.values(), *again.values(), *more.values())] == [5.0] * 5  # type: ignore[union-attr]
    assert not any(p.is_alive() for p in two)


def test_without_keep_a_run_ends_its_processes(tmp_path: Path, pools_made: list[Any]) -> None:
    settings = _settings()
    with LocalPools(1) as pools:
        dict(pools.run(_tasks(tmp_path / "a", settings, 1)))
        ended = list(pools._ending)
        assert len(ended) == 1 and pools._live is None, "a batch's processes were not told to end with its last task"
        dict(pools.run(_tasks(tmp_path / "b", settings, 1)))
        assert len(pools_made) == 2
    assert not any(p.is_alive() for p in ended)


def test_a_kept_pool_whose_process_died_meanwhile_is_not_used(tmp_path: Path, pools_made: list[Any]) -> None:
    """A process of a kept pool killed while it waited for the next batch (the OOM killer, a stray signal) broke the
    pool: the next batch gets a fresh one, not "stopped before grading anything"."""
    settings = _settings()
    with LocalPools(1, keep=True) as pools:
        dict(pools.run(_tasks(tmp_path / "a", settings, 1)))
        (process,) = pools_made[0]._processes.values()
        process.kill()
        process.join(30)
        deadline = time.monotonic() + 30
        while not pools_made[0]._broken and time.monotonic() < deadline:  # its manager thread notices
            time.sleep(0.01)
        results = dict(pools.run(_tasks(tmp_path / "b", settings, 1)))
    assert len(pools_made) == 2
    assert [r.score for r in results.values()] == [5.0]  # type: ignore[union-attr]


def test_pools_refuse_to_grade_outside_a_with_block(tmp_path: Path) -> None:
    """Outside ``with`` there is no in-flight folder: tasks marked themselves in the working directory, and the batch
    deleted every file there it took for a marker."""
    pools = LocalPools(1)
    with pytest.raises(GraderError, match="inside a `with` block"):
        pools.start(_settings(), most=1)
    with pytest.raises(GraderError, match="inside a `with` block"):
        next(iter(pools.run(_tasks(tmp_path, _settings(), 1))))


def test_a_run_its_caller_leaves_by_raising_is_stopped_on_the_way_out(tmp_path: Path, pools_made: list[Any]) -> None:
    """The batch raised while recording a result (a full disk): the pool of the run it left behind was still grading
    when the in-flight folder was deleted, and was stopped only when the run was collected."""
    settings = _settings()
    with pytest.raises(OSError, match="disk full"), LocalPools(2) as pools:
        run = pools.run(_tasks(tmp_path, settings, 6))
        next(run)
        processes = list(pools_made[0]._processes.values())
        raise OSError("disk full")
    assert not any(p.is_alive() for p in processes), "a grading process outlived the batch that raised"
    run.close()  # collected later: nothing more to stop, and nothing raised


def test_a_stop_signal_as_the_in_flight_folder_is_made_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM (`grade`'s handler raises SystemExit wherever the main thread is) the moment the in-flight folder is
    made: nothing is left. Before, a signal there (inside ``TemporaryDirectory``) left ``grade-inflight-*`` behind
    (a CI run of ``test_hostile_signals``, the "starting" stage)."""
    import os
    import signal
    import tempfile

    real_mkdir, made = os.mkdir, []

    def mkdir_then_signalled(path: Any, *args: Any, **kwargs: Any) -> None:
        real_mkdir(path, *args, **kwargs)
        if os.path.basename(os.fspath(path)).startswith(dispatch.INFLIGHT_PREFIX):
            made.append(os.fspath(path))
            os.kill(os.getpid(), signal.SIGTERM)  # to this process: any of its threads may take it

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with pytest.raises(SystemExit):
            monkeypatch.setattr(os, "mkdir", mkdir_then_signalled)
            with LocalPools(1):
                time.sleep(1)  # the signal is taken by now, wherever it landed
    finally:
        monkeypatch.setattr(os, "mkdir", real_mkdir)
        signal.signal(signal.SIGTERM, previous)
    assert made and not os.path.exists(made[0]) and list(tmp_path.iterdir()) == []


def test_a_marker_written_as_the_in_flight_folder_is_emptied_is_deleted_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grading process slow to die writes its marker after the folder was listed: the next try deletes it."""
    folder = tmp_path / "grade-inflight-1-x"
    folder.mkdir()
    real, tries = dispatch.remove_tree, []

    def late_marker(path: Path) -> bool:
        tries.append(path)
        if len(tries) == 1:
            (folder / "ada").touch()  # as the folder is emptied
            return False
        return real(path)

    monkeypatch.setattr(dispatch, "remove_tree", late_marker)
    monkeypatch.setattr(dispatch, "STOP_POLL_SECONDS", 0.0)
    dispatch._remove_inflight(folder)
    assert len(tries) == 2 and not folder.exists()
