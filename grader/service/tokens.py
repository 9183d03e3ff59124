"""The service's tokens: which learner and lesson a request speaks for, and proof the course issued it.

A token is ``<learner>~<lesson>~<mac>`` (:mod:`grader.service.protocol`); the mac is an HMAC-SHA256 keyed by the
course secret, which only the service holds, so nobody can forge another learner's token or move theirs to
another lesson. Verification compares in constant time (:func:`hmac.compare_digest`), so timing tells an
attacker nothing about how much of a forged mac was right, and every failure is the same ``None``: the caller
answers one 401 for a missing, malformed, forged or unknown learner's token alike.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Collection
from dataclasses import dataclass

from grader.service.protocol import ANY_LESSON, MAC_HEX, SEPARATOR, TA_LEARNER, TOKEN_CONTEXT, token_parts, token_text


@dataclass(frozen=True)
class Identity:
    """Whom a verified token speaks for."""

    learner: str
    lesson: str

    @property
    def is_ta(self) -> bool:
        return self.learner == TA_LEARNER and self.lesson == ANY_LESSON


def mac(secret: bytes, learner: str, lesson: str) -> str:
    message = "|".join((TOKEN_CONTEXT, lesson, learner)).encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:MAC_HEX]


def issue(secret: bytes, learner: str, lesson: str) -> str:
    """The token of ``learner`` for ``lesson`` (what ``grade serve token`` and a release with ``--service`` write);
    :class:`ValueError` for a part that could not be read back from the token."""
    if not learner or not lesson or SEPARATOR in learner or SEPARATOR in lesson:
        raise ValueError(f"a token's learner and lesson must be non-empty and free of {SEPARATOR!r}")
    return token_text(learner, lesson, mac(secret, learner, lesson))


def ta_token(secret: bytes) -> str:
    """A teaching assistant's token: the live view of every lesson."""
    return issue(secret, TA_LEARNER, ANY_LESSON)


def verify(secret: bytes, token: str, learners: Collection[str] | None = None) -> Identity | None:
    """Whom ``token`` speaks for, or None when it is malformed, forged, or (with a roster, ``learners``) names
    nobody on it. The mac is compared before the roster is asked, and both always, so no answer is faster for
    a learner who exists."""
    parts = token_parts(token)
    if parts is None:
        return None
    learner, lesson, given = parts
    genuine = hmac.compare_digest(mac(secret, learner, lesson).encode(), given.encode())
    enrolled = learners is None or learner in learners or learner == TA_LEARNER
    if not (genuine and enrolled):
        return None
    identity = Identity(learner, lesson)
    if (learner == TA_LEARNER or lesson == ANY_LESSON) and not identity.is_ta:
        return None  # the reserved names only ever travel together
    return identity
