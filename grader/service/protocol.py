"""The course service's HTTP protocol, written down once: what a learner's notebook (``check``, ``check_all``,
``submit``, ``grade NOTEBOOK`` against a service) and a teaching assistant's browser send to ``grade serve``,
and what comes back.

Both sides import this module: the server (:mod:`grader.service`, Starlette on uvicorn, on the course's
machine) and the learner's client (standard library only, in the learner's kernel, which holds no lesson,
solution, suite or secret). So it imports nothing but the standard library (no ``grader`` module either): a
learner's install imports it with the engine package alone, and no web framework.

Not to be confused with :mod:`grader.serve.protocol`: that is the *warm daemon's* protocol, one trusted user's
``grade`` client talking to that user's own grading daemon over a Unix socket. This one crosses a network
between people who do not trust each other, so every request carries a token and every answer is learner-safe.

The wire format
---------------
JSON over HTTP/1.1, UTF-8, ``Content-Type: application/json``. Every request but :data:`HEALTH` carries
``Authorization: Bearer <token>``. Paths are under :data:`PREFIX`.

=====================  ======  ==================================  =========================================
path                   method  body (request)                      answer (200 unless said)
=====================  ======  ==================================  =========================================
:data:`HEALTH`         GET     none                                :class:`Health`
:data:`CHECK`          POST    :class:`CheckRequest`               :class:`CheckAnswer`
:data:`SUBMIT`         POST    :class:`SubmitRequest`, with the    :class:`Receipt` (201 when stored now,
                               header :data:`IDEMPOTENCY_HEADER`    200 when this key was stored before)
:data:`SUBMISSIONS`    GET     none                                :class:`SubmissionList`: the token's own
:data:`TA_VIEW`        GET     none (a TA token)                   an HTML page (the live view)
:data:`TA_VIEW`        POST    form field ``token`` (a browser's   303 to the view, the token in an HttpOnly
                               sign-in: never a token in a URL)    cookie (``GET`` without a token and with
                                                                   ``Accept: text/html``: 401, the form)
=====================  ======  ==================================  =========================================

An answer that is not 2xx is an :class:`ErrorAnswer` (``{"error": "<a sentence a person can act on>"}``), with
the status saying which case it is: 400 malformed (not JSON, wrong shape), 401 the token is missing, malformed,
forged or for another lesson (the same sentence for each, so a 401 never says whether a learner exists), 413 the
body is over :data:`MAX_BODY_BYTES`, 429 this learner is over the rate (header ``Retry-After``: seconds), 503 the
grading queue is full or the service is stopping (``Retry-After`` too); and, less often, 408 the body came
slower than the service waits for, 500 the lesson cannot be graded (the staff's to fix). ``retry_after``
repeats the header in the body, for a client that reads only the body.

Tokens
------
A token names one learner and one lesson and proves the course issued it: :func:`token_text` joins the three
parts, ``<learner>~<lesson>~<mac>``, where ``mac`` is the first :data:`MAC_HEX` hex digits of
HMAC-SHA256(course secret, :data:`TOKEN_CONTEXT` ``|`` lesson ``|`` learner). Only the service holds the secret
and computes the mac (:mod:`grader.service.tokens`); the client only carries the text. A teaching assistant's
token has the learner part :data:`TA_LEARNER` and the lesson part :data:`ANY_LESSON`. Learner ids are a batch's
(``grader.batch.names``: letters, digits, ``._-``), lessons are lesson ids, so ``~`` (allowed in an HTTP bearer
token) never occurs inside a part.
"""

from __future__ import annotations

from typing import Any, TypedDict

PREFIX = "/api/v1"
HEALTH = f"{PREFIX}/health"
CHECK = f"{PREFIX}/check"
SUBMIT = f"{PREFIX}/submit"
SUBMISSIONS = f"{PREFIX}/submissions"
TA_VIEW = "/ta"

IDEMPOTENCY_HEADER = "Idempotency-Key"
"""A client-chosen key (at most 128 characters) per submit attempt: a retried submit with the same key for the
same learner and lesson is stored once and answered with the first receipt."""

MAX_BODY_BYTES = 4 * 1024 * 1024
"""The largest request body the service reads (a notebook with its outputs stripped is far smaller)."""

TOKEN_CONTEXT = "inference-grader service token v1"
MAC_HEX = 32
SEPARATOR = "~"
TA_LEARNER = "_ta"
ANY_LESSON = "_all"

# The notebook metadata a released notebook carries for the service (``metadata.grader.service``), written by
# ``grade build --roster R --service URL``: where to send checks, and this learner's token.
METADATA_KEY = "service"


def token_text(learner: str, lesson: str, mac: str) -> str:
    """The token as it travels: ``<learner>~<lesson>~<mac>``."""
    return f"{learner}{SEPARATOR}{lesson}{SEPARATOR}{mac}"


def token_parts(token: str) -> tuple[str, str, str] | None:
    """``(learner, lesson, mac)`` of a token's text, or None when it is not of that form (never raises)."""
    parts = token.strip().split(SEPARATOR)
    if len(parts) != 3 or not all(parts) or len(token) > 256:
        return None
    return parts[0], parts[1], parts[2]


class ServiceMetadata(TypedDict):
    """``metadata.grader.service`` of a released notebook."""

    url: str
    token: str


class Health(TypedDict):
    """``GET /api/v1/health``: the service is up; which lessons it grades; its clock."""

    ok: bool
    lessons: list[str]
    server_time: str


class CheckRequest(TypedDict):
    """Grade these questions (``[]``: every question) of ``lesson`` on the cells the learner ran.

    ``cells`` are code cells' sources in the order they should run: the kernel's own input history for
    ``check()`` in JupyterLab (what the learner actually ran), or a notebook file's code cells for
    ``grade NOTEBOOK --service``. The service runs them in its sandbox, exactly as a batch runs a notebook."""

    lesson: str
    questions: list[str]
    cells: list[str]


class QuestionAnswer(TypedDict):
    """One question's verdict: the learner-safe feedback only (never ``staff_feedback``)."""

    id: str
    score: float
    max_score: float
    status: str
    feedback: list[str]


class CheckAnswer(TypedDict):
    lesson: str
    learner: str
    questions: list[QuestionAnswer]
    errors: list[str]
    """Learner-safe notebook-level lines (a cell that raised, a timeout)."""
    status: str
    """The report's status: graded, timed-out, crashed."""


class SubmitRequest(TypedDict):
    """Hand in this notebook (an nbformat v4 notebook as JSON) for ``lesson``."""

    lesson: str
    notebook: dict[str, Any]


class Receipt(TypedDict):
    """What the service stored, durably, before it answered."""

    id: int
    lesson: str
    learner: str
    sha256: str
    received_at: str
    """The server's clock, ISO 8601 with its UTC offset: what lateness is judged on."""
    late: str
    """The lateness the course's policy gives it ("on time", "1 day late, -10%", or "" with no due date)."""
    attempt: int
    """1 for the first hand-in of this lesson by this learner, 2 for the next, and so on."""


class SubmissionList(TypedDict):
    submissions: list[Receipt]


class ErrorAnswer(TypedDict, total=False):
    error: str
    retry_after: float
