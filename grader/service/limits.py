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
    one is turned away (503) rather than queued in memory without bound. And at most ``per_learner`` of them
    one learner's: the rate bounds how often a learner asks, not how long each check holds a grading process
    (up to a notebook's whole budget), so without it one learner's slow checks, sent within their rate, would
    fill the queue and turn everyone else away."""

    capacity: int
    retry_after: float
    per_learner: int = 1
    held: int = 0
    _mine: dict[str, int] = field(default_factory=dict)

    def enter(self, learner: str) -> str | None:
        """None when ``learner``'s check may go in (and it is counted); else ``"yours"`` (they have
        ``per_learner`` checks in already) or ``"full"`` (the queue is)."""
        if self._mine.get(learner, 0) >= self.per_learner:
            return "yours"
        if self.held >= self.capacity:
            return "full"
        self.held += 1
        self._mine[learner] = self._mine.get(learner, 0) + 1
        return None

    def leave(self, learner: str) -> None:
        self.held -= 1
        left = self._mine.get(learner, 0) - 1
        if left > 0:
            self._mine[learner] = left
        else:
            self._mine.pop(learner, None)
