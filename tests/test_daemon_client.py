"""The ``grade`` side of the warm daemon, without a daemon: what it does when the socket answers badly or not at all.

A daemon that is stopped (``kill -STOP``) or starved keeps its socket, and the kernel queues connections to it, so
connecting succeeds and nothing ever comes back. ``grade`` waits only for the daemon's greeting
(``TimeBudget.daemon_hello``), then grades cold and tells the learner why in one line.
"""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from grader.config import DEFAULT_LIMITS, Limits
from grader.environment import SECRET_ENV
from grader.serve import client
from grader.serve.protocol import NotebookRequest
from tests.conftest import FIXTURE_LESSONS

REQUEST = NotebookRequest("a.ipynb", "/")
#: A greeting deadline short enough for the quick loop (the default is one learner call's limit, 5 s).
QUICK = replace(DEFAULT_LIMITS, call_timeout=0.2)


@pytest.fixture
def asking(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A socket path in a fresh folder, with ``grade`` willing to ask a daemon and the quick limits."""
    monkeypatch.setenv("GRADER_DAEMON", "auto")
    monkeypatch.setattr(client, "_budget", lambda timeout: QUICK.budget)
    monkeypatch.setattr(client, "FIRST_WAIT", 0.05)
    monkeypatch.setattr(client, "_ASKED", {})
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


@pytest.mark.parametrize(
    ("args", "plain"),
    [
        (["a.ipynb"], ("a.ipynb", False, None)),
        (["a.ipynb", "--json"], ("a.ipynb", True, None)),
        (["--json", "./a.ipynb"], ("./a.ipynb", True, None)),  # as typed: the report shows it as a Path would
        (["a.ipynb", "--lessons", "{lessons}"], ("a.ipynb", False, "{lessons}")),
        (["--lessons={lessons}", "a.ipynb", "--json"], ("a.ipynb", True, "{lessons}")),
        # anything else is the command's to parse (and to report on): another word, option or file, twice, missing
        (["batch", "a.ipynb"], None),
        (["a.ipynb", "--timeout", "30"], None),
        (["a.ipynb", "--json", "--json"], None),
        (["a.ipynb", "b.ipynb"], None),
        (["a.txt"], None),
        (["-a.ipynb"], None),
        (["--json"], None),
        (["a.ipynb", "--lessons"], None),
        (["a.ipynb", "--lessons", "{lessons}/missing"], None),
        (["{lessons}"], None),  # a folder whose name ends in .ipynb
        ([], None),
    ],
)
def test_only_the_plain_grade_notebook_is_answered_before_the_command_line_is_parsed(
    tmp_path: Path, args: list[str], plain: tuple[str, bool, str | None] | None
) -> None:
    (tmp_path / "lessons.ipynb").mkdir()
    lessons = str(tmp_path / "lessons.ipynb")
    given = [a.replace("{lessons}", lessons) for a in args]
    found = client._plain(given)
    if plain is None:
        assert found[0] is None
    else:
        notebook, as_json, folder = plain
        where = None if folder is None else folder.replace("{lessons}", lessons)
        assert found == (notebook, as_json, where)


def test_a_request_the_warm_answer_left_to_the_command_is_not_asked_again(
    asking: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``grade NOTEBOOK`` asks the daemon before the command line is parsed (``warm_answer``); what it leaves to
    the command, which asks the same request again, gets the same outcome at once: a daemon that does not greet is
    waited for, and named, once; one that leaves a request to a cold grade counts it once."""
    monkeypatch.setattr(client, "_socket_name", lambda: str(asking))
    monkeypatch.delenv(SECRET_ENV, raising=False)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stopped:
        stopped.bind(str(asking))
        stopped.listen(1)  # never accepted: a stopped daemon
        assert client.warm_answer(["a.ipynb", "--lessons", str(FIXTURE_LESSONS)]) is None
        request = client.notebook_request(Path("a.ipynb"), lessons=FIXTURE_LESSONS)  # as grader.cli makes it
        started = time.monotonic()
        assert client.ask(request, asking) == client.Asked(None)
        assert time.monotonic() - started < QUICK.budget.daemon_hello
    assert capsys.readouterr().err.count("did not answer within") == 1


def test_a_daemon_that_greets_and_answers_after_the_first_wait_is_still_waited_for(asking: Path) -> None:
    """``grade`` reads how long it may wait (the limits) only once a wait outlasts ``FIRST_WAIT`` (0.05 s here), then
    waits the rest: a greeting at 0.15 s (of the 0.2 s allowed) and an answer after 0.3 s more are both taken."""
    from grader.serve.protocol import HELLO, Answer

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as slow:
        slow.bind(str(asking))
        slow.listen(1)

        def serve() -> None:
            conn, _ = slow.accept()
            with conn:
                time.sleep(0.15)
                conn.sendall(HELLO)
                while conn.recv(1 << 16):
                    pass
                time.sleep(0.3)
                conn.sendall(Answer("graded\n", "", 0).to_json())

        server = threading.Thread(target=serve)
        server.start()
        asked = client.ask(REQUEST, asking)
        server.join()
    assert asked == client.Asked(Answer("graded\n", "", 0))
