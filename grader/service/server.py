"""``grade serve``: the course service on one machine, under uvicorn, with its grading processes.

It refuses to start rather than run a stranger's code unsandboxed (:func:`grader.execute.upkeep.unsandboxed`)
or without the course secret (tokens and learners' numbers are drawn from it). The HTTP/1.1 side is uvicorn's
h11 protocol with one addition, :class:`HeaderDeadline`: uvicorn times out an idle kept-alive connection but
not one that sends its headers a byte at a time (slowloris), so each request's headers must arrive within
``ServiceLimits.header_seconds`` or the connection is closed. A request's body has its own deadline
(:func:`grader.service.app.read_json`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from grader.environment import SECRET_ENV
from grader.errors import CourseSecretMissing, UsageError
from grader.execute.upkeep import check_settings, unsandboxed
from grader.lessons import available_lessons, load_lesson, require_solution
from grader.params import secret_path
from grader.service.app import Service, ServiceConfig, create_app
from grader.service.grading import GradingPool

#: How to get a sandbox, for the refusal to start without one.
GET_A_SANDBOX = (
    "install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces "
    "(sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu), "
    "or run the service in a container that allows them"
)


def no_secret(lessons_root: Path) -> CourseSecretMissing:
    return CourseSecretMissing(
        f"The service signs each learner's token with the course secret, and there is none: set {SECRET_ENV}, or "
        f"write one line to {secret_path(lessons_root)} "
        '(python3 -c "import secrets; print(secrets.token_urlsafe(32))" > that file), readable by the service only.'
    )


def check_can_serve(config: ServiceConfig) -> None:
    """Raise, with what to do, when this machine must not serve: learner code would run unsandboxed, or a lesson
    could not grade (its solution notebook not built: every check of it would fail with the reason in the log)."""
    check_settings(config.grading.mode)
    problem = unsandboxed(config.grading.mode)
    if problem is not None:
        raise UsageError(f"The service runs learners' code only in a sandbox, and {problem}: {GET_A_SANDBOX}.")
    for lesson_id in available_lessons(config.lessons_root):
        require_solution(load_lesson(lesson_id, config.lessons_root))


class HeaderDeadline(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers take longer than ``header_seconds``."""

    header_seconds = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if getattr(self, "_deadline", None) is not None:
            assert self._deadline is not None
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()  # no request is being served on it: nothing to answer

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the headers are in: the body has its own deadline

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request on this connection gets the same time for its headers

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


@contextmanager
def running_service(config: ServiceConfig, processes: int | None = None, dask: str | None = None) -> Iterator[Service]:
    """The service with its grading processes (local, or a Dask cluster's), checked and ready; for ``grade
    serve`` and for a benchmark that drives :func:`create_app` in-process."""
    check_can_serve(config)
    if dask:
        from grader.batch.cluster import dask_executor

        with dask_executor(dask) as executor:
            pool = GradingPool(lambda: executor, processes or 1)
            yield Service(config, pool.submit, pool.processes)
        return
    pool = GradingPool.local(config.settings(), processes)
    try:
        yield Service(config, pool.submit, pool.processes)
    finally:
        pool.close()


def serve(config: ServiceConfig, host: str, port: int, processes: int | None = None, dask: str | None = None) -> None:
    """Run the service until SIGINT or SIGTERM (uvicorn's graceful stop: answers in flight are finished)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    limits = config.limits
    protocol = type("Deadline", (HeaderDeadline,), {"header_seconds": limits.header_seconds})
    with running_service(config, processes, dask) as service:
        server = uvicorn.Server(
            uvicorn.Config(
                create_app(service),
                host=host,
                port=port,
                http=protocol,
                timeout_keep_alive=int(limits.keep_alive_seconds),
                h11_max_incomplete_event_size=64 * 1024,  # headers larger than this: 400, never buffered further
                proxy_headers=True,
                forwarded_allow_ips="127.0.0.1",
                server_header=False,
                log_level="info",
            )
        )
        server.run()
