"""The warm grading daemon: pytest, hypothesis, the collected suites and a worker zygote, kept between calls.

Started in the background by ``grade`` (:func:`grader.serve.client.start`) as
``python -m grader.serve.daemon SOCKET WARM_REQUEST``. It grades exactly as a cold ``grade`` does, with
a :class:`grader.grader.Grader` per set of grading options (suites collected once, each learner's worker
forked from a warm sandboxed zygote), as a batch's grading process does, and renders the answer for the learner's
terminal (:mod:`grader.answer`). It serves only its own user (the socket is in a 0700 folder, and each peer's
uid is checked), one connection per thread, and exits when idle for ``DAEMON_IDLE_SECONDS``, on SIGTERM, or
after telling a client it is stale (a lesson it holds changed on disk). It also answers a status request
(:data:`grader.serve.protocol.STATUS_REQUEST`) with its counters; asking does not keep it alive.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import IO

from grader.answer import answer, options_for
from grader.config import DAEMON_IDLE_SECONDS
from grader.environment import DAEMON_IDLE_ENV
from grader.errors import UsageError
from grader.grader import Grader, keep_this_process_to_one_cpu
from grader.model import Report
from grader.pipeline import GradeOptions, read_for_lesson
from grader.serve.protocol import COLD, HELLO, STALE, STATUS_REQUEST, NotebookRequest, Status

_MAX_REQUEST = 1 << 20


class Stale(Exception):
    """A lesson changed on disk since its suites were collected here: a cold ``grade`` must answer."""


class Daemon:
    def __init__(self) -> None:
        self._graders: dict[GradeOptions, Grader] = {}
        self._lock = threading.Lock()
        self.stale = threading.Event()
        self.busy = 0
        self.last_used = time.monotonic()
        self.ready = False
        self.answered = 0
        self.left_cold = 0

    def status(self) -> Status:
        with self._lock:
            return Status(os.getpid(), self.ready, self.answered, self.left_cold, self.stale.is_set())

    def grader(self, options: GradeOptions) -> Grader:
        """The warm Grader for these options (one per set of options used: a learner uses one or two), whatever
        lesson they name."""
        key = options.for_any_lesson()
        with self._lock:
            if key not in self._graders:
                self._graders[key] = Grader(key)
            return self._graders[key]

    def grade(self, given: Path, path: Path, options: GradeOptions, later: ExitStack) -> Report:
        """Grade a notebook; its workers end when ``later`` closes (after the answer is sent)."""
        submission, lesson_id = read_for_lesson(path, options, shown_as=given)
        grader = self.grader(options)
        if grader.changed(lesson_id):
            raise Stale(lesson_id)
        return later.enter_context(grader.grading(submission, lesson_id))

    def warm(self, request: NotebookRequest) -> None:
        """Collect the suites of the lesson ``grade`` just graded and boot a zygote, before anyone waits."""
        options = options_for(request)
        try:
            _, lesson_id = read_for_lesson(Path(request.cwd) / request.notebook, options)
            self.grader(options).warm(lesson_id)
        except Exception:  # the first real request will meet the same problem and report it properly
            traceback.print_exc()

    def serve(self, conn: socket.socket) -> None:
        graded = False  # a status request does not count as use: asking must not keep an idle daemon alive
        with conn:
            try:
                pid, uid, gid = struct.unpack(
                    "3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
                )
                if uid != os.getuid():
                    return
                try:
                    conn.sendall(HELLO)  # before anything slow: the client knows at once that this daemon is alive
                except OSError:
                    return  # it gave up waiting (this daemon was stopped, or starved) and graded cold
                data = _read_all(conn)
                if not data:
                    return  # a client that gave up before we accepted (a status asked while warming up)
                if json.loads(data) == STATUS_REQUEST:
                    conn.sendall(self.status().to_json())
                    return
                graded = True
                request = NotebookRequest.from_json(data)
                started = time.monotonic()
                with ExitStack() as after_reply:  # the notebook's workers end once the learner has the answer
                    try:
                        reply, said = answer(request, partial(self.grade, later=after_reply)).to_json(), "answered"
                    except Stale as err:
                        self.stale.set()
                        reply, said = _json(STALE), f"stale (lesson {err} changed on disk): exiting"
                    except UsageError:
                        reply, said = _json(COLD), "left to a cold grade (a usage error)"
                    with self._lock:  # counted before the reply is sent: a status asked after it is never behind
                        if reply == _json(COLD):
                            self.left_cold += 1
                        elif reply != _json(STALE):
                            self.answered += 1
                    conn.sendall(reply)
                    conn.shutdown(socket.SHUT_WR)  # the end of the reply: the client stops reading here
                    print(  # before the workers end: the time the learner waited, logged once they have the answer
                        f"{time.strftime('%H:%M:%S')} {request.notebook}: {said} in {time.monotonic() - started:.2f} s",
                        file=sys.stderr,
                        flush=True,
                    )
            except Exception:
                traceback.print_exc()  # to the daemon's log; the client grades cold
            finally:
                with self._lock:
                    self.busy -= 1
                    if graded:
                        self.last_used = time.monotonic()

    def close(self) -> None:
        """Release the warm state; a grade still in progress is abandoned (its zygote and workers killed), not
        waited for: ``grade daemon stop`` must not wait for a learner whose calls hang (that client grades cold)."""
        with self._lock:
            busy = self.busy > 0
        for grader in self._graders.values():
            if busy:
                grader.abandon()
            else:
                grader.close()


def _json(message: dict[str, str]) -> bytes:
    return json.dumps(message).encode()


def _read_all(conn: socket.socket) -> bytes:
    conn.settimeout(10.0)
    chunks, size = [], 0
    while chunk := conn.recv(1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size > _MAX_REQUEST:
            raise ValueError("request too large")
    return b"".join(chunks)


def _take_lock(path: Path, seconds: float = 5.0) -> IO[str] | None:
    """The daemon's lock for this socket (one daemon per socket), waiting a little for a stale one to exit."""
    handle = open(path.with_suffix(".lock"), "w")
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            handle.write(f"{os.getpid()}\n")  # who holds it: for `kill`, and for tests
            handle.flush()
            return handle
        except OSError:
            if time.monotonic() > deadline:
                handle.close()
                return None
            time.sleep(0.1)


def _idle_seconds() -> float:
    try:
        return float(os.environ.get(DAEMON_IDLE_ENV) or DAEMON_IDLE_SECONDS)
    except ValueError:
        return DAEMON_IDLE_SECONDS


def run(path: Path, warm: NotebookRequest) -> None:
    lock = _take_lock(path)
    if lock is None:
        return  # another daemon serves this socket
    keep_this_process_to_one_cpu()  # before the zygote and the suites' thread start: they inherit it
    daemon = Daemon()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        path.unlink(missing_ok=True)  # left by a daemon that was killed; we hold the lock, so it is not live
        listener.bind(str(path))
        os.chmod(path, 0o600)
        listener.listen(16)
        listener.settimeout(1.0)
        daemon.warm(warm)
        with daemon._lock:
            daemon.ready = True
        idle = _idle_seconds()
        print(
            f"{time.strftime('%H:%M:%S')} daemon {os.getpid()} ready (exits after {idle:g} s idle)",
            file=sys.stderr,
            flush=True,
        )
        while True:
            with daemon._lock:
                quiet = daemon.busy == 0 and (daemon.stale.is_set() or time.monotonic() - daemon.last_used > idle)
            if quiet:
                return
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            if daemon.stale.is_set():
                conn.close()  # the client grades cold
                continue
            with daemon._lock:
                daemon.busy += 1
            threading.Thread(target=daemon.serve, args=(conn,), name="grade-request", daemon=True).start()
    finally:
        listener.close()
        path.unlink(missing_ok=True)
        daemon.close()
        lock.close()


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    path = Path(sys.argv[1])
    run(path, NotebookRequest.from_json(sys.argv[2].encode()))


if __name__ == "__main__":
    main()
