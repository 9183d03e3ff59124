"""The learner's side of the course service: send the cells a learner ran, or their notebook, to ``grade serve``
and read back the verdict or the receipt (:mod:`grader.service.protocol`).

Standard library only (``urllib.request``): the learner installs the engine package and JupyterLab, no web
framework. Every way a request can fail becomes one :class:`ServiceError` whose sentence says what to do (the
service unreachable, the token refused, the service busy), so ``check()``, ``submit()``, ``grade NOTEBOOK`` and
``grade submit`` print one line and never a traceback.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast, get_args

from grader.config import SERVICE_TIMEOUT
from grader.errors import GraderError
from grader.model import QuestionResult, QuestionStatus, Report, ReportStatus
from grader.service import protocol
from grader.service.protocol import CheckAnswer, CheckRequest, Receipt, ServiceMetadata, SubmitRequest


class ServiceError(GraderError):
    """The course service could not give an answer; the sentence says why and what to do."""


class ServiceUnreachable(ServiceError):
    """Nothing answered (no connection, a timeout): the one failure a submit retries."""


@dataclass(frozen=True)
class Service:
    """One learner's connection to the course service: its address and the learner's token."""

    url: str
    token: str
    timeout: float = SERVICE_TIMEOUT

    def check(self, lesson: str, questions: list[str], cells: list[str]) -> CheckAnswer:
        """The service's verdict on ``questions`` (``[]``: all) of ``lesson``, on the cells ``cells``."""
        body = CheckRequest(lesson=lesson, questions=questions, cells=cells)
        too_large = (
            "The cells you ran are too many to send to the course service: restart the kernel "
            "(Kernel > Restart Kernel), run the notebook from the top, then check again."
        )
        return _check_answer(self._post(protocol.CHECK, dict(body), {}, too_large), self.url)

    def submit(self, lesson: str, notebook: dict[str, Any], key: str | None = None) -> Receipt:
        """Hand in ``notebook``; a network failure is retried once with the same idempotency key, so a submit
        that reached the service but whose answer was lost is stored once."""
        headers = {protocol.IDEMPOTENCY_HEADER: key or uuid.uuid4().hex}
        body = dict(SubmitRequest(lesson=lesson, notebook=notebook))
        too_large = (
            "This notebook is too large for the course service: clear its outputs (Edit > Clear Outputs of "
            "All Cells), save it, and submit again."
        )
        try:
            answer = self._post(protocol.SUBMIT, body, headers, too_large)
        except ServiceUnreachable:
            answer = self._post(protocol.SUBMIT, body, headers, too_large)
        return _receipt(answer, self.url)

    def _post(self, path: str, body: dict[str, Any], headers: dict[str, str], too_large: str) -> Any:
        if not is_service_url(self.url):
            raise ServiceError(
                f"The course service address {self.url[:80]!r} is not an http:// or https:// address: "
                "ask your instructor for your own notebook."
            )
        data = json.dumps(body).encode()
        if len(data) > protocol.MAX_BODY_BYTES:
            raise ServiceError(too_large)
        request = urllib.request.Request(
            self.url.rstrip("/") + path,
            data=data,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json",
                "Authorization": f"Bearer {self.token}",
                **headers,
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read(protocol.MAX_BODY_BYTES + 1)
        except urllib.error.HTTPError as err:
            raise _refused(err, self.url, too_large) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError):
            # refused, reset, DNS, a timeout, a reply cut short or not HTTP; ValueError: an address urllib refuses
            raise ServiceUnreachable(
                f"The course service at {self.url} did not answer: check your connection and try again; "
                "your work is safe."
            ) from None
        try:
            return json.loads(raw)
        except ValueError:
            raise _unreadable(self.url) from None


def is_service_url(url: str) -> bool:
    """Whether ``url`` can be a course service's address: http or https, with a host."""
    parsed = urllib.parse.urlsplit(url)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc) and not parsed.query and not parsed.fragment


def _refused(err: urllib.error.HTTPError, url: str, too_large: str) -> ServiceError:
    """The one sentence for a status that is not 2xx (protocol.py's list of statuses)."""
    try:
        answer = json.loads(err.read(64 * 1024))
    except (ValueError, OSError):
        answer = {}
    answer = answer if isinstance(answer, dict) else {}
    said = answer.get("error") if isinstance(answer.get("error"), str) else ""
    if err.code == 401:
        return ServiceError(
            f"This notebook's token was not accepted by the course service at {url}: ask your instructor for your "
            "own notebook (each one carries its learner's token, good for that lesson only)."
        )
    if err.code in (429, 503):
        wait = _retry_after(err.headers.get("Retry-After"), answer.get("retry_after"))
        why = "you checked often in a short time" if err.code == 429 else "the course service is busy"
        return ServiceError(f"Not now: {why}; try again in {wait:g} s.")
    if err.code == 413:
        return ServiceError(too_large)
    return ServiceError(
        f"The course service at {url} refused the request (HTTP {err.code}){': ' + said[:300] if said else ''}."
    )


def _retry_after(header: str | None, body: object) -> float:
    for value in (header, body):
        try:
            seconds = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        if 0 <= seconds < 86400:
            return round(seconds)
    return 30


def _unreadable(url: str) -> ServiceError:
    return ServiceError(
        f"The course service at {url} answered something this grader cannot read: tell your instructor."
    )


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_answer(data: Any, url: str) -> CheckAnswer:
    """``data`` when it has the shape of a :class:`CheckAnswer`, else :class:`ServiceError`."""
    questions = data.get("questions") if isinstance(data, dict) else None
    if not (
        isinstance(questions, list)
        and all(
            isinstance(q, dict)
            and isinstance(q.get("id"), str)
            and _is_number(q.get("score"))
            and _is_number(q.get("max_score"))
            and q.get("status") in get_args(QuestionStatus)
            and isinstance(q.get("feedback"), list)
            and all(isinstance(line, str) for line in q["feedback"])
            for q in questions
        )
        and isinstance(data.get("errors", []), list)
        and all(isinstance(e, str) for e in data.get("errors", []))
        and data.get("status", "graded") in get_args(ReportStatus)
    ):
        raise _unreadable(url)
    return cast(CheckAnswer, data)


def _receipt(data: Any, url: str) -> Receipt:
    fields = {"id": int, "lesson": str, "learner": str, "sha256": str, "received_at": str, "late": str, "attempt": int}
    if not (isinstance(data, dict) and all(isinstance(data.get(k), t) for k, t in fields.items())):
        raise _unreadable(url)
    return cast(Receipt, data)


def result_of(answer: protocol.QuestionAnswer) -> QuestionResult:
    """One question of the service's answer as the report's :class:`QuestionResult` (learner feedback only)."""
    status = cast(QuestionStatus, answer["status"])
    return QuestionResult(answer["id"], answer["score"], answer["max_score"], status, tuple(answer["feedback"]))


def report_of(answer: CheckAnswer, path: Path) -> Report:
    """The service's verdict on a whole notebook as a :class:`Report`, so ``grade NOTEBOOK`` prints it as ever."""
    questions = tuple(result_of(q) for q in answer["questions"])
    return Report(
        lesson=answer.get("lesson", ""),
        path=str(path),
        score=sum(q.score for q in questions),
        max_score=sum(q.max_score for q in questions),
        questions=questions,
        errors=tuple(answer.get("errors", [])),
        isolation="the course service",
        status=cast(ReportStatus, answer.get("status", "graded")),
    )


def receipt_text(receipt: Receipt) -> str:
    """The receipt as the learner reads it, in the notebook and in the terminal."""
    late = f", {receipt['late']}" if receipt["late"] else ""
    return (
        f"Handed in: {receipt['lesson']} by {receipt['learner']}, attempt {receipt['attempt']}, "
        f"received {receipt['received_at']}{late}.\n"
        f"    Receipt {receipt['id']}, sha256 {receipt['sha256']}: keep it; it proves what the service stored."
    )


def metadata_of(notebook: Any) -> ServiceMetadata | None:
    """``metadata.grader.service`` of a notebook (parsed JSON), when it names a service and a token."""
    meta = notebook.get("metadata") if isinstance(notebook, dict) else None
    grader = meta.get("grader") if isinstance(meta, dict) else None
    service = grader.get(protocol.METADATA_KEY) if isinstance(grader, dict) else None
    if isinstance(service, dict) and isinstance(service.get("url"), str) and isinstance(service.get("token"), str):
        return ServiceMetadata(url=service["url"], token=service["token"])
    return None


def lesson_of(notebook: Any) -> str | None:
    """``metadata.grader.lesson`` of a notebook (parsed JSON)."""
    meta = notebook.get("metadata") if isinstance(notebook, dict) else None
    grader = meta.get("grader") if isinstance(meta, dict) else None
    lesson = grader.get("lesson") if isinstance(grader, dict) else None
    return lesson if isinstance(lesson, str) and lesson else None
