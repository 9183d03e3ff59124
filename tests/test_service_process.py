"""The course service as it runs: a real ``grade serve`` (or uvicorn in a subprocess) on a free loopback port.

kill -9 in the middle of a burst of hand-ins loses none that was acknowledged; a slow client (slowloris) is cut
off while others are served; a body over the cap is refused while it is being read; a trickled body times out."""

from __future__ import annotations

import os
import select
import signal
import socket
import threading
from pathlib import Path
from typing import Any

from grader.service import protocol, tokens
from grader.service.store import Store
from tests.conftest import SQUARES_SOLVED
from tests.service_support import (
    SECRET,
    course,
    free_port,
    get,
    notebook_json,
    quick_service_args,
    request,
    service_process,
    wait_up,
)
from tests.waiting import wait_until

THREADS, EACH = 8, 40


def test_kill_9_mid_burst_loses_no_acknowledged_hand_in(tmp_path: Path) -> None:
    root, db, port = course(tmp_path), tmp_path / "service.sqlite", free_port()
    base = f"http://127.0.0.1:{port}"
    args = ["grade", "serve", "--lessons", str(root), "--database", str(db), "--port", str(port), "--jobs", "1"]
    env = {"GRADER_COURSE_SECRET": SECRET.decode()}
    acknowledged: list[tuple[str, str, dict[str, Any]]] = []
    cut_off: list[str] = []
    lock = threading.Lock()

    def learner(n: int) -> None:
        token = tokens.issue(SECRET, f"learner{n}", "squares")
        for i in range(EACH):
            key = f"{n}-{i}"
            body = {"lesson": "squares", "notebook": notebook_json([*SQUARES_SOLVED, f"# hand-in {key}"])}
            try:
                status, answer = request(
                    "POST", base + protocol.SUBMIT, body, token, {protocol.IDEMPOTENCY_HEADER: key}, timeout=20
                )
            except OSError:
                with lock:
                    cut_off.append(key)
                return
            assert status == 201, answer
            with lock:
                acknowledged.append((token, key, answer))

    with service_process(args, env) as process:
        wait_up(base, process)
        threads = [threading.Thread(target=learner, args=(n,)) for n in range(THREADS)]
        for thread in threads:
            thread.start()
        wait_until(lambda: len(acknowledged) >= 20, 120, "20 hand-ins acknowledged")
        os.kill(process.pid, signal.SIGKILL)
        for thread in threads:
            thread.join(60)
    assert cut_off, "the kill came after the burst: it proves nothing"
    assert len(acknowledged) < THREADS * EACH
    stored = {r["id"]: r for r in Store(db).all_receipts()}
    for _, _, receipt in acknowledged:
        assert stored.get(receipt["id"]) == receipt  # every receipt a learner holds is in the store, as it said
    # After the restart, a learner whose answer was lost retries with the same key: stored once, same receipt.
    token, key, first = acknowledged[0]
    with service_process(args, env) as process:
        wait_up(base, process)
        body = {"lesson": "squares", "notebook": notebook_json([*SQUARES_SOLVED, f"# hand-in {key}"])}
        status, again = request("POST", base + protocol.SUBMIT, body, token, {protocol.IDEMPOTENCY_HEADER: key})
    assert (status, again) == (200, first)
    assert len(Store(db).all_receipts()) == len(stored)


def _closed(sock: socket.socket) -> bool:
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(4096) == b""
    except ConnectionError:
        return True


def test_a_slow_client_is_cut_off_and_others_are_served_meanwhile(tmp_path: Path) -> None:
    root, port = course(tmp_path), free_port()
    base = f"http://127.0.0.1:{port}"
    head = b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
    with service_process(quick_service_args(root, port, tmp_path / "s.sqlite")) as process:
        wait_up(base, process)
        served = []
        with socket.create_connection(("127.0.0.1", port), timeout=5) as slow:
            sent = 0
            for byte in head:  # bounded: at most the header's length, one byte a tenth of a second
                try:
                    slow.send(bytes([byte]))
                except OSError:
                    break
                sent += 1
                if sent % 5 == 0:
                    served.append(get(base + protocol.HEALTH)[0])
                if _closed(slow):
                    break
                threading.Event().wait(0.1)
    assert sent < len(head), "the service waited for the whole slow header"
    assert served and set(served) == {200}


def _raw(port: int, head: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(head)
    return sock


def test_a_body_over_the_cap_is_refused_while_it_is_read(tmp_path: Path) -> None:
    root, port = course(tmp_path), free_port()
    token = tokens.issue(SECRET, "alice", "squares")
    head = (
        f"POST {protocol.SUBMIT} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"x" * (256 * 1024)
    framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    with service_process(quick_service_args(root, port, tmp_path / "s.sqlite")) as process:
        wait_up(f"http://127.0.0.1:{port}", process)
        with _raw(port, head) as sock:
            sent, answer = 0, b""
            for _ in range(64):  # bounded: 16 MB at most, four times the cap
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:
                    answer = sock.recv(4096)
                    break
                try:
                    sock.sendall(framed)
                except OSError:
                    break
                sent += len(chunk)
            if not answer:
                answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < 64 * len(chunk)


def test_a_trickled_body_times_out_with_408(tmp_path: Path) -> None:
    root, port = course(tmp_path), free_port()
    token = tokens.issue(SECRET, "alice", "squares")
    head = (
        f"POST {protocol.CHECK} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    ).encode()
    with service_process(quick_service_args(root, port, tmp_path / "s.sqlite")) as process:
        wait_up(f"http://127.0.0.1:{port}", process)
        with _raw(port, head) as sock:
            answer = b""
            for _ in range(100):  # bounded: 100 bytes, a tenth of a second apart, of the 1000 announced
                readable, _, _ = select.select([sock], [], [], 0.1)
                if readable:
                    answer = sock.recv(4096)
                    break
                sock.send(b" ")
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
