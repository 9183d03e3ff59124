"""A self-contained HTML page: inline CSS, no scripts, nothing fetched, every text escaped by the caller
(with :func:`grader.text.for_html`).

Feedback pages are opened by learners from a download, so they must render from the file alone.
"""

from __future__ import annotations

from grader.text import for_html

_STYLE = (
    "\n"
    "body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; "
    "padding: 0 1rem; color: #222; }\n"
    "h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }\n"
    "table { border-collapse: collapse; width: 100%; } "
    "th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #ddd; vertical-align: top; }\n"
    "td.num, th.num { text-align: right; white-space: nowrap; }\n"
    ".passed { color: #1a7f37; } .partial { color: #9a6700; } .failed, .missing, .error { color: #cf222e; } "
    ".not-attempted { color: #666; }\n"
    ".note { background: #fff8c5; padding: .5rem .75rem; border-radius: 4px; }\n"
    ".staff { background: #ffebe9; border: 2px solid #cf222e; padding: .5rem .75rem; border-radius: 4px; }\n"
    ".hint { color: #444; font-style: italic; }\n"
    "ul.feedback { margin: .25rem 0; padding-left: 1.2rem; } "
    "code, pre { font-family: ui-monospace, monospace; white-space: pre-wrap; }\n"
)


def html_page(title: str, body: str) -> str:
    """A complete page around ``body`` (already-escaped HTML); ``title`` is escaped here."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{for_html(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
