"""One feedback sentence, two readers: what a learner may read and what the teaching assistant reads.

A hidden test writes each sentence once and marks the part that states the answer (an expected value, the
right letter) with :func:`withheld`. Scoring turns the marked sentence into the learner's view (the marked
part left out when the question's ``reveal`` policy is ``never``, see lesson.toml) and the teaching
assistant's view (everything kept), so both come from the same words and cannot drift apart. The marks are
private-use characters that nothing a learner's code returns can carry into a sentence: ``show`` escapes
them, and raised messages are cleaned with :func:`staff_view`.
"""

from __future__ import annotations

import re

__all__ = ["learner_view", "staff_view", "withheld"]

_OPEN, _CLOSE = "\ue000", "\ue001"
_SPAN = re.compile(f"{_OPEN}[^{_OPEN}{_CLOSE}]*{_CLOSE}")


def withheld(text: str) -> str:
    """``text`` (which states the answer) marked so that it reaches the learner only if the lesson reveals it."""
    return f"{_OPEN}{staff_view(text)}{_CLOSE}"


def staff_view(message: str) -> str:
    """The message with every withheld span kept and the marks removed: for the teaching assistant."""
    return message.replace(_OPEN, "").replace(_CLOSE, "")


def learner_view(message: str) -> str:
    """The message with every withheld span left out: what a learner reads when answers are not revealed."""
    return staff_view(_SPAN.sub("", message))
