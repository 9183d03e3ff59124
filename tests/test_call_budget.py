"""The notebook's budget for the hidden tests' calls (``TimeBudget.calls``, HOSTILE5 finding 3): a notebook whose
every function sleeps just under the per-call limit cannot hold a grading process for many minutes; once the
budget is spent every further call fails at once, and the learner is told why."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from grader.config import DEFAULT_LIMITS
from grader.grader import grade_notebook
from grader.pipeline import GradeOptions
from tests.conftest import FIXTURE_LESSONS, SQUARES_SOLVED

#: One call may take 1 s; all of them together 2 s. A sleepy square takes 0.3 s a call, well within the first.
LIMITS = replace(DEFAULT_LIMITS, call_timeout=1.0, calls_timeout=2.0)
OPTIONS = GradeOptions(lessons_root=FIXTURE_LESSONS, limits=LIMITS)
SLEEPY = [
    'answer_even = "A"',
    "import time\ndef square(x):\n    time.sleep(0.3)\n    return x * x",
    "def sum_of_squares(xs):\n    return sum(x * x for x in xs)",
]
SPENT = "used up the notebook's 2 s of time"


@pytest.mark.slow
def test_a_notebook_whose_calls_are_slow_spends_its_budget_and_is_told_so(
    write_notebook: Callable[..., Path],
) -> None:
    report = grade_notebook(write_notebook(SLEEPY), OPTIONS)
    square = next(q for q in report.questions if q.id == "square")
    told = " ".join(square.feedback)
    assert SPENT in told and "make your functions faster: a call of square took" in told
    assert square.score < square.max_score  # the tests left unrun earn nothing
    # every question after the budget is spent fails at once, with the same sentence (not a per-call timeout)
    later = next(q for q in report.questions if q.id == "sum_of_squares")
    assert later.score == 0 and SPENT in " ".join(later.feedback)


@pytest.mark.slow
def test_an_honest_notebook_keeps_the_per_call_deadline_under_the_same_budget(
    write_notebook: Callable[..., Path],
) -> None:
    report = grade_notebook(write_notebook(SQUARES_SOLVED), OPTIONS)
    assert report.score == report.max_score
    assert not any(SPENT in " ".join(q.feedback) for q in report.questions)


CPU_HOG = [
    'answer_even = "A"',
    "import resource, time\n"
    "def square(x):\n"
    "    if x == 3:  # only the first hidden test's call: one worker dies, the rest are answered\n"
    "        used = int(time.process_time()) + 1\n"
    "        resource.setrlimit(resource.RLIMIT_CPU, (used, resource.getrlimit(resource.RLIMIT_CPU)[1]))\n"
    "        while True:\n"
    "            pass\n"
    "    return x * x",
    "def sum_of_squares(xs):\n    return sum(x * x for x in xs)",
]


@pytest.mark.slow
def test_a_call_that_runs_out_of_cpu_time_is_told_so_not_to_look_for_exit(
    write_notebook: Callable[..., Path],
) -> None:
    """The busy-loop variant of finding 3: the kernel's CPU-time signal ends the worker inside a hidden test's call
    (the learner's code lowers its own limit here, so that the test burns one second, not the notebook's limit)."""
    report = grade_notebook(write_notebook(CPU_HOG), GradeOptions(lessons_root=FIXTURE_LESSONS))
    square = next(q for q in report.questions if q.id == "square")
    told = " ".join(square.feedback)
    assert "square(3) stopped the process running your code: it ran out of CPU time (SIGXCPU" in told
    assert "exit()" not in told
    assert 0 < square.score < square.max_score  # the other calls, in a fresh worker, are answered


def test_the_cpu_time_signal_is_said_as_running_out_of_cpu_time() -> None:
    import signal

    from grader.execute.worker import exit_reason

    what, _ = exit_reason(-signal.SIGXCPU, DEFAULT_LIMITS)
    assert what.startswith("it ran out of CPU time") and f"{DEFAULT_LIMITS.budget.cpu_seconds} s" in what


def test_self_check_gives_each_check_the_notebooks_budget_for_calls(capsys: pytest.CaptureFixture[str]) -> None:
    """Self-check runs the same hidden tests in the learner's kernel: the budget for calls applies there too (a
    notebook whose every function sleeps just under the per-call limit used to hold ``check()`` for as long as it
    had calls), told in ``grade``'s sentence; the next ``check`` starts with the whole budget again."""
    from grader.lessons import load_lesson
    from grader.selfcheck import SelfCheck

    namespace: dict[str, object] = {}
    for source in SLEEPY:
        exec(source.replace("time.sleep(0.3)", "time.sleep(0.2)"), namespace)
    limits = replace(LIMITS, calls_timeout=0.3)  # a sleepy square's second call is stopped at the budget's end
    helper = SelfCheck(load_lesson("squares", FIXTURE_LESSONS), namespace, limits=limits)
    for _ in range(2):  # each check its own budget: the second is told the same, not stopped at its first call
        helper.check("square")
        told = capsys.readouterr().out
        assert "used up the notebook's 0.3 s of time" in told and "make your functions faster: a call of square" in told
        assert ", all checks pass" not in told
