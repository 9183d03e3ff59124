"""Helpers for the course service's tests: a course of two fixture lessons, tokens, a stand-in grader, and a
real service in a subprocess on a free loopback port."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import nbformat

from grader.batch.work import Task
from grader.model import QuestionResult, Report
from grader.service.protocol import HEALTH
from tests.conftest import FIXTURE_LESSONS, notebook
from tests.waiting import wait_until

SECRET = b"a-course-secret-long-enough-for-tests"
LEARNERS = {"alice": "alice@example.edu", "bob": "bob"}


def course(tmp: Path) -> Path:
    """A lessons folder with the squares lesson and a copy of it, ``cubes`` (a second lesson for tokens)."""
    root = tmp / "exercises"
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "squares")
    shutil.copytree(FIXTURE_LESSONS / "squares", root / "cubes")
    toml = root / "cubes" / "lesson.toml"
    toml.write_text(toml.read_text().replace('id = "squares"', 'id = "cubes"'))
    return root


def canned(task: Task) -> Report:
    """What the stand-in grader answers: square wrong, with learner and staff lines that differ."""
    questions = (
        QuestionResult("answer_even", 1.0, 1.0, "passed"),
        QuestionResult(
            "square",
            0.0,
            2.0,
            "failed",
            ("square(3) returned 6. You added the number to itself.",),
            ("square(3) returned 6, expected 9. You added the number to itself.",),
        ),
        QuestionResult("sum_of_squares", 2.0, 2.0, "passed"),
    )
    errors = ("Cell 2 raised NameError.",) if task.learner == "alice" else ()
    return Report(task.lesson_id, str(task.submission.path), 3.0, 5.0, questions, errors)


class StandIn:
    """A grader that answers :func:`canned` at once, or holds every check until :attr:`release` is set."""

    def __init__(self, hold: bool = False) -> None:
        self.tasks: list[Task] = []
        self.release = threading.Event()
        if not hold:
            self.release.set()

    def __call__(self, task: Task) -> Future[Report]:
        self.tasks.append(task)
        future: Future[Report] = Future()

        def answer() -> None:
            self.release.wait(60)
            future.set_result(canned(task))

        threading.Thread(target=answer, daemon=True).start()
        return future


def notebook_json(cells: list[Any], lesson: str = "squares") -> dict[str, Any]:
    return json.loads(nbformat.writes(notebook(cells, lesson)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str, token: str | None = None, timeout: float = 10) -> tuple[int, Any]:
    return request("GET", url, None, token, timeout=timeout)


def request(
    method: str, url: str, body: Any, token: str | None, headers: dict[str, str] | None = None, timeout: float = 30
) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", **(headers or {})}
    if token:
        sent["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


@contextmanager
def service_process(args: list[str], env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
    """A service started by ``args`` (its port among them), up once it answers /health; killed at the end."""
    process = subprocess.Popen(
        args, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)
        if process.stderr is not None:
            process.stderr.close()


def wait_up(base: str, process: subprocess.Popen[str]) -> None:
    def up() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"the service exited: {process.stderr.read() if process.stderr else ''}")
        try:
            return get(base + HEALTH, timeout=2)[0] == 200
        except OSError:
            return False

    wait_until(up, 120, "the service to answer /health", every=0.2)


#: A service under uvicorn with short header and body deadlines (``grade serve`` takes the defaults).
QUICK_SERVICE = f"""
import sys
from pathlib import Path
from grader.config import ServiceLimits
from grader.service.app import ServiceConfig
from grader.service.server import serve
root, port, db = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
limits = ServiceLimits(header_seconds=1.0, body_seconds=2.0)
serve(ServiceConfig(root, db, {SECRET!r}, limits=limits), "127.0.0.1", port, processes=1)
"""


def quick_service_args(root: Path, port: int, db: Path) -> list[str]:
    return [sys.executable, "-c", QUICK_SERVICE, str(root), str(port), str(db)]
