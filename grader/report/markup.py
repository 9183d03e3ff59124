"""The little Markdown feedback sentences use, rendered in HTML pages: `code` and **bold**.

Feedback and hints are written with Markdown's inline code (``generate(next_token, [1, 2], 3)``); shown
literally in an HTML page the backticks are noise. The text is escaped first (:func:`grader.text.for_html`),
then only backtick and double-star spans become tags, so a learner's words inside them stay text.
"""

from __future__ import annotations

import re

from grader.text import for_html

_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*")


def inline_html(text: str) -> str:
    """``text`` as HTML: escaped, with `code` spans as <code> and **bold** as <strong>."""
    return _BOLD.sub(r"<strong>\1</strong>", _CODE.sub(r"<code>\1</code>", for_html(text)))
