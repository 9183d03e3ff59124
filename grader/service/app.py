"""The course service's routes (Starlette): each request authenticated, bounded, and answered learner-safe.

:func:`create_app` builds the ASGI application around a :class:`Service` (the lessons, the store, the limits and
where checks are graded), so a test or a benchmark runs it in-process (Starlette's ``TestClient``, or any ASGI
server); ``grade serve`` runs it under uvicorn (:mod:`grader.service.server`). What crosses the wire is
:mod:`grader.service.protocol`'s, and nothing else: a learner gets the feedback a learner may read (never the
staff lines with expected values) and only their own hand-ins.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from concurrent.futures import Future
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.batch.late import LatePolicy, days_late
from grader.batch.work import Settings, Task
from grader.config import DEFAULT_SERVICE_LIMITS, ServiceLimits
from grader.errors import GraderError, LessonError
from grader.lessons import available_lessons, load_lesson
from grader.model import Lesson, Report
from grader.params import learner_params
from grader.pipeline import GradeOptions
from grader.read import parse_submission
from grader.service import protocol
from grader.service.grading import check_submission
from grader.service.limits import Queue, RateLimit
from grader.service.store import CheckRow, Store
from grader.service.tokens import Identity, verify
from grader.service.view import login_page, ta_page

log = logging.getLogger("grader.service")

#: The one sentence of every 401: it never says whether the learner exists or which part was wrong.
UNAUTHORIZED = "This token is not valid for this request: use the token your course gave you for this lesson."
MAX_KEY_CHARS = 128
#: The cookie the TA view's login form sets (HttpOnly, SameSite=Strict, Secure behind TLS), path ``/ta`` only.
TA_COOKIE = "grader_ta"


@dataclass(frozen=True)
class ServiceConfig:
    """All ``grade serve`` needs to know, each default defined in :mod:`grader.config`."""

    lessons_root: Path
    database: Path
    secret: bytes
    roster: Mapping[str, str] | None = None
    """Learner id -> the identity their numbers are drawn from (LMS id, else the id); None: any token the
    course issued is a learner."""
    late: LatePolicy = field(default_factory=LatePolicy)
    grading: GradeOptions = field(default_factory=GradeOptions)
    limits: ServiceLimits = DEFAULT_SERVICE_LIMITS

    def settings(self) -> Settings:
        """What each grading process is built from: the grading options, on this service's lessons."""
        return Settings(replace(self.grading, lessons_root=self.lessons_root).for_any_lesson())


class Refused(Exception):
    """A request the service answers with an :class:`ErrorAnswer` (status, sentence, when to retry)."""

    def __init__(self, status: int, sentence: str, retry_after: float | None = None) -> None:
        super().__init__(sentence)
        self.status, self.sentence, self.retry_after = status, sentence, retry_after

    def response(self) -> JSONResponse:
        body: protocol.ErrorAnswer = {"error": self.sentence}
        headers = {}
        if self.retry_after is not None:
            body["retry_after"] = self.retry_after
            headers["Retry-After"] = str(int(self.retry_after))
        return JSONResponse(dict(body), status_code=self.status, headers=headers)


Grade = Callable[[Task], "Future[Report]"]
"""Where a check is graded: a :class:`grader.service.grading.GradingPool`'s ``submit``, or a test's stand-in."""


class Service:
    """The lessons, the store and the limits, shared by every request."""

    def __init__(self, config: ServiceConfig, grade: Grade, processes: int) -> None:
        self.config = config
        self.grade = grade
        self.lessons: dict[str, Lesson] = {
            lesson_id: load_lesson(lesson_id, config.lessons_root)
            for lesson_id in available_lessons(config.lessons_root)
        }
        self.store = Store(config.database)
        limits = config.limits
        self.rate = RateLimit(limits.checks_burst, limits.check_every)
        self.submit_rate = RateLimit(limits.submits_burst, limits.check_every)
        self.queue = Queue(limits.queue_per_process * processes, limits.retry_after, limits.checks_in_flight)
        self.settings = config.settings()

    def identity(self, request: Request) -> Identity:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        found = verify(self.config.secret, token, self.config.roster) if scheme.lower() == "bearer" else None
        if found is None:
            raise Refused(401, UNAUTHORIZED)
        return found

    def learner(self, request: Request, lesson: str | None = None) -> Identity:
        """A learner's identity, for ``lesson`` when given (a token is for one lesson only)."""
        who = self.identity(request)
        if who.is_ta or (lesson is not None and who.lesson != lesson) or who.lesson not in self.lessons:
            raise Refused(401, UNAUTHORIZED)
        return who

    def close(self) -> None:
        self.store.close()


def now() -> str:
    """The server's clock, which decides lateness."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


async def read_json(request: Request, limits: ServiceLimits) -> Any:
    """The body as JSON (400 when it is not), read with :func:`_capped_body`'s bounds."""
    raw = await _capped_body(request, limits)
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise Refused(400, "The request is not JSON; send what the grader's client sends.") from None


async def _capped_body(request: Request, limits: ServiceLimits) -> bytes:
    """The body, read at most :data:`protocol.MAX_BODY_BYTES` of it (413 as soon as it goes over, never after
    reading it whole) and within ``limits.body_seconds`` (408: a client that trickles its body)."""
    too_large = Refused(
        413,
        f"The request is larger than {protocol.MAX_BODY_BYTES // 1024 // 1024} MB: clear the notebook's outputs "
        "(Edit > Clear Outputs of All Cells), save it and send it again.",
    )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > protocol.MAX_BODY_BYTES:
        raise too_large

    async def capped() -> bytes:
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > protocol.MAX_BODY_BYTES:
                raise too_large
            chunks.append(chunk)
        return b"".join(chunks)

    try:
        return await asyncio.wait_for(capped(), limits.body_seconds)
    except asyncio.TimeoutError:
        raise Refused(408, "The request's body came too slowly; send it again.") from None


def _fields(body: Any, shape: Mapping[str, type]) -> dict[str, Any]:
    """``body`` when it is an object with these fields of these types, else 400."""
    if not isinstance(body, dict) or any(not isinstance(body.get(k), t) for k, t in shape.items()):
        wanted = ", ".join(f"{k} ({t.__name__})" for k, t in shape.items())
        raise Refused(400, f"The request must be a JSON object with {wanted}.")
    return body


def create_app(service: Service) -> Starlette:
    """The ASGI application of ``service`` (which it closes when the application shuts down)."""

    async def health(request: Request) -> Response:
        answer: protocol.Health = {"ok": True, "lessons": sorted(service.lessons), "server_time": now()}
        return JSONResponse(dict(answer))

    async def check(request: Request) -> Response:
        who = service.learner(request)
        _within(service.rate, who, "checked")
        body = _fields(
            await read_json(request, service.config.limits), {"lesson": str, "questions": list, "cells": list}
        )
        if body["lesson"] != who.lesson:
            raise Refused(401, UNAUTHORIZED)
        lesson = service.lessons[who.lesson]
        cells, asked = body["cells"], body["questions"]
        if not all(isinstance(c, str) for c in cells) or not all(isinstance(q, str) for q in asked):
            raise Refused(400, "`cells` and `questions` must be lists of strings.")
        known = [q.id for q in lesson.questions]
        unknown = sorted(set(asked) - set(known))
        if unknown:
            raise Refused(
                400, f"Lesson {lesson.id!r} has no question {unknown[0]!r}; its questions: {', '.join(known)}."
            )
        refused = service.queue.enter(who.learner)
        if refused == "yours":
            raise Refused(
                429,
                "Your last check is still being graded: wait for its answer, then check again.",
                service.queue.retry_after,
            )
        if refused is not None:
            raise Refused(
                503, "The grader is busy with other learners' checks: try again shortly.", service.queue.retry_after
            )
        try:
            report = await _graded(service, who, lesson, cells, asked)
        finally:
            service.queue.leave(who.learner)
        chosen = [r for r in report.questions if not asked or r.id in asked]
        at = now()
        rows = [CheckRow(who.learner, lesson.id, at, r.id, r.status, r.score, r.max_score, r.staff) for r in chosen]
        await run_in_threadpool(service.store.record_checks, rows, report.errors)
        answer: protocol.CheckAnswer = {
            "lesson": lesson.id,
            "learner": who.learner,
            "questions": [
                {
                    "id": r.id,
                    "score": r.score,
                    "max_score": r.max_score,
                    "status": r.status,
                    "feedback": list(r.feedback),
                }
                for r in chosen
            ],
            "errors": list(report.errors),
            "status": report.status,
        }
        return JSONResponse(dict(answer))

    async def submit(request: Request) -> Response:
        who = service.learner(request)
        _within(service.submit_rate, who, "handed in")
        key = request.headers.get(protocol.IDEMPOTENCY_HEADER)
        if key is not None and not 0 < len(key) <= MAX_KEY_CHARS:
            raise Refused(400, f"{protocol.IDEMPOTENCY_HEADER} must be 1 to {MAX_KEY_CHARS} characters.")
        body = _fields(await read_json(request, service.config.limits), {"lesson": str, "notebook": dict})
        if body["lesson"] != who.lesson:
            raise Refused(401, UNAUTHORIZED)
        raw = await run_in_threadpool(_stored_form, body["notebook"])  # off the loop
        try:
            found = await run_in_threadpool(parse_submission, raw, Path(f"{who.lesson}.ipynb"))  # off the loop
        except GraderError as err:
            raise Refused(400, str(err)) from None
        if found.lesson_id not in (None, who.lesson):
            raise Refused(
                400,
                f"This notebook is lesson {found.lesson_id!r}'s, not {who.lesson!r}'s: hand in that lesson's notebook.",
            )
        received = now()
        receipt, new = await run_in_threadpool(
            service.store.submit,
            who.learner,
            who.lesson,
            key,
            raw,
            found.digest,
            received,
            _late(service, who, received),
        )
        log.info(
            "stored hand-in %d of %s, lesson %s (attempt %d)",
            receipt["id"],
            who.learner,
            who.lesson,
            receipt["attempt"],
        )
        return JSONResponse(dict(receipt), status_code=201 if new else 200)

    async def submissions(request: Request) -> Response:
        who = service.learner(request)
        found = await run_in_threadpool(service.store.receipts, who.learner, who.lesson)
        answer: protocol.SubmissionList = {"submissions": found}
        return JSONResponse(dict(answer))

    async def ta_view(request: Request) -> Response:
        try:
            _ta(service, request)
        except Refused as err:
            if "text/html" not in request.headers.get("accept", ""):
                raise
            return HTMLResponse(login_page(err.sentence), status_code=401)
        page = await run_in_threadpool(ta_page, list(service.lessons.values()), service.store, now())
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})

    async def ta_login(request: Request) -> Response:
        """The login form's POST: the TA token goes into an HttpOnly cookie, never into a URL (or a log)."""
        form = (await read_json_or_form(request, service.config.limits)).get("token", "")
        if not isinstance(form, str) or (who := verify(service.config.secret, form)) is None or not who.is_ta:
            return HTMLResponse(login_page(UNAUTHORIZED), status_code=401)
        response = RedirectResponse(protocol.TA_VIEW, status_code=303)
        secure = request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https"
        response.set_cookie(TA_COOKIE, form, httponly=True, samesite="strict", secure=secure, path=protocol.TA_VIEW)
        return response

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            service.close()

    async def refused(request: Request, err: Exception) -> Response:
        assert isinstance(err, Refused)
        return err.response()

    async def http_error(request: Request, err: Exception) -> Response:
        assert isinstance(err, HTTPException)
        return Refused(
            err.status_code, f"{err.detail}: see the grader's documentation for the service's paths."
        ).response()

    routes = [
        Route(protocol.HEALTH, health, methods=["GET"]),
        Route(protocol.CHECK, check, methods=["POST"]),
        Route(protocol.SUBMIT, submit, methods=["POST"]),
        Route(protocol.SUBMISSIONS, submissions, methods=["GET"]),
        Route(protocol.TA_VIEW, ta_view, methods=["GET"]),
        Route(protocol.TA_VIEW, ta_login, methods=["POST"]),
    ]
    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        Refused: refused,
        HTTPException: http_error,
    }
    return Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)


def _stored_form(notebook: dict[str, Any]) -> bytes:
    """The hand-in as it is stored: compact JSON, so it is about the size of the body that carried it. Indented, a
    deeply nested value grows with its depth (a 4 MB body became 256 MB, for minutes of the server's CPU); compact,
    what was parsed from at most :data:`protocol.MAX_BODY_BYTES` comes back at a small multiple of that at most
    (``1E5`` is written ``100000.0``), and anything larger is refused."""
    raw = json.dumps(notebook, ensure_ascii=False, separators=(",", ":")).encode()
    if len(raw) > 3 * protocol.MAX_BODY_BYTES:
        raise Refused(413, "This notebook is too large to store: clear its outputs, save it and hand it in again.")
    return raw


def _within(rate: RateLimit, who: Identity, done: str) -> None:
    """429 when ``who`` is over ``rate``, saying when to try again."""
    wait = rate.take(who.learner)
    if wait:
        raise Refused(429, f"You have {done} often in a short time: wait {int(wait)} s and try again.", wait)


def _ta(service: Service, request: Request) -> Identity:
    """A teaching assistant's identity, from the bearer token or (a browser) the login form's cookie."""
    cookie = request.cookies.get(TA_COOKIE, "")
    found = verify(service.config.secret, cookie) if cookie and "authorization" not in request.headers else None
    who = found or service.identity(request)
    if not who.is_ta:
        raise Refused(401, UNAUTHORIZED)
    return who


async def read_json_or_form(request: Request, limits: ServiceLimits) -> dict[str, Any]:
    """The login form's fields (``application/x-www-form-urlencoded``), read with the same bounds as JSON."""
    if request.headers.get("content-type", "").startswith("application/json"):
        body = await read_json(request, limits)
        return body if isinstance(body, dict) else {}
    from urllib.parse import parse_qs

    raw = await _capped_body(request, limits)
    return {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}


async def _graded(service: Service, who: Identity, lesson: Lesson, cells: list[str], asked: list[str]) -> Report:
    """Grade the learner's cells in a grading process, on the numbers drawn from the token's learner: only the
    hidden tests of the questions ``asked`` (all when none is named), for a check answers only those."""
    roster = service.config.roster
    identity = roster.get(who.learner, who.learner) if roster is not None else who.learner
    params = learner_params(lesson, identity, service.config.secret)
    submission = check_submission(who.learner, lesson, cells, params)
    task = Task(who.learner, submission, lesson.id, service.settings, frozenset(asked) or None)
    try:
        return await asyncio.wrap_future(service.grade(task))
    except LessonError as err:  # the staff's to fix: the learner is told so, the log says what
        log.error("lesson %s cannot be graded: %s", lesson.id, err)
        raise Refused(500, "The grader cannot grade this lesson just now; the course staff must fix it.") from None
    except Exception as err:  # a grading process that died (BrokenProcessPool), a cluster gone
        log.warning("a check of lesson %s could not be graded: %s", lesson.id, type(err).__name__)
        raise Refused(
            503, "The grader could not grade this check just now: try again shortly.", service.config.limits.retry_after
        ) from None


def _late(service: Service, who: Identity, received: str) -> str:
    """The lateness the course's policy gives a hand-in received at ``received`` (batch's rule, late.py)."""
    policy = service.config.late
    roster = service.config.roster or {}
    due = policy.due_of(who.learner, roster.get(who.learner, ""))
    if due is None:
        return ""
    days = days_late(datetime.fromisoformat(received), due)
    if not days:
        return "on time"
    return f"{days} day{'s' if days > 1 else ''} late (late penalty: {policy.penalty})"
