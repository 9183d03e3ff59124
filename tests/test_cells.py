"""Plain cells run by the worker itself behave exactly as IPython's ``run_cell`` runs them (grader/execute/cells.py):
with IPython's shell built, and in a :class:`PlainShell` that builds it only for a cell that needs it."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import subprocess
import sys
from functools import cache
from typing import Any

import pytest

from grader.execute.cells import PlainShell, _compiled, ipython_shell, ipython_syntax, needs_ipython, run_cell
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
    *(["bad = 'a\x00b'"] if sys.version_info >= (3, 11) else []),  # a NUL byte: IPython 8 on 3.10 fails on it
    "for i in range(2):\n    i",  # an expression inside a block is not displayed
    "i",
    "import builtins\nipython_builtin = hasattr(builtins, 'get_ipython')",  # the shell's builtins are in place
]

#: Cells a :class:`PlainShell` runs without IPython: every one is plain Python and names nothing only IPython defines.
PLAIN = [
    "x = 1",
    "x + 1",
    "y = _ * 10",
    "from __future__ import annotations",
    "def f(a: NotDefinedAnywhere) -> int:\n    return 1",
    "sorted(f.__annotations__)",
    "raise ValueError('boom')",
    "import sys\nsys.exit(3)",
    "1 / 0",
    "def g():\n    return not_defined\n\nq = [i * i for i in range(3)]\ng()",
    "class C:\n    pass\n\nc = C()\nprint('printed', len(q))",
    "# only a comment",
    "",
    "None",
    "for i in range(2):\n    i",
    "i",
    "import pickle\ndef h():\n    return 1\n\nback = pickle.loads(pickle.dumps(h)) is h",  # the namespace is __main__
    "import __main__\nmain_x = __main__.x",
    "import inspect\nsource_lines = len(inspect.getsource(g).splitlines())",  # the cell's source is registered
    "[1, 2]",
    "__ == 1 and ___ == 20",
    "_ = 'mine'",  # the learner's own `_`: displayed values no longer move it
    "5",
    "kept = _",
    "__name__",
    "rate = {tb_per_s}e12 / 2",  # a syntax error of the learner's, not IPython syntax
    "\n\n\nnope = (1,\n",  # leading blank lines: IPython drops them, and names the line after that
    "def broken():\nreturn 1",  # an IndentationError
    "print('what?') +",
    "import sys\nlimit = sys.getrecursionlimit()",  # a Jupyter kernel's, 3000 (jedi sets it), without IPython too
    "total = " + " + ".join(["1"] * 1200),  # compiles only under that limit
    "way_too_deep = " + "-" * 100_000 + "1",  # past any limit: the cell's error, and the notebook goes on
    "after_the_deep_one = 1",
]

#: IPython's own names, never compared (they differ from run to run, or a plain shell has none of them).
HISTORY = {
    "In",
    "Out",
    "_ih",
    "_oh",
    "_dh",
    "_i",
    "_ii",
    "_iii",
    "exit",
    "quit",
    "get_ipython",
    "__builtins__",
    "_sh",
    "open",
}


def _run_all(way: str, cells: list[str] | None = None) -> None:
    """In a fresh process (IPython's shell is a singleton): run ``cells`` (TRICKY) one way, print what came of it as
    JSON. ``ours``: :func:`run_cell` with IPython's shell; ``plain``: with a :class:`PlainShell`; ``ipython``:
    IPython's own ``run_cell``."""
    runner = _ipython if way == "ipython" else run_cell
    shell: Any = PlainShell() if way == "plain" else ipython_shell()
    errors, out = [], io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        for source in TRICKY if cells is None else cells:
            err = runner(shell, source)
            errors.append("" if err is None else f"{type(err).__name__}: {err}")
    errors.append(f"IPython imported: {'IPython' in sys.modules}")
    names = {
        k: re.sub(" at 0x[0-9a-f]+", "", repr(v))
        for k, v in shell.user_ns.items()
        if k not in HISTORY and not k.startswith("_i") and not re.fullmatch(r"_\d+", k)
    }
    # ``_1`` (``_0`` from IPython 9 on): the output numbered by IPython's execution count, which the grader's worker,
    # running cells without history, never advances; a plain shell numbers it 1. Compared apart from the rest.
    numbered = sorted(k for k in shell.user_ns if re.fullmatch(r"_\d+", k))
    if numbered:
        names["_N"] = re.sub(" at 0x[0-9a-f]+", "", repr(shell.user_ns[numbered[-1]]))
    printed = re.sub(r"[0-9.]+(?:e[+-]?[0-9]+)? (ns|us|µs|ms|s)\b", "<time>", out.getvalue())  # %time's own measurement
    # IPython also warns "To exit: use 'exit', 'quit', or Ctrl-D." after sys.exit(); the grader's report says
    # what to do about sys.exit() instead, so the worker does not repeat that warning.
    printed = re.sub(r".*UserWarning: To exit: use 'exit'.*\n.*\n", "", printed)
    print(json.dumps([names, errors, printed]))


def _ran(way: str, cells: list[str] | None = None) -> tuple[dict[str, str], list[str], str]:
    code = f"from tests.test_cells import _run_all; _run_all({way!r}, {cells!r})"
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


@pytest.mark.slow
def test_a_plain_shell_runs_plain_cells_as_ipython_does_without_importing_it() -> None:
    plain, theirs = _ran("plain", PLAIN), _ran("ipython", PLAIN)
    assert plain[0] == theirs[0]  # the namespace: `_`, `__`, `___`, `_1` moved as IPython's display hook moves them
    assert plain[1][:-1] == theirs[1][:-1]  # each cell's error
    assert plain[1][-1] == "IPython imported: False"
    names = plain[0]
    assert names["y"] == "20" and names["back"] == "True" and names["main_x"] == "1" and names["source_lines"] == "2"
    assert names["_"] == "'mine'" and names["kept"] == "'mine'" and names["_N"] == "'__main__'"


@pytest.mark.slow
@pytest.mark.parametrize("way", ["ours", "plain"])
def test_a_trailing_semicolon_shows_nothing_and_leaves_underscore_as_a_kernel_does(way: str) -> None:
    """A kernel hides the value of a cell whose last token is ``;`` and does not set ``_`` (IPython's own ``run_cell``
    without history got this wrong, reading the rule off a cell it had not stored)."""
    cells = ["1 + 1", "40 + 2;", "seen = _", "7  # shown", "after = _", "8;  # a comment after it", "still = _", "9 ;"]
    names, errors, _ = _ran(way, cells)
    assert (names["seen"], names["after"], names["still"], names["_"]) == ("2", "7", "7", "7")
    assert errors[:-1] == [""] * len(cells)


@pytest.mark.slow
@pytest.mark.parametrize("way", ["ours", "plain"])
def test_a_nul_byte_is_the_cells_syntax_error_on_every_python(way: str) -> None:
    """Python 3.10's ``compile`` refuses a NUL byte with a ValueError, which IPython 8's ``run_cell`` lets out: the
    cell's syntax error all the same (as 3.11.7 and 3.13 raise), and the cells after it run."""
    names, errors, printed = _ran(way, ["%time w = 4", "bad = 'a\x00b'", "after = 1"])
    # or IPython's own ValueError on Python 3.11.2, whose compile still raised one there (IPython 9 reports it)
    assert errors[0] == errors[2] == "" and re.fullmatch(
        r"(Syntax|Value)Error: source code string cannot contain null.*", errors[1]
    )
    assert names["after"] == "1" and "bad" not in names and "null bytes" in printed


@pytest.mark.slow  # 4 s: two processes that import IPython
def test_a_plain_shell_builds_ipython_for_the_first_cell_that_needs_it() -> None:
    """TRICKY needs IPython from its ``%time`` cell on: the namespace (what the display hook set before included)
    and every error are IPython's own."""
    plain, theirs = _ran("plain"), _ran("ipython")
    assert plain[0] == theirs[0]
    assert plain[1] == theirs[1]
    assert plain[1][-1] == "IPython imported: True"


@pytest.mark.parametrize(
    "source",
    [
        "get_ipython()",
        "display(1)",
        "Out",
        "In[0]",
        "exit()",
        "quit",
        "_1",
        "_i",
        "__IPYTHON__",
        "open(0)",
        "def later():\n    return get_ipython()",
        "class K:\n    def m(self):\n        display(self)",
        "lambda: In",
    ],
)
def test_a_cell_naming_what_only_ipython_defines_runs_in_ipython(source: str) -> None:
    assert needs_ipython(ast.parse(source))


@pytest.mark.parametrize(
    ("source", "ipython"),
    [
        ("x = !ls", True),
        ("%time 1", True),
        (">>> x = 1", True),
        ("x?", True),
        ("  x = (", True),
        ("await f()", True),
        ("In [1]: x = 1", True),
        ("/f 1 2", True),
        ("x = {a}e12", False),
        ("def f():\nreturn 1", False),
        ("print('what?') +", False),
        ("x = 1 +", False),
    ],
)
def test_a_cell_that_is_not_python_is_told_ipython_syntax_or_a_slip(source: str, ipython: bool) -> None:
    assert ipython_syntax(source) is ipython


@pytest.mark.parametrize(
    "source",
    ["x = 1", "_ = 2", "for _ in range(3):\n    pass", "__ + ___", "print(len([]))", "sys.exit(1)", "import IPythonic"],
)
def test_a_plain_cell_needs_no_ipython(source: str) -> None:
    assert not needs_ipython(ast.parse(source))


@pytest.mark.parametrize(
    ("source", "plain"),
    [
        ("x = 1", True),
        ("x + 1", True),
        ("%time x", False),
        ("!ls", False),
        ("x?", False),
        ("x;", True),
        ("await f()", False),
        ("  x = 1", False),
        ("%%timeit\nx", False),
    ],
)
def test_only_plain_python_skips_ipython(source: str, plain: bool) -> None:
    assert (_compiled(_shell(), source) is not None) == plain


@cache
def _shell() -> Any:
    return ipython_shell()
