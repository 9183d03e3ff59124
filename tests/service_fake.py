"""A stand-in course service for the learner side's tests: ``http.server`` on 127.0.0.1 (port 0) in a thread,
answering as ``grader/service/protocol.py`` says (tokens checked with ``grader.service.tokens``). It grades
nothing: each check is answered by ``answer`` from the request, so a test states the verdict and reads what the
client sent. The real service's own tests are its own; this is the protocol, from the client's side."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from grader.service import protocol, tokens

SECRET = b"a-course-secret-long-enough-1234"

Answer = Callable[[dict[str, Any]], dict[str, Any]]


def all_passed(request: dict[str, Any]) -> dict[str, Any]:
    """Every asked question passed, worth 1 (``[]``: the two questions ``q1``, ``q2``)."""
    ids = request["questions"] or ["q1", "q2"]
    passed = {"score": 1, "max_score": 1, "status": "passed", "feedback": ["all checks pass"]}
    questions = [{"id": i, **passed} for i in ids]
    return {"lesson": request["lesson"], "learner": "", "questions": questions, "errors": [], "status": "graded"}


@dataclass
class Fake:
    url: str
    answer: Answer = all_passed
    requests: list[tuple[str, dict[str, str], Any]] = field(default_factory=list)
    stored: dict[str, dict[str, Any]] = field(default_factory=dict)
    status: int | None = None
    """Answer every request with this status (and a Retry-After of 7) instead."""
    drop_next_submit: bool = False
    """Store the next submit, then close the connection without answering (a lost answer)."""


class _Handler(BaseHTTPRequestHandler):
    fake: Fake

    def log_message(self, *_: Any) -> None:
        pass

    def _send(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        fake = self.fake
        length = int(self.headers.get("Content-Length", 0))
        if length > protocol.MAX_BODY_BYTES:
            return self._send(413, {"error": "too large"})
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            return self._send(400, {"error": "not JSON"})
        fake.requests.append((self.path, dict(self.headers), body))
        if fake.status is not None:
            return self._send(fake.status, {"error": "busy", "retry_after": 7}, {"Retry-After": "7"})
        token = self.headers.get("Authorization", "").removeprefix("Bearer ")
        who = tokens.verify(SECRET, token)
        if who is None or who.lesson != str(body.get("lesson")):
            return self._send(401, {"error": "This token was not accepted."})
        learner = who.learner
        if self.path == protocol.CHECK:
            return self._send(200, {**fake.answer(body), "learner": learner})
        if self.path == protocol.SUBMIT:
            key = self.headers.get(protocol.IDEMPOTENCY_HEADER, "")
            if key in fake.stored:
                return self._send(200, fake.stored[key])
            receipt = {
                "id": len(fake.stored) + 1,
                "lesson": body["lesson"],
                "learner": learner,
                "sha256": hashlib.sha256(json.dumps(body["notebook"], sort_keys=True).encode()).hexdigest(),
                "received_at": "2026-12-03T14:00:00+00:00",
                "late": "on time",
                "attempt": len(fake.stored) + 1,
            }
            fake.stored[key] = receipt
            if fake.drop_next_submit:
                fake.drop_next_submit = False
                self.close_connection = True
                self.connection.close()
                return None
            return self._send(201, receipt)
        return self._send(404, {"error": "no such path"})


@contextmanager
def fake_service(answer: Answer = all_passed) -> Iterator[Fake]:
    """A running stand-in service; stopped on exit."""
    handler = type("Handler", (_Handler,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    fake = Fake(f"http://127.0.0.1:{server.server_address[1]}", answer)
    handler.fake = fake
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def closed_port_url() -> str:
    """An address on this machine where nothing listens (a port just freed)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@contextmanager
def not_http() -> Iterator[str]:
    """An address on this machine that answers every connection with a line that is not HTTP, then hangs up."""
    import socket

    server = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:  # closed: the test is over
                return
            with conn:
                conn.recv(65536)
                conn.sendall(b"SSH-2.0-not-a-web-server\r\n\r\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        thread.join(5)
