"""The worker program of the real-kernel mode (``grade --kernel``): the notebook runs in a Jupyter kernel.

The default worker (:mod:`grader.execute.worker_main`) runs cells in an IPython shell of its own, which is
fast and behaves as Jupyter does for everything a lesson notebook does. This program is for when that is in
doubt: inside the very same sandbox and limits, it starts a real ipykernel and has nbclient execute the
cells in it, exactly as Jupyter, nbgrader and otter do (display machinery, ``input()`` refused the kernel's
way, magics, top-level ``await``). It speaks the worker's side of the channel unchanged: ``ready`` once the
kernel is up, a ``cell`` notice per cell, ``executed`` with each cell's error. Then it hands the channel to
the kernel itself, which answers the hidden tests' calls against its own namespace
(:func:`answer_in_kernel`), so learner functions run in the kernel's main thread, where they were defined.

Nothing here is trusted: it runs as the learner, and the grader checks every byte that comes back.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from typing import Any

from grader.execute import protocol as wire
from grader.execute.cells import GRADED_HELPERS
from grader.execute.channel import Endpoint
from grader.execute.worker_main import Worker, answer_calls, leave_root

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _not_a_call(message: dict[str, Any]) -> Any:
    raise ValueError("the notebook is still running")


def _show(outputs: list[Any]) -> None:
    """Print a cell's outputs, as the default worker's shell prints them, into the output the grader keeps."""
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            (sys.stderr if out.get("name") == "stderr" else sys.stdout).write(out.get("text", ""))
        elif kind == "error":
            sys.stdout.write(_ANSI.sub("", "\n".join(out.get("traceback", []))) + "\n")
        elif kind in ("execute_result", "display_data"):
            text = out.get("data", {}).get("text/plain")
            if text:
                sys.stdout.write(f"{text}\n")
    sys.stdout.flush()
    sys.stderr.flush()


def _error(index: int, outputs: list[Any]) -> wire.CellRaised | None:
    error = next((o for o in outputs if o.get("output_type") == "error"), None)
    if error is None:
        return None
    ename = str(error.get("ename", "Error"))
    return wire.CellRaised(
        index=index,
        ename="MemoryError" if ename.endswith("MemoryError") else ename,
        evalue=str(error.get("evalue", ""))[:300],
    )


async def _run(endpoint: Endpoint, rfd: int, wfd: int) -> int | None:
    """Start the kernel, run the cells, hand the channel over; the kernel's exit status, or None if it still runs."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    nb = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    client = NotebookClient(
        nb, timeout=None, allow_errors=True, kernel_name="python3", resources={"metadata": {"path": os.getcwd()}}
    )
    async with client.async_setup_kernel(pass_fds=(rfd, wfd), cleanup_kc=False):
        if client.kc is None or client.km is None:  # the worker ends: the grader reports it as crashed
            raise RuntimeError("the kernel did not start: nbclient gave no kernel client or manager")
        await client.async_wait_for_reply(await _maybe_await(client.kc.kernel_info()))
        endpoint.send(wire.Ready(t=wire.READY))  # the grader starts the notebook's clock now
        start = endpoint.receive()
        errors = []
        helpers = await _maybe_await(
            client.kc.execute(GRADED_HELPERS, silent=True, store_history=False, allow_stdin=False)
        )
        await client.async_wait_for_reply(helpers)
        try:
            for cell in start.get("cells", []):
                endpoint.send(wire.CellStarted(t=wire.CELL, index=cell["index"]))
                node = nbformat.v4.new_code_cell(cell["source"])  # type: ignore[no-untyped-call]
                nb.cells.append(node)
                await client.async_execute_cell(node, len(nb.cells) - 1, execution_count=len(nb.cells))
                _show(node.outputs)
                error = _error(cell["index"], node.outputs)
                if error is not None:
                    errors.append(error)
        except DeadKernelError:
            process = _kernel_process(client)
            return None if process is None else process.wait()
        endpoint.send(wire.executed(errors))
        code = (
            f"__import__('sys').path.append({_PACKAGE_PARENT!r}); "
            f"__import__('grader.execute.kernel_main', fromlist=['_']).answer_in_kernel({rfd}, {wfd})"
        )
        await _maybe_await(client.kc.execute(code, silent=True, store_history=False, allow_stdin=False))
        for fd in (rfd, wfd):
            os.close(fd)  # the kernel holds the channel now: when it dies, the grader sees the channel close
        process = _kernel_process(client)
        if process is None:
            return None
        return await asyncio.to_thread(process.wait)  # until the grader ends the sandbox, or the kernel dies


async def _maybe_await(value: Any) -> Any:
    return await value if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future) else value


def _kernel_process(client: Any) -> Any:
    """The kernel's ``Popen`` (jupyter_client's local provisioner keeps it), or None."""
    return getattr(getattr(client.km, "provisioner", None), "process", None)


def answer_in_kernel(rfd: int, wfd: int) -> None:
    """In the kernel: answer the grader's calls against the kernel's namespace until it says bye."""
    from IPython.core.getipython import get_ipython

    if sys.path and sys.path[-1] == _PACKAGE_PARENT:
        sys.path.pop()  # put back as the learner's code left it
    worker = Worker(rfd, wfd)
    worker.shell = get_ipython()  # type: ignore[no-untyped-call,unused-ignore]  # typed in IPython 9, not 8
    answer_calls(worker)


def _exit_as(status: int | None) -> None:
    """Exit as the kernel did, so the grader tells the learner what happened (a signal is re-raised on us)."""
    sys.stdout.flush()
    sys.stderr.flush()
    if status is not None and status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(0 if status is None else status)


def main() -> None:
    leave_root()
    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")  # jupyter_core's own paths, without its warning about them
    rfd, wfd = int(sys.argv[-2]), int(sys.argv[-1])  # the channel's pipe ends, passed by the grader
    del sys.argv[1:]
    _exit_as(asyncio.run(_run(Endpoint(rfd, wfd, _not_a_call, max_bytes=wire.MAX_RUN_BYTES), rfd, wfd)))


if __name__ == "__main__":
    main()
