"""The channel carries plain data only, calls back across it, and refuses what it cannot check."""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest

from grader.execute.channel import Endpoint, to_plain
from grader.execute.protocol import BadMessage, ChannelTimeout, Opaque, RemoteError


def pair(handler_b: Any) -> tuple[Endpoint, Endpoint, threading.Thread]:
    """Two endpoints joined by pipes; B answers A's requests in a thread until it sees 'bye'."""
    a_to_b_r, a_to_b_w = os.pipe()
    b_to_a_r, b_to_a_w = os.pipe()
    a = Endpoint(b_to_a_r, a_to_b_w, lambda m: None, max_bytes=4096)
    b = Endpoint(a_to_b_r, b_to_a_w, handler_b)

    def serve() -> None:
        while (m := b.receive())["t"] != "bye":
            b.answer(m)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return a, b, thread


class Forged(float):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = float.__hash__


def test_subclasses_cross_as_the_plain_values_they_hold() -> None:
    plain = to_plain([Forged(2.0), True, None, "s", (1, 2), {"k": 1.5}], export=lambda f: f)
    assert plain == [2.0, True, None, "s", (1, 2), {"k": 1.5}]
    assert type(plain[0]) is float


def test_exotic_objects_arrive_as_a_description() -> None:
    assert to_plain(object(), export=lambda f: f) == Opaque("object", "an object")


def test_calls_and_nested_callbacks_both_ways() -> None:
    def handler(message: dict[str, Any]) -> Any:
        # B's "learner function": calls the callback it was given, passing one of its own functions back.
        args = b.decode(message["args"])
        callback = args[0]
        return callback(lambda x: x * 10, 4)

    a, b, thread = pair(handler)
    seen = []

    def trusted(fn: Any, n: int) -> int:
        seen.append(n)
        return fn(n) + 1  # calls back into B while B waits for us

    assert a.request({"t": "call", "name": "f", "args": [trusted]}) == 41
    assert seen == [4]
    a.send({"t": "bye"})
    thread.join(2)


def test_remote_exceptions_keep_type_and_message() -> None:
    def handler(message: dict[str, Any]) -> Any:
        raise ZeroDivisionError("division by zero")

    a, _, thread = pair(handler)
    with pytest.raises(RemoteError) as err:
        a.request({"t": "call", "name": "f"})
    assert err.value.type_name == "ZeroDivisionError"
    a.send({"t": "bye"})
    thread.join(2)


def test_oversized_messages_are_refused() -> None:
    a, _, thread = pair(lambda m: "x" * 100_000)
    with pytest.raises(BadMessage, match="larger than"):
        a.request({"t": "call", "name": "f"})


def test_deep_nesting_is_refused() -> None:
    r, w = os.pipe()
    e = Endpoint(r, w, lambda m: None)
    deep: Any = []
    for _ in range(100):
        deep = [deep]
    with pytest.raises(BadMessage, match="nested"):
        e.decode(deep)


def test_silence_times_out() -> None:
    r, w = os.pipe()
    e = Endpoint(r, w, lambda m: None)
    import time

    with pytest.raises(ChannelTimeout):
        e.receive(deadline=time.monotonic() + 0.05)


@pytest.mark.parametrize(
    ("line", "read"),
    [
        (b'{"t":"x","v":[1,2.5,"s",null]}\n', {"t": "x", "v": [1, 2.5, "s", None]}),
        (b' \t{"t":"x"}\n', {"t": "x"}),  # whitespace around the object, as json.loads reads it
        (b'{"t":"x"} \r\n', {"t": "x"}),
        (b'{"t":"x"}{"t":"y"}\n', None),  # "Extra data": json.loads refuses it, so the reader does
        (b'{"t":"x"} garbage\n', None),
        (b"  \n", None),
    ],
)
def test_a_line_reads_as_json_loads_reads_it(line: bytes, read: dict[str, Any] | None) -> None:
    r, w = os.pipe()
    e = Endpoint(r, w, lambda m: None)
    os.write(w, line)
    if read is None:
        with pytest.raises(BadMessage, match="unreadable"):
            e.receive()
    else:
        assert e.receive() == read


def test_every_item_of_a_long_list_is_made_plain_and_rebuilt() -> None:
    """Exact scalars pass as they are; a subclass or a container among them is still copied to plain data."""
    r, w = os.pipe()
    e = Endpoint(r, w, lambda m: None)
    value = [*range(200), Forged(2.0), True, (1, [2.5]), {"k": Forged(1.5)}, "s"]
    wire = e.encode([value])
    assert type(wire[0][200]) is float
    assert wire[0][202] == {"$t": [1, [2.5]]}
    decoded = e.decode(wire)
    assert decoded == [[*range(200), 2.0, True, (1, [2.5]), {"k": 1.5}, "s"]]
    assert type(decoded[0][203]["k"]) is float


def test_fields_a_handler_made_plain_are_sent_as_a_dict() -> None:
    from grader.execute.channel import Fields

    a, b, thread = pair(lambda m: Fields({"value": b.encode((1, 2)), "changed": ["0"], "same_as": None}))
    assert a.request({"t": "call", "name": "f"}) == {"value": (1, 2), "changed": ["0"], "same_as": None}
    a.send({"t": "bye"})
    thread.join(2)
