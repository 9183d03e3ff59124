"""No deadline in ``grader/execute`` but the TimeBudget's, or a wait of upkeep named once in ``config.py``.

Every clock a learner's code runs against is :class:`grader.config.TimeBudget`'s (derived from its ``Limits``); the
waits that bound the machine's own upkeep (a killed process reaped, a zygote's answer, the sandbox's probe) are
named in ``config.py`` with why. A number written as a timeout in ``grader/execute``, or a ``Limits`` clock read
there instead of its budget's, would be a deadline that does not move with the limit it belongs to.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

EXECUTE = REPO / "grader" / "execute"
#: Calls whose argument is how long to wait.
_WAITS = {"wait", "join", "settimeout", "select", "sleep", "wait_for"}
#: ``Limits``' clocks: read through ``Limits.budget`` only (TimeBudget).
_CLOCKS = {"timeout", "call_timeout", "calls_timeout", "boot_timeout"}
#: Numbers that may stand in a wait, and why each is not a deadline.
_ALLOWED = {
    ("worker.py", "sleep", 0.01): "how often to look for an exit status within EXIT_STATUS_SECONDS, not how long",
    ("zygote_main.py", "sleep", 0.001): "how often a sweep scans /proc while no process is dying, not how long",
    ("zygote_main.py", "sleep", 0.005): "how often, within SETTLE_SECONDS, the zygote looks whether the kernel let go",
}


def _number(node: ast.AST | None) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _named_limits(node: ast.AST) -> bool:
    """``limits``, ``self.limits``, ``self._limits``: a ``Limits`` by the names grader/execute gives one."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.lstrip("_") == "limits"


def deadlines_outside_the_budget(path: Path) -> list[str]:
    """What in ``path`` is a deadline neither the TimeBudget's nor named in config.py, each as ``file:line what``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            numbers = [_number(k.value) for k in node.keywords if k.arg == "timeout"]
            if called in _WAITS:
                numbers += [_number(a) for a in node.args[-1:]]
            for number in numbers:
                if number is not None and (path.name, called, number) not in _ALLOWED:
                    found.append(f"{where} {called}(... {number:g})")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = [*node.args.posonlyargs, *node.args.args]
            defaults = list(zip(args[len(args) - len(node.args.defaults) :], node.args.defaults, strict=True))
            defaults += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True) if d]
            for arg, default in defaults:
                if _number(default) is not None and any(w in arg.arg for w in ("timeout", "seconds", "wait")):
                    found.append(f"{where} {node.name}({arg.arg}={_number(default):g})")
        elif isinstance(node, ast.Assign) and _number(node.value) is not None:
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id.endswith(("_SECONDS", "_TIMEOUT")):
                    found.append(f"{where} {target.id} = {_number(node.value):g}")
        elif isinstance(node, ast.Attribute) and node.attr in _CLOCKS and _named_limits(node.value):
            found.append(f"{where} {ast.unparse(node)} (read its budget's clock: limits.budget)")
    return found


def test_no_deadline_in_execute_outside_the_time_budget() -> None:
    found = [line for path in sorted(EXECUTE.glob("*.py")) for line in deadlines_outside_the_budget(path)]
    assert not found, "deadlines not derived from the TimeBudget nor named in config.py:\n" + "\n".join(found)


def test_the_scan_finds_each_kind_of_deadline(tmp_path: Path) -> None:
    """The scan can fail: each way of writing a deadline of its own is found."""
    code = tmp_path / "worker.py"
    code.write_text(
        "import time\n"
        "WAIT_SECONDS = 5.0\n"
        "def end(proc, timeout=5.0):\n"
        "    proc.wait(timeout=5)\n"
        "    thread.join(0.5)\n"
        "    time.sleep(2)\n"
        "    return time.monotonic() + self.limits.call_timeout\n"
        "time.sleep(0.01)\n"
    )
    assert [line.split(" ", 1)[0] for line in deadlines_outside_the_budget(code)] == [
        f"worker.py:{n}" for n in (2, 3, 4, 5, 6, 7)
    ]
