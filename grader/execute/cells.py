"""Run one notebook cell in the worker, as a Jupyter kernel's IPython would (untrusted side).

Most cells of a lesson notebook are plain Python, and most notebooks are nothing else. Importing IPython costs
~0.22 s of CPU (its package imports prompt_toolkit and jedi for the terminal), which every zygote and every
spawned worker paid before its first cell; building its shell and ``run_cell``'s own machinery (transforming
IPython syntax, which tokenizes the cell, the top-level ``await`` check, per-node compiling, history) cost
~0.5 ms a cell more. So a worker starts with a :class:`PlainShell`: a namespace set up as IPython's is (the
recursion limit a kernel has too), in which a cell that compiles as plain Python and names none of IPython's own
names runs with what ``run_cell`` does that a learner's code can see: the cell compiled with a compiler that keeps
``from __future__`` imports for later cells and registers the source (tracebacks and ``inspect`` show the
learner's lines), the namespace as ``__main__``, and the value of a last bare expression setting ``_``, ``__``,
``___`` and ``_1`` as IPython's display hook does (not after a trailing ``;``). The first cell that needs IPython
(a magic, ``!command``, ``?``, top-level ``await``, an indented cell, or a name only IPython defines:
``get_ipython``, ``display``, ``In``, ``Out``, ``exit`` ...) builds IPython's ``InteractiveShell`` over that same
namespace (:meth:`PlainShell.ipython`), and from then on the notebook runs as it always did; that import is the
notebook's own time, in its own worker only (a zygote never builds it: what one learner's cells need must not
change what the next learner's run in). Nothing is printed for a displayed value in a plain shell (a worker's
output is read only when it failed to start).

With IPython's shell, a cell that compiles as plain Python is still run by :func:`run_cell` itself with the
shell's compiler, builtins and display hook (firing ``pre_execute``/``post_execute``, which plotting
backends listen to), and anything else goes to ``run_cell`` unchanged. ``tests/test_cells.py`` runs tricky
cells all three ways and requires the same namespace and errors (and, with IPython's shell, output).
"""

from __future__ import annotations

import ast
import builtins
import codeop
import hashlib
import io
import linecache
import re
import sys
import tokenize
import traceback
import types
from types import CodeType
from typing import Any

#: Run in the learner's namespace before the first cell of a graded run. The notebook's setup cell (tagged
#: ``self-check``, so never run by the grader) defines the self-check helpers; a learner who types
#: ``hint("generate")``, ``check("generate")`` or ``submit()`` in a new, untagged cell, as the notebook invites,
#: would otherwise get a NameError the reports count as an error that cost points. In a graded run they do nothing:
#: the grade comes from the hidden tests, and a definition of the learner's own, later, wins.
GRADED_HELPERS = """
def check(*args, **kwargs):
    \"\"\"The self-check runs in your own notebook; while grading it does nothing.\"\"\"


def check_all(*args, **kwargs):
    \"\"\"The self-check runs in your own notebook; while grading it does nothing.\"\"\"


def hint(*args, **kwargs):
    \"\"\"Hints are shown in your own notebook; while grading this does nothing.\"\"\"


def submit(*args, **kwargs):
    \"\"\"Handing in happens from your own notebook; while grading this does nothing.\"\"\"
"""


def install_graded_helpers(namespace: dict[str, Any]) -> None:
    """Define the grader's own notebook helpers as harmless no-ops in ``namespace`` (see :data:`GRADED_HELPERS`)."""
    exec(compile(GRADED_HELPERS, "<grader helpers>", "exec"), namespace)


#: Names IPython puts in the namespace or the builtins, or makes mean something (``_1``, ``_i2``): a cell that names
#: one (as a variable, an attribute or anywhere in its code) runs in IPython's own shell.
IPYTHON_NAMES = frozenset(
    {"get_ipython", "display", "In", "Out", "_ih", "_oh", "_dh", "_sh", "exit", "quit", "open", "__IPYTHON__"}
)
_IPYTHON_NAME = re.compile(r"_i+|_i?\d+")
_FUTURE_FLAGS = 0
for _feature in __import__("__future__").all_feature_names:
    _FUTURE_FLAGS |= getattr(__import__("__future__"), _feature).compiler_flag
#: The recursion limit every worker runs with, plain or with IPython's shell: a Jupyter kernel's with IPython 8, whose
#: import imports jedi, which sets it (IPython 9 leaves Python's 1000), so that a recursive answer 1,500 calls deep
#: runs whether or not the notebook needed IPython, and whatever IPython the grading machine has.
JUPYTER_RECURSION_LIMIT = 3000
#: IPython's execution count while grading: cells run with ``store_history=False``, so it stays 1.
_COUNT = 1


class PlainShell:
    """A notebook's namespace, set up as IPython's is, that runs plain-Python cells without IPython; it builds
    IPython's shell over the same namespace the first time a cell needs it (see the module's docstring)."""

    def __init__(self) -> None:
        module = types.ModuleType("__main__", doc="Automatically created module for IPython interactive environment")
        self.module = module
        self.user_ns: dict[str, Any] = module.__dict__
        self.user_ns.update({"__builtin__": builtins, "__builtins__": builtins, "_": "", "__": "", "___": ""})
        self.compile = _CachingCompiler()
        self.execution_count = _COUNT
        self._unders: list[Any] = ["", "", ""]
        """What the display hook last gave ``_``, ``__`` and ``___`` (a learner's own assignment stops it)."""
        self._shown: list[Any] = []
        """The last value displayed (IPython's ``Out[1]``), to hand over to IPython's shell."""
        self._ipython: Any = None
        sys.modules["__main__"] = module  # as IPython's shell makes its namespace __main__ (pickle, import __main__)
        sys.setrecursionlimit(max(sys.getrecursionlimit(), JUPYTER_RECURSION_LIMIT))

    @property
    def built(self) -> Any:
        """IPython's shell, if a cell has needed it (None: not yet)."""
        return self._ipython

    def ipython(self) -> Any:
        """IPython's shell over this namespace, built now if it is not yet (with what the display hook set, and the
        ``from __future__`` imports the cells so far made)."""
        if self._ipython is None:
            mine = dict(self.user_ns)
            shell = self._ipython = ipython_shell(self.module)
            shell.compile.flags |= self.compile.flags & _FUTURE_FLAGS
            ns = shell.user_ns
            for name, value in mine.items():  # the learner's own names win over what IPython put there
                if name not in ("_", "__", "___") and name in ns and ns[name] is not value:
                    ns[name] = value
            hook = shell.displayhook
            hook._, hook.__, hook.___ = self._unders
            for name, value in zip(("_", "__", "___"), (mine["_"], mine["__"], mine["___"]), strict=True):
                ns[name] = value
            if self._shown:  # the last value shown, under the number IPython's count gives it (0 from IPython 9 on)
                count = shell.displayhook.prompt_count  # execution_count, less 1 from IPython 9 on
                if count != _COUNT and ns.get(f"_{_COUNT}") is self._shown[-1]:
                    ns[f"_{count}"] = ns.pop(f"_{_COUNT}")
                ns["_oh"][count] = self._shown[-1]
        return self._ipython

    def display(self, value: Any) -> None:
        """IPython's display hook, but for printing: ``_``, ``__``, ``___`` move along (unless the learner assigned
        one, or ``_`` is a builtin, as gettext makes it) and ``_1`` is the value."""
        ns = self.user_ns
        if "_" in builtins.__dict__ and "_" in ns and ns["_"] is self._unders[0]:
            del ns["_"]
        if value is None:
            return
        update = all(ns[u] is mine for u, mine in zip(("_", "__", "___"), self._unders, strict=True) if u in ns)
        self._unders = [value, *self._unders[:2]]
        if "_" not in builtins.__dict__ and update:
            ns.update(zip(("_", "__", "___"), self._unders, strict=True))
        ns[f"_{_COUNT}"] = value
        self._shown[:] = [value]


def ipython_shell(module: types.ModuleType | None = None) -> Any:
    """IPython's ``InteractiveShell`` (over ``module``'s namespace, if given), as the worker runs cells in it: no
    history, no colours, plain tracebacks, and no event loop to hook for ``%matplotlib``."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class GradingShell(InteractiveShell):  # type: ignore[misc,unused-ignore]  # IPython 8 is untyped here
        def enable_gui(self, gui: Any = None) -> None:
            """No event loop to hook: ``%matplotlib inline`` and friends just select a backend, as in Jupyter."""

    config = Config()
    config.HistoryManager.enabled = False
    config.InteractiveShell.colors = "nocolor"  # IPython 9 spells it in lower case; 8 ignores case
    config.InteractiveShell.xmode = "Plain"
    shell = GradingShell.instance(config=config, user_module=module)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), JUPYTER_RECURSION_LIMIT))  # IPython 9 no longer raises it
    return shell


class _CachingCompiler(codeop.Compile):
    """IPython's ``CachingCompiler`` as far as a plain cell needs it: ``from __future__`` flags kept from cell to
    cell (``codeop.Compile``), and each cell's source registered under the name IPython gives it."""

    def cache(self, source: str, number: int = 0) -> str:
        name = f"<ipython-input-{number}-{hashlib.sha1(source.encode('utf-8')).hexdigest()[:12]}>"
        linecache.cache[name] = (len(source), None, [line + "\n" for line in source.splitlines()], name)
        return name


def run_cell(shell: Any, source: str) -> BaseException | None:
    """Run ``source`` in ``shell`` (a :class:`PlainShell`, or IPython's); the exception it raised (its traceback
    printed), or None."""
    if isinstance(shell, PlainShell):
        if shell.built is not None:
            return run_cell(shell.built, source)
        tree = _parsed(source)
        if tree is None and not ipython_syntax(source):
            return _syntax_error(shell, source)  # the learner's slip, not IPython syntax: no need to build IPython
        codes = None if tree is None or needs_ipython(tree) else _compiled_tree(shell, source, tree)
        if codes is None:
            return run_cell(shell.ipython(), source)
        return _run_plain(shell, codes)
    codes = _compiled(shell, source)
    if codes is None:
        try:
            result = shell.run_cell(source, store_history=False)
        except ValueError as err:  # Python 3.10's compile refuses a NUL byte so, and IPython 8 lets it out: the
            refused = SyntaxError(str(err))  # cell's syntax error, as 3.11.7 raises (the notebook goes on)
            traceback.print_exception(SyntaxError, refused, None)
            return refused
        return result.error_before_exec or result.error_in_exec  # type: ignore[no-any-return]
    shell.events.trigger("pre_execute")
    try:
        with shell.builtin_trap, shell.display_trap:
            for code in codes:
                exec(code, shell.user_global_ns, shell.user_ns)
    except SystemExit as err:
        shell.showtraceback(exception_only=True)
        return err
    except BaseException as err:  # as run_cell: anything the cell raises is the cell's error
        shell.showtraceback(running_compiled_code=True)
        return err
    finally:
        shell.events.trigger("post_execute")  # e.g. a plotting backend closing the cell's figures
    return None


def needs_ipython(tree: ast.AST) -> bool:
    """Whether a cell's code names (as a variable, anywhere in it) something only IPython defines, or imports
    IPython (``IPython.get_ipython()`` is the kernel's shell in Jupyter, and None where no shell was built): then a
    :class:`PlainShell` builds IPython's shell to run it. An attribute of that name (``sys.exit``) is not one."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and (node.id in IPYTHON_NAMES or _IPYTHON_NAME.fullmatch(node.id) is not None):
            return True
        if isinstance(node, ast.Import) and any(_is_ipython(alias.name) for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and _is_ipython(node.module or ""):
            return True
    return False


def is_ipython_name(name: str) -> bool:
    """Whether ``name`` is one IPython defines or rebinds as cells run (``_``, ``_1``, ``In``, ``display`` ...)."""
    return name == "_" or name in IPYTHON_NAMES or _IPYTHON_NAME.fullmatch(name) is not None


def _is_ipython(module: str) -> bool:
    return module == "IPython" or module.startswith("IPython.")


def _compiled(shell: Any, source: str) -> list[CodeType] | None:
    """The cell as code objects (its last bare expression apart, to be displayed), or None if IPython must run it."""
    tree = _parsed(source)
    return None if tree is None else _compiled_tree(shell, source, tree)


#: What parsing or compiling a cell may raise besides a syntax error: a cell nested past the recursion limit
#: (``1 + 1 + ... + 1``), or too large; IPython's own run then tells it as the cell's error.
_NOT_COMPILED = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


def _parsed(source: str) -> ast.Module | None:
    """The cell's syntax tree, or None if IPython must run it."""
    try:
        return ast.parse(source)
    except _NOT_COMPILED:  # IPython syntax, or source Python refuses: IPython decides
        return None


def _compiled_tree(shell: Any, source: str, tree: ast.Module) -> list[CodeType] | None:
    filename = shell.compile.cache(source, shell.execution_count)  # the name run_cell would give it
    body, last = tree.body, []
    if body and isinstance(body[-1], ast.Expr) and not _quiet(source):
        body, last = body[:-1], body[-1:]
    try:
        codes = [shell.compile(ast.Module(body=body, type_ignores=[]), filename, "exec")]
        if last:
            codes.append(shell.compile(ast.Interactive(body=last), filename, "single"))
    except _NOT_COMPILED:  # parsed but not compilable as plain Python (top-level ``await``)
        return None
    return codes


def _quiet(source: str) -> bool:
    """Whether the cell's last token (comments and blank lines aside) is ``;``: then Jupyter shows no value and
    sets no ``_`` (IPython's ``DisplayHook.semicolon_at_end_of_expression``; its own check reads the last cell of a
    history the grader does not keep, so such a cell is not left to it)."""
    if ";" not in source:
        return False
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    skipped = (tokenize.ENDMARKER, tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.DEDENT, tokenize.INDENT)
    last = next((token for token in reversed(tokens) if token.type not in skipped), None)
    return last is not None and last.type == tokenize.OP and last.string == ";"


#: How IPython syntax begins a line (a magic, a shell command, help, an autocall, a pasted prompt) or follows ``=``.
_IPYTHON_LINE = re.compile(r"\s*(?:[%!?,;/]|>>>|\.\.\.|In \[|Out\[)|.*=\s*[%!]|.*\?\s*$")


def ipython_syntax(source: str) -> bool:
    """Whether a cell that is not plain Python may be IPython syntax that IPython's transforms would make run: a
    line as :data:`_IPYTHON_LINE` says, a first line indented (IPython dedents the cell), or ``await``. If not, the
    cell's syntax error is the learner's, and it is the same in IPython (see :func:`_syntax_error`)."""
    lines = [line for line in source.splitlines() if line.strip()]
    if not lines or lines[0][:1].isspace() or "await" in source or "\0" in source:
        return True
    return any(_IPYTHON_LINE.match(line) for line in lines)


def runs_nothing(source: str) -> bool:
    """Whether a cell is the learner's syntax error, which runs nothing in a plain shell or IPython's: it does not
    parse as Python, holds no IPython syntax, and does not parse with its leading blank lines dropped either (as
    :func:`_syntax_error` drops them, lines of form feeds or U+2028 included), unless a future import of an earlier
    cell changes what parses, which the caller asks about."""
    if ipython_syntax(source):
        return False
    try:
        ast.parse("".join(_without_leading_blank_lines(source)))
    except (SyntaxError, ValueError):
        return True
    except (RecursionError, MemoryError):
        return False
    return False


def _without_leading_blank_lines(source: str) -> list[str]:
    lines = source.splitlines(keepends=True)
    while lines and (not lines[0] or lines[0].isspace()):
        lines.pop(0)
    return lines


def _syntax_error(shell: PlainShell, source: str) -> BaseException | None:
    """The error IPython's ``run_cell`` gives a cell that is not valid Python and holds no IPython syntax: it drops
    the cell's leading blank lines, ends it with a newline, names it, and parses it with its compiler's flags."""
    lines = _without_leading_blank_lines(source)
    cell = "".join(lines) if lines else source
    cell = cell if cell.endswith("\n") else cell + "\n"
    name = shell.compile.cache(cell, shell.execution_count)
    try:
        compile(cell, name, "exec", shell.compile.flags | ast.PyCF_ONLY_AST, True)
    except Exception as err:  # as IPython's run_cell: a syntax error, or one of _NOT_COMPILED, is the cell's error
        traceback.print_exception(type(err), err, None)
        return err
    return run_cell(shell.ipython(), source)  # it parses once named: let IPython run it


def _run_plain(shell: PlainShell, codes: list[CodeType]) -> BaseException | None:
    hook = sys.displayhook
    sys.displayhook = shell.display
    try:
        for code in codes:
            exec(code, shell.user_ns)
    except BaseException as err:  # as run_cell: anything the cell raises is the cell's error
        if isinstance(err, SystemExit):
            traceback.print_exception(type(err), err, None)
        else:
            traceback.print_exception(type(err), err, err.__traceback__)
        return err
    finally:
        sys.displayhook = hook
    return None
