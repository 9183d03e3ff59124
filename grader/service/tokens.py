"""Learner tokens: who a request to the course service is from, proved without a password or a user database.

A token is :func:`grader.service.protocol.token_text` of the learner, the lesson and a MAC of both keyed by the
course secret (:func:`grader.params.course_secret`). The release computes it (``grade build --roster R --service
URL``, which has the secret anyway to draw the learners' numbers) and writes it into that learner's notebook; the
service recomputes the MAC and compares. Without the secret nobody can make a token for another learner, and a
token is good for its one lesson only.
"""

from __future__ import annotations

import hashlib
import hmac

from grader.service.protocol import MAC_HEX, SEPARATOR, TOKEN_CONTEXT, token_parts, token_text


def _mac(secret: bytes, learner: str, lesson: str) -> str:
    message = f"{TOKEN_CONTEXT}|{lesson}|{learner}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:MAC_HEX]


def issue(secret: bytes, learner: str, lesson: str) -> str:
    """The token of ``learner`` for ``lesson``; :class:`ValueError` for a part that could not be read back."""
    if not learner or not lesson or SEPARATOR in learner or SEPARATOR in lesson:
        raise ValueError(f"a token's learner and lesson must be non-empty and free of {SEPARATOR!r}")
    return token_text(learner, lesson, _mac(secret, learner, lesson))


def verify(secret: bytes, token: str, lesson: str) -> str | None:
    """The learner ``token`` was issued to, when it is a genuine token for ``lesson``; else None (never raises)."""
    parts = token_parts(token)
    if parts is None:
        return None
    learner, their_lesson, mac = parts
    if their_lesson != lesson or not hmac.compare_digest(mac, _mac(secret, learner, their_lesson)):
        return None
    return learner
