"""Connect a batch to an existing Dask cluster, whose workers then grade the notebooks.

Dask is optional and imported only here. Its worker processes are daemonic, so they cannot start process
pools of their own; they do not need to: each Dask worker process is one grading process (see
:mod:`grader.batch.work`), and learner code runs in plain subprocesses, which daemons may start. Workers
need this package installed and the lessons at the same paths as the machine running ``grade batch``.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager

from grader.errors import UsageError

CONNECT_TIMEOUT = "15s"


@contextmanager
def dask_executor(address: str) -> Iterator[Executor]:
    """A ``concurrent.futures`` executor backed by the Dask scheduler at ``address``."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--dask needs dask.distributed: python3 -m pip install 'dask[distributed]'") from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as err:
        raise UsageError(f"Cannot reach the Dask scheduler at {address} ({err}).") from None
    try:
        yield client.get_executor(pure=False)  # type: ignore[no-untyped-call]  # pure=False: never merge two look-alike tasks
    finally:
        client.close()  # type: ignore[no-untyped-call]
