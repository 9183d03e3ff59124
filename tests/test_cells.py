"""Plain cells run by the worker itself behave exactly as IPython's ``run_cell`` runs them (grader/execute/cells.py)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from functools import cache
from typing import Any

import pytest

from grader.execute.cells import _compiled, run_cell
from grader.execute.worker_main import _make_shell
from tests.conftest import REPO

TRICKY = [
    "x = 1",
    "x + 1",  # a last bare expression: displayed, and becomes `_`
    "y = _ * 10",
    "from __future__ import annotations",
    "def f(a: NotDefinedAnywhere) -> int:\n    return 1",  # only compiles lazily under the future import above
    "sorted(f.__annotations__)",
    "z = 3;",  # a trailing semicolon hides the value (IPython's rule)
    "%time w = 4",
    "!echo from a shell command",
    "import asyncio\nawait asyncio.sleep(0)\nv = 5",  # top-level await
    "    indented = 6\n    also = 7",  # a cell indented as a whole
    "raise ValueError('boom')",
    "import sys\nsys.exit(3)",
    "1 / 0",
    "exit()",
    "def g():\n    return not_defined\n\nq = [i * i for i in range(3)]\ng()",
    "class C:\n    pass\n\nc = C()\nprint('printed', len(q))",
    "# only a comment",
    "",
    "None",
    "bad = 'a\x00b'",  # a NUL byte: Python refuses the source
    "for i in range(2):\n    i",  # an expression inside a block is not displayed
    "i",
    "import builtins\nipython_builtin = hasattr(builtins, 'get_ipython')",  # the shell's builtins are in place
]

HISTORY = {"In", "Out", "_ih", "_oh", "_dh", "_i", "_ii", "_iii", "exit", "quit", "get_ipython", "__builtins__", "_sh"}


def _run_all(way: str) -> None:
    """In a fresh process (IPython's shell is a singleton): run TRICKY one way, print what came of it as JSON."""
    runner = run_cell if way == "ours" else _ipython
    shell = _make_shell()
    errors, out = [], io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        for source in TRICKY:
            err = runner(shell, source)
            errors.append("" if err is None else f"{type(err).__name__}: {err}")
    names = {
        k: re.sub(" at 0x[0-9a-f]+", "", repr(v))
        for k, v in shell.user_ns.items()
        if k not in HISTORY and not k.startswith("_i")
    }
    printed = re.sub(r"[0-9.]+(?:e[+-]?[0-9]+)? (ns|us|µs|ms|s)\b", "<time>", out.getvalue())  # %time's own measurement
    # IPython also warns "To exit: use 'exit', 'quit', or Ctrl-D." after sys.exit(); the grader's report says
    # what to do about sys.exit() instead, so the worker does not repeat that warning.
    printed = re.sub(r".*UserWarning: To exit: use 'exit'.*\n.*\n", "", printed)
    print(json.dumps([names, errors, printed]))


def _ran(way: str) -> tuple[dict[str, str], list[str], str]:
    code = f"from tests.test_cells import _run_all; _run_all({way!r})"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    names, errors, out = json.loads(done.stdout.splitlines()[-1])
    return names, errors, out


def _ipython(shell: Any, source: str) -> BaseException | None:
    result = shell.run_cell(source, store_history=False)
    return result.error_before_exec or result.error_in_exec  # type: ignore[no-any-return]


@pytest.mark.slow
def test_plain_cells_run_as_ipython_runs_them() -> None:
    ours, theirs = _ran("ours"), _ran("ipython")
    assert ours[0] == theirs[0]  # the namespace, `_` included
    assert ours[1] == theirs[1]  # each cell's error
    assert ours[2] == theirs[2]  # what was printed: displayed values, tracebacks
    assert ours[0]["y"] == "20" and ours[0]["_"] == "1" and "w" in ours[0] and "indented" in ours[0]
    assert ours[1][11:14] == ["ValueError: boom", "SystemExit: 3", "ZeroDivisionError: division by zero"]


@pytest.mark.parametrize(
    ("source", "plain"),
    [
        ("x = 1", True),
        ("x + 1", True),
        ("%time x", False),
        ("!ls", False),
        ("x?", False),
        ("x;", False),
        ("await f()", False),
        ("  x = 1", False),
        ("%%timeit\nx", False),
    ],
)
def test_only_plain_python_skips_ipython(source: str, plain: bool) -> None:
    assert (_compiled(_shell(), source) is not None) == plain


@cache
def _shell() -> Any:
    return _make_shell()
