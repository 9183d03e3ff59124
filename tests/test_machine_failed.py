"""A failure of the grading machine is never scored as the learner's lost check (HOSTILE5 finding 4): when the
lender's worker does not start (an overloaded machine), the honest notebook is not graded (``crashed``, which a
batch retries and an LMS file leaves blank), instead of one question marked partial with "look for exit()"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grader.errors import MachineFailed
from grader.execute import lender
from grader.execute.worker import LearnerProcess
from grader.grader import grade_notebook
from grader.pipeline import GradeOptions
from tests.conftest import FIXTURE_LESSONS, SQUARES_SOLVED

DID_NOT_START = "The grader's worker did not start within 60 s: the grading machine is overloaded, not your notebook."


class _Overloaded(LearnerProcess):
    """A lender's worker on a machine too busy to start it, as seen in finding 4."""

    def run_notebook(self) -> object:  # type: ignore[override]
        self.close()
        raise MachineFailed(DID_NOT_START)


@pytest.mark.slow
def test_a_lender_that_does_not_start_leaves_the_notebook_ungraded_not_partial(
    write_notebook: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lender, "LearnerProcess", _Overloaded)
    report = grade_notebook(write_notebook(SQUARES_SOLVED), GradeOptions(lessons_root=FIXTURE_LESSONS))
    assert report.status == "crashed"
    told = " ".join(report.errors)
    assert "This notebook was not graded" in told and "did not start within 60 s" in told
    assert "exit()" not in told and not any("exit()" in " ".join(q.feedback) for q in report.questions)


def test_a_worker_started_inside_a_learner_call_that_runs_out_is_that_calls_timeout_not_the_machines(
    write_notebook: Callable[..., Path],
) -> None:
    """A lender's worker killed by a learner call's own arguments is started again inside that call, within its
    deadline (a full run on a loaded machine: the notebook was 'not graded', the machine blamed, for the
    learner's own attack). When the call's deadline comes before the start budget, the call times out: no
    MachineFailed, so the notebook is graded and only that call's question loses."""
    import time

    from grader.config import DEFAULT_LIMITS, DEFAULT_MODE
    from grader.execute import channel
    from grader.execute.protocol import ChannelTimeout
    from grader.read import read_submission

    worker = LearnerProcess(read_submission(write_notebook(SQUARES_SOLVED)), DEFAULT_LIMITS, DEFAULT_MODE)
    channel._in_call.deadline = time.monotonic() + 0.001  # the learner call this start happens inside
    try:
        with pytest.raises(ChannelTimeout):
            worker.run_notebook()
    finally:
        channel._in_call.deadline = None
        worker.close()
