"""Two small charts as inline SVG strings: no JavaScript, no CDN, so the summary page works offline.

Every label is escaped; numbers are formatted here.
"""

from __future__ import annotations

from collections.abc import Sequence

from grader.text import for_html

_BAR = "#4c78a8"


def histogram_svg(fractions: Sequence[float], bins: int = 10, width: int = 560, height: int = 220) -> str:
    """How many learners scored in each tenth of the maximum (0-10%, ..., 90-100%); 100% falls in the last bin."""
    counts = [0] * bins
    for f in fractions:
        counts[min(int(max(f, 0.0) * bins), bins - 1)] += 1
    top = max(counts) or 1
    left, bottom, plot_h = 30, 40, height - 60
    slot = (width - left - 10) / bins
    parts = [_svg_open(width, height, "Histogram of scores as a percentage of the maximum")]
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x = left + i * slot
        y = height - bottom - h
        parts.append(f'<rect x="{x + 2:.1f}" y="{y:.1f}" width="{slot - 4:.1f}" height="{h:.1f}" fill="{_BAR}"/>')
        if count:
            parts.append(_text(x + slot / 2, y - 4, str(count), "middle"))
        parts.append(
            _text(x + slot / 2, height - bottom + 14, f"{i * 100 // bins}-{(i + 1) * 100 // bins}%", "middle", 10)
        )
    parts.append(f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="#888"/>')
    parts.append(_text(width / 2, height - 8, "score (% of maximum)", "middle", 11))
    return "".join(parts) + "</svg>"


def bars_svg(items: Sequence[tuple[str, float]], width: int = 560, row: int = 22) -> str:
    """One horizontal bar per item, its value a fraction in [0, 1] shown as a percentage."""
    label_w, right = 210, 50
    height = row * len(items) + 10
    scale = width - label_w - right
    parts = [_svg_open(width, height, "Pass rate per question")]
    for i, (label, value) in enumerate(items):
        y = 5 + i * row
        w = scale * min(max(value, 0.0), 1.0)
        parts.append(_text(label_w - 6, y + row / 2 + 4, label, "end"))
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{scale}" height="{row - 6}" fill="#eee"/>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row - 6}" fill="{_BAR}"/>')
        parts.append(_text(label_w + scale + 6, y + row / 2 + 4, f"{value:.0%}", "start"))
    return "".join(parts) + "</svg>"


def _svg_open(width: int, height: int, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{for_html(title)}"><title>{for_html(title)}</title>'
    )


def _text(x: float, y: float, text: str, anchor: str, size: int = 12) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="#222">{for_html(text)}</text>'
    )
