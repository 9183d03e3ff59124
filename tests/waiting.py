"""Wait for a state instead of sleeping a fixed time: tests stay fast on an idle machine and correct on a busy one."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float, what: str, every: float = 0.05) -> T:
    """Poll ``predicate`` until it returns something truthy, and return that; fail saying ``what`` did not happen.

    ``what`` completes "... did not happen within N s", e.g. ``"the killed daemon's lock was released"``.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        time.sleep(every)
