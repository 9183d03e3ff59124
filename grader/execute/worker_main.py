"""The program that runs inside the learner's worker process (the untrusted side).

It receives the notebook's code cells over the channel, runs them top to bottom as IPython would (plain Python
by itself, and magics, ``!commands`` and ``?`` in IPython's shell, built for the first cell that needs it:
:mod:`grader.execute.cells`), reports which cells raised, then answers calls of the learner's functions until
the grader hangs up. Nothing here is trusted: the grader validates every
byte that comes back.

When it starts as root (inside bubblewrap, see :mod:`grader.execute.sandbox`) it first becomes the owner of
the folder the grader made for it, the unprivileged uid the grader gave it, before it reads anything or runs any
cell; in a sandbox it then works in a folder of its own in the sandbox's ``/tmp`` (:func:`enter_own_folder`).
"""

from __future__ import annotations

import builtins
import os
import shutil
import sys
import tempfile
from typing import Any

from grader.execute import protocol as wire
from grader.execute.calls import ResultIdentity, changed_arguments, snapshot, stood_in
from grader.execute.cells import PlainShell, install_graded_helpers, run_cell
from grader.execute.channel import Endpoint, Fields, all_scalars


class NotDefined(Exception):
    """The grader asked for a name the notebook does not define (its type name crosses the channel)."""


NO_INPUT = "input() gets no answer while grading: give your variables values in code instead."


def _no_input(prompt: object = "") -> str:
    raise EOFError(NO_INPUT)


def make_shell() -> PlainShell:
    """The learner's namespace, ready for the first cell: IPython's shell is built only if a cell needs it."""
    return PlainShell()


class Worker:
    """Holds the learner's namespace and answers the grader's requests against it."""

    def __init__(self, rfd: int, wfd: int) -> None:
        self.endpoint = Endpoint(rfd, wfd, self.handle, max_bytes=wire.MAX_RUN_BYTES)
        self.shell: Any = None
        self.results = ResultIdentity()

    @property
    def namespace(self) -> dict[str, Any]:
        return self.shell.user_ns  # type: ignore[no-any-return]

    def run_cells(self, cells: list[wire.CellSource]) -> list[wire.CellRaised]:
        errors: list[wire.CellRaised] = []
        install_graded_helpers(self.namespace)
        for cell in cells:
            self.endpoint.send(wire.CellStarted(t=wire.CELL, index=cell["index"]))
            err = run_cell(self.shell, cell["source"])
            if err is not None:
                ename = "MemoryError" if isinstance(err, MemoryError) else type(err).__name__  # numpy's too
                errors.append(wire.CellRaised(index=cell["index"], ename=ename, evalue=_short(err)))
            sys.stdout.flush()
            sys.stderr.flush()
        return errors

    def handle(self, message: dict[str, Any]) -> Any:
        kind = message[wire.TYPE]
        if kind == wire.GET:
            return self._lookup(message["name"])
        if kind == wire.CALL:
            return self._call(message)
        raise ValueError(f"unknown request {kind!r}")

    def _lookup(self, name: str) -> Any:
        if name not in self.namespace:
            raise NotDefined(name)
        return self.namespace[name]

    def _call(self, message: dict[str, Any]) -> Any:
        fn = self._lookup(message["name"])
        if not callable(fn):
            raise TypeError(f"{message['name']} is not a function (it is a {type(fn).__name__})")
        args = self.endpoint.decode(message.get("args") or [])
        kwargs = self.endpoint.decode(message.get("kwargs") or {})
        swaps = self.endpoint.decode(message.get("swap") or {})  # the whole map, encoded like args and kwargs
        if not swaps and all_scalars(args) and all_scalars(kwargs.values()):
            # most calls: nothing to stand in, and arguments no call can change in place
            result, changed = fn(*args, **kwargs), []
        else:
            before = snapshot(args), snapshot(kwargs)
            with stood_in(self.namespace, swaps):
                result = fn(*args, **kwargs)
            changed = changed_arguments(args, kwargs, *before)
        same_as = self.results.same_as(result, args, kwargs)
        return Fields(wire.CallReply(value=self.endpoint.encode(result), changed=changed, same_as=same_as))


def _short(err: BaseException) -> str:
    try:
        return str(err)[:300]
    except Exception:
        return "<unprintable>"


#: Where a worker in a sandbox makes its working folder: the sandbox's own ``/tmp``, a tmpfs of ``Limits.tmpfs_mb``.
#: What a learner writes is then bounded, where the folder the grader made for it, on the grader's disk, bounded
#: only each file (a hostile round wrote 7.8 GB there in 20 s). It goes with the sandbox (a spawned worker's) or
#: with the zygote's sweep of ``/tmp`` (a forked one's), and an honest worker deletes it as it exits.
LEARNER_FOLDERS = "/tmp"


def enter_own_folder() -> str:
    """As the learner's uid (after :func:`leave_root`): make a working folder of its own in :data:`LEARNER_FOLDERS`,
    move into it and make it ``HOME`` and ``TMPDIR``; returns its path."""
    home = tempfile.mkdtemp(prefix="learner-", dir=LEARNER_FOLDERS)
    os.chdir(home)
    os.environ.update(HOME=home, TMPDIR=home, MPLCONFIGDIR=f"{home}/.matplotlib", IPYTHONDIR=f"{home}/.ipython")
    tempfile.tempdir = None  # found again from TMPDIR (a forked worker inherits the zygote's, cached)
    return home


def leave_root() -> None:
    """As root, become the owner of the working directory (and drop every group) if the grader chose one."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    owner = os.stat(".")
    if owner.st_uid == 0:
        return  # the process level as root with no user to drop to: the report says so
    os.setgroups([])
    os.setresgid(owner.st_gid, owner.st_gid, owner.st_gid)
    os.setresuid(owner.st_uid, owner.st_uid, owner.st_uid)


def serve(rfd: int, wfd: int, shell: Any, own_folder: str | None = None) -> None:
    """Say ready, run the cells the grader sends, answer its calls until it hangs up, then exit (deleting
    ``own_folder``, the working folder :func:`enter_own_folder` made, so that an honest learner leaves nothing)."""
    builtins.input = _no_input
    sys.path.insert(0, os.getcwd())  # as a Jupyter kernel started in the notebook's folder: its own modules import
    worker = Worker(rfd, wfd)
    worker.shell = shell
    worker.endpoint.send(wire.Ready(t=wire.READY))  # the grader starts the notebook's clock now
    start = worker.endpoint.receive()
    errors = worker.run_cells(start.get("cells", []))
    worker.endpoint.send(wire.executed(errors))
    answer_calls(worker)
    sys.stdout.flush()
    if own_folder is not None:
        shutil.rmtree(own_folder, ignore_errors=True)  # what cannot be deleted here, the zygote's sweep deletes
    os._exit(0)


def answer_calls(worker: Worker) -> None:
    """Answer the grader's calls against the learner's namespace until it hangs up."""
    while True:
        try:
            message = worker.endpoint.receive()
        except BaseException:
            return
        worker.endpoint.answer(message)


def main(own_folder: bool = False) -> None:
    """A spawned worker: ``own_folder`` (in a sandbox) works in a folder of its own in :data:`LEARNER_FOLDERS`."""
    leave_root()
    home = enter_own_folder() if own_folder else None
    rfd, wfd = int(sys.argv[-2]), int(sys.argv[-1])  # the channel's pipe ends, passed by the grader
    del sys.argv[1:]
    serve(rfd, wfd, make_shell(), own_folder=home)


if __name__ == "__main__":
    main()
