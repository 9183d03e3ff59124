"""``grade serve``'s commands: tokens, the refusals to start, the export."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from grader.service import tokens
from tests.service_support import SECRET, course

SECRET_ENV = {"GRADER_COURSE_SECRET": SECRET.decode()}


def grade(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    given = {k: v for k, v in os.environ.items() if k != "GRADER_COURSE_SECRET"} | (env or {})
    return subprocess.run(["grade", *args], capture_output=True, text=True, env=given, cwd=cwd, timeout=120)


def test_token_prints_a_learners_and_a_tas(tmp_path: Path) -> None:
    root = course(tmp_path)
    learner = grade("serve", "token", "alice", "squares", "--lessons", str(root), env=SECRET_ENV)
    ta = grade("serve", "token", "--ta", "--lessons", str(root), env=SECRET_ENV)
    assert learner.returncode == 0, learner.stderr
    assert tokens.verify(SECRET, learner.stdout.strip()) == tokens.Identity("alice", "squares")
    assert tokens.verify(SECRET, ta.stdout.strip()).is_ta  # type: ignore[union-attr]
    nothing = grade("serve", "token", "--lessons", str(root), env=SECRET_ENV)
    assert nothing.returncode == 2 and "LEARNER and LESSON, or --ta" in nothing.stderr
    unknown = grade("serve", "token", "alice", "nope", "--lessons", str(root), env=SECRET_ENV)
    assert unknown.returncode == 1 and "nope" in unknown.stderr


def test_serve_refuses_to_start_without_the_course_secret(tmp_path: Path) -> None:
    root = course(tmp_path)
    answer = grade("serve", "--lessons", str(root), "--port", "1")
    assert answer.returncode == 1
    assert "course secret" in answer.stderr and "secrets.token_urlsafe" in answer.stderr
    assert not (tmp_path / "service.sqlite").exists()


def test_serve_refuses_to_run_learner_code_unsandboxed(tmp_path: Path) -> None:
    root = course(tmp_path)
    answer = grade("serve", "--lessons", str(root), "--port", "1", env={**SECRET_ENV, "GRADER_ISOLATION": "process"})
    assert answer.returncode == 2
    assert "only in a sandbox" in answer.stderr and "bubblewrap" in answer.stderr


def test_export_without_a_store_says_where_it_looked(tmp_path: Path) -> None:
    root = course(tmp_path)
    answer = grade("serve", "export", "--out", str(tmp_path / "out"), "--lessons", str(root))
    assert answer.returncode == 2 and "no service store" in answer.stderr


def test_grade_batch_grades_the_export_with_the_servers_times(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from grader.service import protocol
    from grader.service.app import Service, ServiceConfig, create_app
    from tests.batch_support import WRONG_SQUARE, grades
    from tests.conftest import SQUARES_SOLVED
    from tests.service_support import StandIn, notebook_json

    root = course(tmp_path)
    service = Service(ServiceConfig(root, tmp_path / "service.sqlite", SECRET), StandIn(), processes=1)
    received: dict[str, str] = {}
    with TestClient(create_app(service)) as client:
        for learner, cells in (("alice", SQUARES_SOLVED), ("bob", WRONG_SQUARE)):
            token = tokens.issue(SECRET, learner, "squares")
            body = {"lesson": "squares", "notebook": notebook_json(cells)}
            answer = client.post(protocol.SUBMIT, json=body, headers={"Authorization": f"Bearer {token}"})
            assert answer.status_code == 201
            received[learner] = answer.json()["received_at"]
    exported = grade("serve", "export", "--out", str(tmp_path / "handed"), "--lessons", str(root))
    assert exported.returncode == 0, exported.stderr
    assert "Wrote 2 hand-ins" in exported.stdout
    out = tmp_path / "results"
    batch = grade(
        "batch", str(tmp_path / "handed" / "squares"), "--lesson", "squares", "--lessons", str(root),
        "--out", str(out), "--due", "2000-01-01T00:00+00:00", "--late-penalty", "per-day:1",
    )  # fmt: skip
    assert batch.returncode == 0, batch.stderr
    rows = grades(out)
    assert sorted(rows) == ["alice", "bob"]  # identity from the token, written as the file's name
    assert float(rows["alice"]["raw_score"]) == 5.0 and float(rows["bob"]["raw_score"]) == 3.0
    assert all(float(r["score"]) == 0.0 for r in rows.values())  # decades late, by the server's clock
    assert {who: r["submitted"] for who, r in rows.items()} == received


def test_serve_refuses_to_start_when_a_lesson_cannot_grade(tmp_path: Path) -> None:
    """A course folder copied without its built solutions: every check would answer 500, the reason only in the
    server's log (sixth hostile round). The service says so before it starts, naming the command that builds it."""
    root = course(tmp_path)
    (root / "cubes" / "solution.ipynb").unlink()
    answer = grade("serve", "--lessons", str(root), "--port", "1", env=SECRET_ENV)
    assert answer.returncode != 0 and "cubes" in answer.stderr and "grade build" in answer.stderr, answer.stderr
    assert "Traceback" not in answer.stderr
