"""The ``grade`` side of the warm daemon, without a daemon: what it does when the socket answers badly or not at all.

A daemon that is stopped (``kill -STOP``) or starved keeps its socket, and the kernel queues connections to it, so
connecting succeeds and nothing ever comes back. ``grade`` waits only for the daemon's greeting
(``TimeBudget.daemon_hello``), then grades cold and tells the learner why in one line.
"""

from __future__ import annotations

import socket
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from grader.config import DEFAULT_LIMITS, Limits
from grader.serve import client
from grader.serve.protocol import NotebookRequest

REQUEST = NotebookRequest("a.ipynb", "/")
#: A greeting deadline short enough for the quick loop (the default is one learner call's limit, 5 s).
QUICK = replace(DEFAULT_LIMITS, call_timeout=0.2)


@pytest.fixture
def asking(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A socket path in a fresh folder, with ``grade`` willing to ask a daemon and the quick limits."""
    monkeypatch.setenv("GRADER_DAEMON", "auto")
    monkeypatch.setattr(client, "limits_for", lambda timeout: QUICK)
    with tempfile.TemporaryDirectory(prefix="gdc-") as folder:  # short: a socket path has at most 107 bytes
        yield Path(folder) / "d.sock"


def test_a_daemon_that_takes_the_connection_but_never_greets_is_left_at_once_with_a_note(asking: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stopped:
        stopped.bind(str(asking))
        stopped.listen(1)  # never accepted: what a stopped daemon's socket does
        asked = client.ask(REQUEST, asking)
    assert asked.answer is None and asked.note is not None
    assert f"did not answer within {QUICK.budget.daemon_hello:g} s" in asked.note and "\n" not in asked.note
    assert "graded without it" in asked.note and "grade daemon stop" in asked.note


def test_no_daemon_or_one_that_hangs_up_is_graded_cold_without_a_note(asking: Path) -> None:
    assert client.ask(REQUEST, asking) == client.Asked(None)  # nothing listens on the path
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as closing:
        closing.bind(str(asking))
        closing.listen(1)

        def hang_up() -> None:
            conn, _ = closing.accept()
            conn.close()  # what a daemon does to another user, or while exiting

        taker = threading.Thread(target=hang_up)
        taker.start()
        assert client.ask(REQUEST, asking) == client.Asked(None)
        taker.join()


def test_the_greeting_deadline_is_one_learner_calls_limit() -> None:
    assert Limits(call_timeout=0.2).budget.daemon_hello == 0.2
