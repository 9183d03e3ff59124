"""Run one notebook cell in the worker's IPython shell, as ``InteractiveShell.run_cell`` would (untrusted side).

Most cells of a lesson notebook are plain Python. For those, IPython's ``run_cell`` does four things that
matter: it compiles the cell with the shell's compiler (which keeps ``from __future__`` imports for later
cells and registers the source, so tracebacks show the learner's lines), runs it in the shell's namespace
with the shell's builtins (``get_ipython``, ``exit``), shows the value of a last bare expression through the
display hook (which also sets ``_``), and turns any exception into a printed traceback and an error. The
rest of its work (transforming IPython syntax, which tokenizes the cell, checking for top-level ``await``,
compiling node by node, history) costs ~0.5 ms a cell, and twice that in a worker just forked from the
zygote: more than running the cells. So :func:`run_cell` does those four things itself for a cell that
compiles as plain Python (and fires the shell's ``pre_execute``/``post_execute`` events, which plotting
backends listen to), and hands anything else (magics, ``!commands``, ``?``, top-level ``await``, an indented
cell, a cell ending in ``;``) to ``run_cell`` unchanged. ``tests/test_cells.py`` runs tricky cells both ways and
requires the same namespace, errors and output.
"""

from __future__ import annotations

import ast
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


def run_cell(shell: Any, source: str) -> BaseException | None:
    """Run ``source`` in ``shell``; the exception it raised (its traceback printed, as IPython does), or None."""
    codes = _compiled(shell, source)
    if codes is None:
        result = shell.run_cell(source, store_history=False)
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


def _compiled(shell: Any, source: str) -> list[CodeType] | None:
    """The cell as code objects (its last bare expression apart, to be displayed), or None if IPython must run it."""
    if source.rstrip().endswith(";"):
        return None  # IPython hides the last value (and does not set ``_``): leave that rule to it
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # IPython syntax, or bytes Python refuses: IPython decides
        return None
    filename = shell.compile.cache(source, shell.execution_count)  # the name run_cell would give it
    body, last = tree.body, []
    if body and isinstance(body[-1], ast.Expr):
        body, last = body[:-1], body[-1:]
    try:
        codes = [shell.compile(ast.Module(body=body, type_ignores=[]), filename, "exec")]
        if last:
            codes.append(shell.compile(ast.Interactive(body=last), filename, "single"))
    except (SyntaxError, ValueError):  # parsed but not compilable as plain Python (top-level ``await``)
        return None
    return codes
