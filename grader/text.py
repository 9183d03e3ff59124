"""Learner text made safe for every place the grader writes it: the one module every renderer uses.

Exception messages, returned values, file names and notebook metadata are the learner's words, and they
reach a teaching assistant's terminal, HTML and Markdown pages, a spreadsheet and JSON files. Each helper
here turns such text into what its format shows literally:

- :func:`plain`: valid Unicode that encodes to UTF-8 (a lone surrogate, as a byte-level tokenizer demo
  prints, becomes U+FFFD; a well-formed pair becomes its character), control and bidirectional-override
  characters shown as ``\\x1b``-style escapes (no terminal escape sequence, hyperlink or reordered line
  survives), and at most :data:`~grader.config.MAX_TEXT_CHARS` characters;
- :func:`for_html`, :func:`for_markdown`, :func:`for_csv`, :func:`for_json`: :func:`plain`, then escaped for
  that format (no tag, no link, no formula).

The terminal needs no helper of its own: :mod:`grader.report.table` hands rich :func:`plain` text as
``rich.text.Text``, which rich never reads as markup. Standard library only. :func:`plain` is idempotent,
so text cleaned when it was stored (the batch's gradebook) is unchanged when it is rendered again.
"""

from __future__ import annotations

import re
import textwrap
from html import escape
from typing import TypeVar, cast

from grader.config import FEEDBACK_COLUMNS, MAX_TEXT_CHARS

T = TypeVar("T")

# C0 and C1 controls but newline and tab, DEL, and the characters that reorder a line (bidi overrides).
_UNSAFE_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Markdown's inline syntax (code, emphasis, links, raw HTML, entities, strikethrough, tables, math)...
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>&~|#$])")
# ...and what starts a block when it opens a line (lists, quotes, setext headings).
_MARKDOWN_BLOCK_START = re.compile(r"^([-+=])|^(\d+)([.)])")
#: What makes a spreadsheet cell a formula (OWASP's list: =, +, -, @, tab, carriage return).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def plain(text: str, limit: int | None = MAX_TEXT_CHARS) -> str:
    """``text`` as valid UTF-8 with no control characters, at most ``limit`` characters long (None: any)."""
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    text = _UNSAFE_CHARS.sub(_shown, text)
    if limit is None or len(text) <= limit:
        return text
    marker = f" … (cut: {len(text)} characters in all)"
    return text[: max(limit - len(marker), 0)] + marker


def wrapped(text: str, indent: str = "", columns: int | None = FEEDBACK_COLUMNS) -> str:
    """:func:`plain` ``text`` in lines of at most ``columns`` characters, each after ``indent``, broken at spaces
    only: a word (a code span, a number, a URL) longer than a line stays whole on a line of its own, for a
    frontend that breaks a long line anywhere (JupyterLab's output) would cut it mid-word."""
    return textwrap.fill(
        plain(text),
        width=columns or FEEDBACK_COLUMNS,
        initial_indent=indent,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_html(text: str) -> str:
    """HTML text (also safe inside a quoted attribute): every tag and entity shown as written."""
    return escape(plain(text))


def for_markdown(text: str) -> str:
    """One line of Markdown text that a viewer shows as written: no HTML, link, emphasis or list.

    Text between two backticks stays a code span (feedback quotes code that way: `` `answer_sequential` ``),
    shown in code type; a viewer renders a code span's content literally, so nothing in it needs escaping,
    and a backslash there would show. A backtick that pairs with none is escaped like the rest.
    """
    return _with_spans(text, _CODE_SPAN)


def _inline_escaped(text: str) -> str:
    return _MARKDOWN_INLINE.sub(r"\\\1", text)


def _block_start_escaped(line: str) -> str:
    return _MARKDOWN_BLOCK_START.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", line)


def for_markdown_spans(text: str) -> str:
    """Like :func:`for_markdown`, but a feedback sentence's **bold** spans render too (a Gradescope ``md``
    output): a code span shows its content literally, whoever wrote it; everything else is escaped."""
    return _with_spans(text, _FEEDBACK_SPAN)


#: A code span: text between two backticks on one line, not only spaces.
_CODE = r"(`[^`\n]*[^`\s][^`\n]*`)"
_CODE_SPAN = re.compile(_CODE)
#: The spans feedback sentences write in Markdown: `code` and **bold** (see grader/report/markup.py for HTML).
_FEEDBACK_SPAN = re.compile(_CODE + r"|\*\*([^*`\n]+)\*\*")


def _with_spans(text: str, spans: re.Pattern[str]) -> str:
    """``text`` on one line, Markdown-escaped except the spans ``spans`` matches (group 1 kept as it is, group
    2, when the pattern has one, bold)."""
    line = " ".join(plain(text).split())
    out, end = [], 0
    for span in spans.finditer(line):
        out.append(_inline_escaped(line[end : span.start()]))
        out.append(span[1] or f"**{_inline_escaped(span[2])}**")
        end = span.end()
    out.append(_inline_escaped(line[end:]))
    return _block_start_escaped("".join(out))


def for_csv(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: one that would start a formula gets a leading ``'``."""
    cell = plain(text)
    return f"'{cell}" if cell.startswith(FORMULA_STARTS) else cell


def for_json(value: T, limit: int | None = MAX_TEXT_CHARS) -> T:
    """``value`` (a JSON-ready tree) with every string in it, keys too, made :func:`plain`; nothing else changes."""
    if isinstance(value, str):
        return cast(T, plain(value, limit))
    if isinstance(value, dict):
        return cast(T, {plain(k, limit) if isinstance(k, str) else k: for_json(v, limit) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return cast(T, type(value)(for_json(v, limit) for v in value))
    return value


def num(x: float | None) -> str:
    """A score as people write it, to two decimals at most: 2, 2.5, 0.67 (not 0.6667); empty when there is none."""
    if x is None:
        return ""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
