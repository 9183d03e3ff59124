"""The course service grading for real: warm grading processes that outlive requests, learner-safe answers."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from grader.service import protocol, tokens
from grader.service.app import ServiceConfig, create_app
from grader.service.server import running_service
from tests.batch_support import WRONG_SQUARE
from tests.conftest import SQUARES_SOLVED
from tests.service_support import LEARNERS, SECRET, course


def test_checks_are_graded_in_a_grading_process_that_outlives_each_request(tmp_path: Path) -> None:
    config = ServiceConfig(course(tmp_path), tmp_path / "service.sqlite", SECRET, LEARNERS)
    token = {"Authorization": f"Bearer {tokens.issue(SECRET, 'alice', 'squares')}"}
    with running_service(config, processes=1) as service, TestClient(create_app(service)) as client:
        wrong = client.post(
            protocol.CHECK, json={"lesson": "squares", "questions": [], "cells": WRONG_SQUARE}, headers=token
        )
        pool = service.grade.__self__  # type: ignore[attr-defined]  # the GradingPool whose submit grades
        first = set(pool._executor._processes)
        right = client.post(
            protocol.CHECK, json={"lesson": "squares", "questions": ["square"], "cells": SQUARES_SOLVED}, headers=token
        )
        after = set(pool._executor._processes)
        stored = service.store.checks()
    assert after == first  # the same grading process graded both: no process started per request
    assert wrong.status_code == 200, wrong.text
    body = wrong.json()
    assert body["status"] == "graded"
    scores = {q["id"]: (q["score"], q["status"]) for q in body["questions"]}
    assert scores == {"answer_even": (1.0, "passed"), "square": (0.0, "failed"), "sum_of_squares": (2.0, "passed")}
    square = next(q for q in body["questions"] if q["id"] == "square")
    assert square["feedback"], "a failed question says why"
    assert right.json()["questions"] == [
        {"id": "square", "score": 2.0, "max_score": 2.0, "status": "passed", "feedback": ["All 2 checks passed."]}
    ]
    assert len(first) == 1
    assert [r.question for r in stored] == ["answer_even", "square", "sum_of_squares", "square"]


def test_checks_can_be_graded_on_a_dask_cluster(tmp_path: Path) -> None:
    import distributed

    config = ServiceConfig(course(tmp_path), tmp_path / "service.sqlite", SECRET, LEARNERS)
    token = {"Authorization": f"Bearer {tokens.issue(SECRET, 'bob', 'squares')}"}
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        with (
            running_service(config, dask=local.scheduler_address) as service,
            TestClient(create_app(service)) as client,
        ):
            answer = client.post(
                protocol.CHECK, json={"lesson": "squares", "questions": [], "cells": SQUARES_SOLVED}, headers=token
            )
    assert answer.status_code == 200, answer.text
    assert {q["id"]: q["score"] for q in answer.json()["questions"]} == {
        "answer_even": 1.0,
        "square": 2.0,
        "sum_of_squares": 2.0,
    }


def test_a_check_is_graded_on_the_tokens_learners_numbers_and_never_flagged_as_swapped() -> None:
    from grader.lessons import load_lesson
    from grader.params import draw, self_graded_note, swap_note
    from grader.service.grading import check_submission
    from tests.conftest import REPO

    lesson = load_lesson("decode", REPO / "exercises")
    mine = draw(lesson, "alice@example.edu", SECRET)
    submission = check_submission("alice", lesson, ["x = 1"], mine)
    assert submission.params == mine and submission.lesson_id == "decode"
    assert [c.source for c in submission.cells] == ["x = 1"]
    assert swap_note(lesson, submission, mine) is None
    assert self_graded_note(lesson, submission, mine) is None


def test_a_check_of_some_questions_runs_only_their_hidden_tests(tmp_path: Path) -> None:
    """A check of one question grades that question alone (its suites are a fraction of the notebook's), and the
    question it asks is scored as a whole-notebook check scores it."""
    from grader.batch.work import Task
    from grader.lessons import load_lesson
    from grader.service.grading import check_submission

    config = ServiceConfig(course(tmp_path), tmp_path / "service.sqlite", SECRET, LEARNERS)
    lesson = load_lesson("squares", config.lessons_root)
    with running_service(config, processes=1) as service:
        submission = check_submission("alice", lesson, WRONG_SQUARE, ())

        def graded(questions: frozenset[str] | None) -> dict[str, tuple[float, str]]:
            report = service.grade(Task("alice", submission, "squares", service.settings, questions)).result(120)
            return {r.id: (r.score, r.status) for r in report.questions}

        one, every = graded(frozenset({"square"})), graded(None)
    assert one["square"] == every["square"] == (0.0, "failed")
    assert every["answer_even"] == (1.0, "passed")
    assert one["answer_even"][1] == one["sum_of_squares"][1] == "error"  # not run: no test reported it passed
