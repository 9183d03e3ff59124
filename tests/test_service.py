"""The course service's HTTP side, in-process (Starlette's TestClient): tokens, checks, hand-ins, limits.

Checks here are graded by a stand-in (tests/service_support.py) so that each test is about the service; the
real grading processes are tests/test_service_grading.py's."""

from __future__ import annotations

import hmac
import json
import logging
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from grader.batch.late import LatePolicy, Penalty, submitted_at
from grader.config import ServiceLimits
from grader.service import protocol, tokens
from grader.service.app import UNAUTHORIZED, Service, ServiceConfig, create_app
from grader.service.export import export_submissions
from grader.service.store import Store
from tests.conftest import SQUARES_SOLVED
from tests.service_support import LEARNERS, SECRET, StandIn, course, notebook_json

ALICE = tokens.issue(SECRET, "alice", "squares")
BOB = tokens.issue(SECRET, "bob", "squares")
TA = tokens.ta_token(SECRET)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def make(tmp_path: Path, grade: StandIn | None = None, **config: Any) -> tuple[TestClient, Service, StandIn]:
    grade = grade or StandIn()
    limits = config.pop("limits", ServiceLimits())
    cfg = ServiceConfig(course(tmp_path), tmp_path / "service.sqlite", SECRET, LEARNERS, limits=limits, **config)
    service = Service(cfg, grade, processes=1)
    return TestClient(create_app(service)), service, grade


def check_body(questions: list[str] | None = None, lesson: str = "squares") -> dict[str, Any]:
    return {"lesson": lesson, "questions": questions or [], "cells": SQUARES_SOLVED}


def test_health_needs_no_token_and_says_the_lessons(tmp_path: Path) -> None:
    client, _, _ = make(tmp_path)
    with client:
        answer = client.get(protocol.HEALTH)
    assert answer.status_code == 200
    assert answer.json()["lessons"] == ["cubes", "squares"]


def test_a_check_answers_learner_feedback_only_for_the_asked_questions(tmp_path: Path) -> None:
    client, service, grade = make(tmp_path)
    with client:
        answer = client.post(protocol.CHECK, json=check_body(["square"]), headers=bearer(ALICE))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["learner"] == "alice" and body["status"] == "graded"
    assert [q["id"] for q in body["questions"]] == ["square"]
    assert body["questions"][0]["feedback"] == ["square(3) returned 6. You added the number to itself."]
    assert "expected" not in answer.text  # the staff line's expected value never reaches the learner
    (task,) = grade.tasks
    assert [c.source for c in task.submission.cells] == SQUARES_SOLVED
    assert task.learner == "alice" and task.lesson_id == "squares"
    stored = Store(service.config.database).checks()
    assert [(r.learner, r.question) for r in stored] == [("alice", "square")]
    assert "expected 9" in stored[0].staff_feedback[0]  # kept for the TA's view


@pytest.mark.parametrize(
    "header",
    [
        None,
        "Bearer",
        "Basic " + ALICE,
        "Bearer not-a-token",
        "Bearer " + ALICE[:-1] + ("0" if ALICE[-1] != "0" else "1"),  # forged: one digit of the mac changed
        "Bearer " + tokens.issue(b"another-secret-of-enough-length", "alice", "squares"),
        "Bearer " + tokens.issue(SECRET, "mallory", "squares"),  # a genuine mac, but nobody on the roster
        "Bearer " + tokens.issue(SECRET, "alice", "decode"),  # a lesson the service does not serve
        "Bearer " + TA,  # a TA token is not a learner's
    ],
)
def test_every_bad_token_gets_the_same_401(tmp_path: Path, header: str | None) -> None:
    client, _, grade = make(tmp_path)
    with client:
        answers = [
            client.post(protocol.CHECK, json=check_body(), headers={"Authorization": header} if header else {}),
            client.get(protocol.SUBMISSIONS, headers={"Authorization": header} if header else {}),
        ]
    for answer in answers:
        assert answer.status_code == 401
        assert answer.json() == {"error": UNAUTHORIZED}
    assert grade.tasks == []


def test_a_token_for_another_lesson_is_refused(tmp_path: Path) -> None:
    cubes = tokens.issue(SECRET, "alice", "cubes")
    client, _, grade = make(tmp_path)
    with client:
        answer = client.post(protocol.CHECK, json=check_body(), headers=bearer(cubes))
        handed = client.post(
            protocol.SUBMIT,
            json={"lesson": "squares", "notebook": notebook_json(SQUARES_SOLVED)},
            headers=bearer(cubes),
        )
    assert (answer.status_code, handed.status_code) == (401, 401)
    assert grade.tasks == []


def test_tokens_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(tokens.hmac, "compare_digest", spy)
    assert tokens.verify(SECRET, ALICE) == tokens.Identity("alice", "squares")
    assert tokens.verify(SECRET, ALICE[:-1] + "x") is None
    assert len(compared) == 2
    assert tokens.verify(SECRET, TA) is not None and tokens.verify(SECRET, TA).is_ta  # type: ignore[union-attr]
    assert tokens.verify(SECRET, tokens.issue(SECRET, protocol.TA_LEARNER, "squares")) is None  # reserved names


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (json.dumps({"lesson": "squares", "questions": [], "cells": "x = 1"}).encode(), "JSON object"),
        (json.dumps({"lesson": "squares", "questions": [1], "cells": []}).encode(), "lists of strings"),
        (json.dumps({"lesson": "squares", "questions": ["nope"], "cells": []}).encode(), "no question 'nope'"),
        (b"[" * 100_000, "not JSON"),
    ],
)
def test_malformed_checks_get_400_saying_what_is_wrong(tmp_path: Path, body: bytes, why: str) -> None:
    client, _, grade = make(tmp_path)
    with client:
        answer = client.post(protocol.CHECK, content=body, headers=bearer(ALICE))
    assert answer.status_code == 400
    assert why in answer.json()["error"]
    assert grade.tasks == []


def test_checks_over_the_rate_get_429_with_retry_after(tmp_path: Path) -> None:
    client, _, grade = make(tmp_path, limits=ServiceLimits(checks_burst=2, check_every=60))
    with client:
        statuses = [client.post(protocol.CHECK, json=check_body(), headers=bearer(ALICE)) for _ in range(3)]
        bobs = client.post(protocol.CHECK, json=check_body(), headers=bearer(BOB))
    assert [a.status_code for a in statuses] == [200, 200, 429]
    assert 0 < int(statuses[2].headers["Retry-After"]) <= 60
    assert statuses[2].json()["retry_after"] == int(statuses[2].headers["Retry-After"])
    assert bobs.status_code == 200  # one learner's rate is theirs alone
    assert len(grade.tasks) == 3


def test_hand_ins_over_their_rate_get_429(tmp_path: Path) -> None:
    client, service, _ = make(tmp_path, limits=ServiceLimits(submits_burst=2, check_every=60))
    with client:
        statuses = [submit(client, ALICE, f"k{n}").status_code for n in range(3)]
        bobs = submit(client, BOB, "k0").status_code
    assert (statuses, bobs) == ([201, 201, 429], 201)
    assert len(Store(service.config.database).all_receipts()) == 3


def _check_behind(client: TestClient, token: str, statuses: list[int]) -> threading.Thread:
    """A check sent from a thread of its own (the stand-in holds it), its status appended to ``statuses``."""
    body, headers = check_body(), bearer(token)
    thread = threading.Thread(
        target=lambda: statuses.append(client.post(protocol.CHECK, json=body, headers=headers).status_code)
    )
    thread.start()
    return thread


def _until_held(service: Service, count: int) -> None:
    for _ in range(2000):  # bounded: until ``count`` checks hold their places in the queue
        if service.queue.held >= count:
            return
        threading.Event().wait(0.01)


def test_a_full_queue_answers_503_at_once(tmp_path: Path) -> None:
    held = StandIn(hold=True)
    client, service, _ = make(tmp_path, held, limits=ServiceLimits(queue_per_process=1))
    first: list[int] = []
    with client:
        waiting = _check_behind(client, ALICE, first)
        try:
            _until_held(service, 1)
            turned = client.post(protocol.CHECK, json=check_body(), headers=bearer(BOB))
        finally:
            held.release.set()
            waiting.join(60)
    assert turned.status_code == 503 and turned.headers["Retry-After"] == "5"
    assert first == [200]
    assert service.queue.held == 0
    assert len(held.tasks) == 1  # the turned-away check never reached a grading process


def test_one_learners_slow_checks_never_fill_the_queue_for_the_others(tmp_path: Path) -> None:
    """A learner within their rate whose checks each hold a grading process (a notebook that sleeps) gets 429 for
    a second check while the first is graded; another learner still gets in (the queue had room for four)."""
    held = StandIn(hold=True)
    client, service, _ = make(tmp_path, held, limits=ServiceLimits(queue_per_process=4))
    first: list[int] = []
    bobs: list[int] = []
    with client:
        waiting = _check_behind(client, ALICE, first)
        try:
            _until_held(service, 1)
            again = client.post(protocol.CHECK, json=check_body(), headers=bearer(ALICE))
            other = _check_behind(client, BOB, bobs)
            _until_held(service, 2)
        finally:
            held.release.set()
            waiting.join(60)
            other.join(60)
    assert again.status_code == 429 and "still being graded" in again.json()["error"]
    assert first == [200] and bobs == [200]
    assert service.queue.held == 0 and len(held.tasks) == 2


def test_ten_learners_checking_at_once_on_two_grading_processes_are_all_graded(tmp_path: Path) -> None:
    """The issue's load (bench/service_load.py): ten learners check at the same moment, on a service with two
    grading processes (a 2-core machine). With four places a process, two of them were turned away (503) every
    time, for checks the two processes drain in about a second and a half; the queue is sized to what they drain
    within the wait a 503 asks for."""
    held = StandIn(hold=True)
    service = Service(ServiceConfig(course(tmp_path), tmp_path / "service.sqlite", SECRET), held, processes=2)
    statuses: list[int] = []
    with TestClient(create_app(service)) as client:
        learners = [tokens.issue(SECRET, f"learner{i}", "squares") for i in range(10)]
        waiting = [_check_behind(client, token, statuses) for token in learners]
        try:
            _until_held(service, 10)
        finally:
            held.release.set()
            for thread in waiting:
                thread.join(60)
    assert statuses == [200] * 10
    assert service.queue.held == 0 and len(held.tasks) == 10


def test_a_deeply_nested_hand_in_is_stored_at_about_the_size_it_was_sent(tmp_path: Path) -> None:
    """Stored indented, a value nested 300 deep grew with its depth: a 1.2 MB body became 368 MB on disk, for
    seconds of the event loop. Stored compact, it is the size of the body that carried it."""
    client, service, _ = make(tmp_path)
    deep: Any = [0]
    for _ in range(300):
        deep = [deep, 0, 0, 0]
    notebook = notebook_json(SQUARES_SOLVED)
    notebook["metadata"]["deep"] = [deep] * 50
    body = json.dumps({"lesson": "squares", "notebook": notebook}).encode()
    with client:
        answer = client.post(
            protocol.SUBMIT, content=body, headers=bearer(ALICE) | {"Content-Type": "application/json"}
        )
    assert answer.status_code == 201, answer.text
    stored = (tmp_path / "service.sqlite").stat().st_size + sum(
        p.stat().st_size for p in tmp_path.glob("service.sqlite-*")
    )
    assert stored < 4 * len(body) + 1_000_000, (stored, len(body))


def test_a_body_over_the_cap_gets_413(tmp_path: Path) -> None:
    client, _, grade = make(tmp_path)
    huge = {"lesson": "squares", "notebook": notebook_json(["x = 1\n" * (protocol.MAX_BODY_BYTES // 6)])}
    with client:
        answer = client.post(protocol.SUBMIT, json=huge, headers=bearer(ALICE))
    assert answer.status_code == 413
    assert "clear the notebook's outputs" in answer.json()["error"]


def submit(client: TestClient, token: str, key: str | None, cells: list[str] = SQUARES_SOLVED) -> Any:
    headers = bearer(token) | ({protocol.IDEMPOTENCY_HEADER: key} if key else {})
    return client.post(protocol.SUBMIT, json={"lesson": "squares", "notebook": notebook_json(cells)}, headers=headers)


def test_a_hand_in_is_stored_with_a_receipt_and_a_replay_is_stored_once(tmp_path: Path) -> None:
    client, service, _ = make(tmp_path)
    with client:
        first = submit(client, ALICE, "k1")
        replayed = submit(client, ALICE, "k1")
        second = submit(client, ALICE, "k2", [*SQUARES_SOLVED, "# later"])
        bobs = submit(client, BOB, "k1")
        listed = client.get(protocol.SUBMISSIONS, headers=bearer(ALICE)).json()["submissions"]
    assert (first.status_code, replayed.status_code, second.status_code, bobs.status_code) == (201, 200, 201, 201)
    assert replayed.json() == first.json()
    receipt = first.json()
    assert receipt["learner"] == "alice" and receipt["attempt"] == 1 and receipt["late"] == ""
    assert datetime.fromisoformat(receipt["received_at"]).tzinfo is not None
    assert second.json()["attempt"] == 2 and second.json()["sha256"] != receipt["sha256"]
    assert [r["attempt"] for r in listed] == [1, 2] and {r["learner"] for r in listed} == {"alice"}  # not bob's
    assert len(Store(service.config.database).all_receipts()) == 3


@pytest.mark.parametrize(
    ("notebook", "why"),
    [({"cells": []}, "not a Jupyter notebook"), (notebook_json(SQUARES_SOLVED, "cubes"), "lesson 'cubes'")],
)
def test_a_hand_in_that_is_not_this_lessons_notebook_gets_400(tmp_path: Path, notebook: Any, why: str) -> None:
    client, service, _ = make(tmp_path)
    with client:
        answer = client.post(protocol.SUBMIT, json={"lesson": "squares", "notebook": notebook}, headers=bearer(ALICE))
    assert answer.status_code == 400 and why in answer.json()["error"]
    assert Store(service.config.database).all_receipts() == []


def test_the_servers_clock_decides_lateness_with_the_batchs_policy(tmp_path: Path) -> None:
    past = datetime.now(timezone.utc) - timedelta(hours=30)
    policy = LatePolicy(past, (("alice@example.edu", past + timedelta(days=3)),), Penalty.parse("per-day:10"))
    client, _, _ = make(tmp_path, late=policy)
    with client:
        alice, bob = submit(client, ALICE, None), submit(client, BOB, None)
    assert alice.json()["late"] == "on time"  # her extension, on her roster identity
    assert bob.json()["late"] == "2 days late (late penalty: per-day:10)"


def test_the_export_is_a_folder_grade_batch_reads_with_the_servers_times(tmp_path: Path) -> None:
    client, service, _ = make(tmp_path)
    with client:
        submit(client, ALICE, "a")
        last = submit(client, ALICE, "b", [*SQUARES_SOLVED, "# last"]).json()
        submit(client, BOB, "a")
    written = export_submissions(Store(service.config.database), tmp_path / "out")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in written) == [
        "squares/alice.ipynb",
        "squares/bob.ipynb",
    ]
    alice = tmp_path / "out" / "squares" / "alice.ipynb"
    assert "# last" in alice.read_text()
    handed = datetime.fromisoformat(submitted_at(alice, alice.name, ""))
    assert handed == datetime.fromisoformat(last["received_at"])
    assert (tmp_path / "out" / "squares" / "receipts.csv").read_text().count("\n") == 4


def test_logs_hold_no_token_and_no_feedback(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    client, _, _ = make(tmp_path)
    with caplog.at_level(logging.DEBUG), client:
        client.post(protocol.CHECK, json=check_body(), headers=bearer(ALICE))
        submit(client, ALICE, "k")
        client.post(protocol.CHECK, json=check_body(), headers=bearer(ALICE[:-2] + "00"))
    assert "stored hand-in" in caplog.text  # the service logs, and what it logs is ids only
    mac = ALICE.rsplit("~", 1)[1]
    assert mac not in caplog.text and "returned 6" not in caplog.text and "x * x" not in caplog.text


def test_the_ta_view_shows_the_class_to_a_ta_only(tmp_path: Path) -> None:
    client, _, _ = make(tmp_path)
    with client:
        for token in (ALICE, ALICE, ALICE, BOB):
            client.post(protocol.CHECK, json=check_body(), headers=bearer(token))
        submit(client, BOB, None)
        page = client.get(protocol.TA_VIEW, headers=bearer(TA))
        learner = client.get(protocol.TA_VIEW, headers=bearer(ALICE))
        browser = client.get(protocol.TA_VIEW, headers={"Accept": "text/html"})
        wrong = client.post(protocol.TA_VIEW, data={"token": ALICE}, follow_redirects=False)
        login = client.post(protocol.TA_VIEW, data={"token": TA}, follow_redirects=False)
        with_cookie = client.get(protocol.TA_VIEW)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    html = page.text
    assert "<code>square</code></td><td class=num>2</td><td class=num>0</td>" in html  # both checked, none got it
    assert "<code>answer_even</code></td><td class=num>2</td><td class=num>2</td>" in html
    assert "2 &times; You added the number to itself." in html  # the commonest misconception, learners counted
    assert "alice (3 checks)" in html and "bob (" not in html  # stuck: three checks without getting it
    assert "1 learners handed in" in html
    assert "<b>alice</b> (squares): Cell 2 raised NameError." in html  # her latest check's notebook-level line
    assert learner.status_code == 401 and "grade serve token --ta" not in learner.text
    assert browser.status_code == 401 and '<form method="post"' in browser.text and TA not in browser.text
    assert wrong.status_code == 401
    assert login.status_code == 303 and "httponly" in login.headers["set-cookie"].lower()
    assert with_cookie.status_code == 200 and "The class now" in with_cookie.text


def test_unknown_paths_and_methods_answer_the_error_shape(tmp_path: Path) -> None:
    client, _, _ = make(tmp_path)
    with client:
        missing, method = client.get("/api/v1/nothing"), client.get(protocol.CHECK)
    assert missing.status_code == 404 and "error" in missing.json()
    assert method.status_code == 405 and "error" in method.json()
