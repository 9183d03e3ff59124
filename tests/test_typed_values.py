"""Values cross the channel with their type, the same way on every path that runs learner code.

The default worker, the real-kernel mode and self-check's in-kernel target must hand a hidden test the same
thing for the same notebook: a tuple as a tuple, an int as an int, a numpy array as an :class:`Opaque`
description, and whether a result is one of the arguments or an earlier result. Otherwise one notebook would
get two scores, or feedback that shows a learner's tuple as a list.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.config import DEFAULT_LIMITS, DEFAULT_MODE, WorkerMode
from grader.execute.channel import Endpoint
from grader.execute.protocol import Returned
from grader.execute.worker import start_worker
from grader.read import read_submission
from grader.selfcheck import NamespaceTarget
from grader.testing import Call, Opaque, show
from tests.test_hostile import write_nb

CELLS = [
    "import numpy as np\nfrom collections import deque",
    "def echo(x):\n    return x",
    "def kind(*args, **kwargs):\n    return [type(a).__name__ for a in [*args, *kwargs.values()]]",
    "def pair():\n    return (1, 2.5)",
    "def nested():\n    return [(1, [2, (3,)]), {'k': (True, None)}, ()]",
    "def numbers():\n    return [1, 1.0, True, np.int64(3), np.float32(0.5), np.bool_(False), np.float64(2.0)]",
    "def array():\n    return np.arange(3)",
    "def arrays():\n    return (np.zeros((2, 3)), [np.arange(2)])",
    "class Liar(float):\n    def __eq__(self, other):\n        return True\n    __hash__ = float.__hash__\n"
    "def liar():\n    return Liar(2.5)",
    "def others():\n    return [range(3), deque([1]), {1, 2}, (i for i in [1]), object(), {1: 'a'}]",
    "def forged():\n    return [{'$fn': 1}, {'$t': [1]}, {}]",
    "def same(next_token, prompt, n):\n    return prompt",
    "def same_kw(next_token, prompt, n):\n    return prompt",
    "BUFFER = []\ndef reuse(n):\n    BUFFER[:] = range(n)\n    return BUFFER",
    "def fresh(n):\n    return list(range(n))",
    "def zero(n):\n    return n",
    "PAIR = (1, 2)",
    "def bump(items, n=0):\n    items.append(n)\n    return len(items)",
]

Call_ = Callable[..., Returned]


def check_contract(call: Call_, value: Callable[[str], Any]) -> None:
    """Every rule of the contract, against one target (``call(name, *args, **kwargs)``)."""
    # exact scalar types
    got = call("echo", 1).value
    assert (got, type(got)) == (1, int)
    got = call("echo", 1.0).value
    assert (got, type(got)) == (1.0, float)
    got = call("echo", True).value
    assert got is True
    # tuple stays tuple, list stays list, nested too; the empty tuple too
    assert call("pair").value == (1, 2.5) and type(call("pair").value) is tuple
    assert call("nested").value == [(1, [2, (3,)]), {"k": (True, None)}, ()]
    assert [type(x) for x in call("nested").value] == [tuple, dict, tuple]
    assert call("echo", (1, [2])).value != [1, [2]]
    assert value("PAIR") == (1, 2) and type(value("PAIR")) is tuple
    # arguments keep their types on the way in
    assert call("kind", (1, 2), [1], 1, 1.0, True, None, x=(3,)).value == [
        "tuple",
        "list",
        "int",
        "float",
        "bool",
        "NoneType",
        "tuple",
    ]
    # numpy scalars arrive as the Python numbers they hold
    numbers = call("numbers").value
    assert numbers == [1, 1.0, True, 3, 0.5, False, 2.0]
    assert [type(n) for n in numbers] == [int, float, bool, int, float, bool, float]
    # a float subclass arrives as the plain float it holds
    liar = call("liar").value
    assert type(liar) is float and liar == 2.5 and liar != 3
    # anything else is an Opaque description, equal to no value
    array = call("array").value
    assert array == Opaque("numpy.ndarray", "a numpy array of shape (3,) and dtype int64")
    assert array != [0, 1, 2] and array != (0, 1, 2)
    zeros, (small,) = call("arrays").value
    assert zeros.text == "a numpy array of shape (2, 3) and dtype float64" and isinstance(small, Opaque)
    assert [o.type_name for o in call("others").value] == [
        "range",
        "collections.deque",
        "set",
        "generator",
        "object",
        "dict",
    ]
    assert [o.text for o in call("others").value][:3] == [
        "a range of 3 items",
        "a collections.deque of 1 item",
        "a set of 2 items",
    ]
    # a learner's dict that looks like a wire tag is still a dict
    assert call("forged").value == [{"$fn": 1}, {"$t": [1]}, {}]
    # identity: an argument handed back, by position or keyword, and an object returned again
    assert call("same", None, [1], 2).same_as == "argument 1"
    assert call("same_kw", next_token=None, prompt=[1], n=2).same_as == "argument prompt"
    assert call("reuse", 2).same_as is None
    assert call("reuse", 3).same_as == "an earlier result"
    assert call("reuse", 3).value == [0, 1, 2]
    assert [call("fresh", 2).same_as for _ in range(3)] == [None, None, None]
    assert call("zero", 0).same_as is None  # small ints are shared by Python: their identity means nothing
    assert call("pair").same_as is None
    # arguments changed in place are named, by position and keyword; scalars (a NaN too) never are
    assert call("bump", [1], 2).changed == ("0",) and call("bump", items=[1]).changed == ("items",)
    assert call("echo", float("nan")).changed == () and call("zero", n=7).changed == ()


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_nb(tmp_path_factory.mktemp("typed"), "typed", CELLS)


def worker_calls(notebook: Path, mode: WorkerMode) -> Iterator[tuple[Call_, Callable[[str], Any]]]:
    worker, execution = start_worker(read_submission(notebook), DEFAULT_LIMITS, mode)
    try:
        assert execution.cell_errors == ()
        yield (lambda name, *args, **kwargs: worker.call(name, list(args), kwargs, {})), worker.value
    finally:
        worker.close()


def test_the_worker_keeps_types(notebook: Path) -> None:
    for call, value in worker_calls(notebook, DEFAULT_MODE):
        check_contract(call, value)


@pytest.mark.slow
def test_a_real_kernel_keeps_types(notebook: Path) -> None:
    pytest.importorskip("nbclient")
    for call, value in worker_calls(notebook, WorkerMode(kernel=True)):
        check_contract(call, value)


def test_self_check_keeps_types() -> None:
    namespace: dict[str, Any] = {}
    for cell in CELLS:
        exec(cell, namespace)
    target = NamespaceTarget(namespace)
    check_contract(lambda name, *args, **kwargs: target.call(name, list(args), kwargs, {}), target.value)


def test_show_renders_tuples_and_opaque_values() -> None:
    assert show((1, 2)) == "(1, 2)"
    assert show([1, 2]) == "[1, 2]"
    assert show(tuple(range(10))) == "(0, 1, 2, 3, 4, 5, 6, 7, ...) (10 items)"
    assert (
        show(Opaque("numpy.ndarray", "a numpy array of shape (3,) and dtype int64"))
        == "a numpy array of shape (3,) and dtype int64"
    )
    assert show(Call("f()", (1.5, 2.5)).value) == "(1.5, 2.5)"


def test_an_opaque_description_is_bounded_and_an_unknown_tag_is_refused() -> None:
    r, w = os.pipe()
    endpoint = Endpoint(r, w, lambda m: None)
    got = endpoint.decode({"$o": ["x" * 1000, "y" * 1000]})
    assert isinstance(got, Opaque) and len(got.type_name) <= 100 and len(got.text) <= 200
    from grader.execute.protocol import BadMessage

    for bad in ({"$o": [1, 2]}, {"$t": 3}, {"a": 1, "b": 2}, {"$x": []}):
        with pytest.raises(BadMessage):
            endpoint.decode(bad)
    os.close(r)
    os.close(w)
