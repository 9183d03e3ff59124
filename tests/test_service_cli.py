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
