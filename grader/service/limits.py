"""What keeps one learner, or a flood of them, from making everyone else wait: a per-learner rate of checks and
a bounded grading queue. Both answer at once (429, 503, with when to retry) instead of holding the request:
a request that waits holds memory and a connection, and a learner told "in 8 s" retries in 8 s.

Both are called on the event loop only (one thread), so they need no lock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class RateLimit:
    """A token bucket per learner: ``burst`` checks at once, then one every ``per_seconds``."""

    burst: int
    per_seconds: float
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)

    def take(self, learner: str) -> float:
        """0 when ``learner`` may check now (and one check is counted), else the seconds until they may."""
        now = self.clock()
        tokens, then = self._buckets.get(learner, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) / self.per_seconds)
        if tokens >= 1:
            self._buckets[learner] = (tokens - 1, now)
            return 0.0
        self._buckets[learner] = (tokens, now)
        return math.ceil((1 - tokens) * self.per_seconds)


@dataclass
class Queue:
    """At most ``capacity`` checks in the service at once, graded or waiting for a grading process; the next
    one is turned away (503) rather than queued in memory without bound."""

    capacity: int
    retry_after: float
    held: int = 0

    def enter(self) -> bool:
        if self.held >= self.capacity:
            return False
        self.held += 1
        return True

    def leave(self) -> None:
        self.held -= 1
