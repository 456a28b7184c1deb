"""Hand-written inline SVG and a self-contained HTML page, for the calibration and weekly
reports. No plotting library: the pages must open anywhere with no network and no scripts.

Every piece of text placed in markup goes through :func:`esc`: claim text and source IDs are
untrusted input.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ChartPoint", "ChartSeries", "confusion_svg", "esc", "html_page", "line_chart_svg"]

_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem;color:#222;
max-width:1100px}
h1{font-size:1.6rem}h2{font-size:1.3rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;
margin-top:2rem}h3{font-size:1.1rem}
table{border-collapse:collapse;margin:.5rem 0 1rem}th,td{border:1px solid #ccc;
padding:.25rem .5rem;text-align:left;vertical-align:top;font-size:.9rem;
overflow-wrap:anywhere}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.risk{color:#b00020;font-weight:600}.muted{color:#666;font-size:.85rem}
.charts{display:flex;flex-wrap:wrap;gap:1rem}code{background:#f5f5f5;padding:0 .2rem}
.up{color:#1b7f1b}.down{color:#b00020}
"""


def esc(value: object) -> str:
    """HTML-escape any value for text or attribute positions."""
    return html.escape(str(value), quote=True)


def html_page(title: str, body: str) -> str:
    """A complete, self-contained HTML document (inline CSS, no scripts, no fetches)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{_CSS}</style></head>\n<body>\n{body}\n"
        "</body></html>\n"
    )


def confusion_svg(
    matrix: Sequence[Sequence[int]],
    labels: Sequence[str],
    *,
    title: str = "",
    risky: tuple[int, int] | None = None,
) -> str:
    """A heat-map of a square confusion matrix (rows: people, columns: judge).

    Each cell shows its count and its share of the row; ``risky`` (row, column) gets a red
    outline, for the unsupported->supported cell.
    """
    k = len(labels)
    cell, left, top = 90, 110, 70
    width, height = left + cell * k + 20, top + cell * k + 20
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(title or "confusion")}">',
        f'<text x="{left + cell * k / 2}" y="16" text-anchor="middle" font-size="13" '
        f'font-weight="600">{esc(title)}</text>',
        f'<text x="{left + cell * k / 2}" y="36" text-anchor="middle" font-size="12">'
        "judge label</text>",
        f'<text x="14" y="{top + cell * k / 2}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 14 {top + cell * k / 2})">human label</text>',
    ]
    for j, label in enumerate(labels):
        parts.append(
            f'<text x="{left + cell * j + cell / 2}" y="{top - 10}" '
            f'text-anchor="middle" font-size="11">{esc(label)}</text>'
        )
    for i, label in enumerate(labels):
        row_total = sum(matrix[i])
        parts.append(
            f'<text x="{left - 6}" y="{top + cell * i + cell / 2 + 4}" '
            f'text-anchor="end" font-size="11">{esc(label)}</text>'
        )
        for j in range(k):
            count = matrix[i][j]
            share = count / row_total if row_total else 0.0
            shade = int(255 - 190 * share)
            fill = f"rgb({shade},{shade},255)" if i == j else f"rgb(255,{shade},{shade})"
            x, y = left + cell * j, top + cell * i
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" '
                f'fill="{fill}" stroke="#999"/>'
            )
            if risky == (i, j):
                parts.append(
                    f'<rect x="{x + 2}" y="{y + 2}" width="{cell - 4}" '
                    f'height="{cell - 4}" fill="none" stroke="#b00020" '
                    'stroke-width="3"/>'
                )
            parts.append(
                f'<text x="{x + cell / 2}" y="{y + cell / 2}" text-anchor="middle" '
                f'font-size="16" font-weight="600">{count}</text>'
            )
            parts.append(
                f'<text x="{x + cell / 2}" y="{y + cell / 2 + 18}" '
                f'text-anchor="middle" font-size="11">{share:.0%} of row</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class ChartPoint:
    """One x position of a series: a label, a value (None for a gap) and its interval."""

    x: str
    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0


@dataclass(frozen=True, slots=True)
class ChartSeries:
    """A named line of points sharing the chart's x positions."""

    name: str
    points: Sequence[ChartPoint]


def line_chart_svg(
    series: Sequence[ChartSeries], *, title: str, width: int = 520, height: int = 240
) -> str:
    """Lines on a fixed 0..1 y axis with shaded 95% intervals and a legend.

    X positions are the union of the series' x labels in first-seen order.
    """
    xs: list[str] = []
    for line in series:
        for point in line.points:
            if point.x not in xs:
                xs.append(point.x)
    left, right, top, bottom = 44, 12, 28, 46
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(index: int) -> float:
        return left + (plot_w * (index + 0.5) / len(xs) if xs else 0)

    def py(value: float) -> float:
        return top + plot_h * (1 - min(max(value, 0.0), 1.0))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(title)}">',
        f'<text x="{width / 2}" y="16" text-anchor="middle" font-size="13" '
        f'font-weight="600">{esc(title)}</text>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" '
        'stroke="#ccc"/>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = py(tick)
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4e4e4"/>'
        )
        parts.append(
            f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" '
            f'font-size="10">{tick:.2f}</text>'
        )
    step = max(1, len(xs) // 8)
    for index, x in enumerate(xs):
        if index % step == 0:
            parts.append(
                f'<text x="{px(index):.1f}" y="{top + plot_h + 14}" '
                f'text-anchor="middle" font-size="10">{esc(x[-5:])}</text>'
            )
    if not any(p.value is not None for line in series for p in line.points):
        parts.append(
            f'<text x="{left + plot_w / 2}" y="{top + plot_h / 2}" '
            'text-anchor="middle" font-size="12" fill="#888">no data</text>'
        )
    for number, line in enumerate(series):
        colour = _PALETTE[number % len(_PALETTE)]
        known = [(xs.index(p.x), p) for p in line.points if p.value is not None]
        band_top = [(i, p.high) for i, p in known if p.high is not None and p.low is not None]
        band_low = [(i, p.low) for i, p in known if p.high is not None and p.low is not None]
        if len(band_top) > 1:
            path = " ".join(f"{px(i):.1f},{py(v):.1f}" for i, v in band_top if v is not None)
            back = " ".join(
                f"{px(i):.1f},{py(v):.1f}" for i, v in reversed(band_low) if v is not None
            )
            parts.append(
                f'<polygon points="{path} {back}" fill="{colour}" '
                'fill-opacity="0.15" stroke="none"/>'
            )
        for i, p in known:
            if p.low is not None and p.high is not None:
                parts.append(
                    f'<line x1="{px(i):.1f}" x2="{px(i):.1f}" y1="{py(p.low):.1f}" '
                    f'y2="{py(p.high):.1f}" stroke="{colour}" stroke-opacity="0.5"/>'
                )
        if len(known) > 1:
            path = " ".join(f"{px(i):.1f},{py(p.value or 0.0):.1f}" for i, p in known)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        for i, p in known:
            parts.append(
                f'<circle cx="{px(i):.1f}" cy="{py(p.value or 0.0):.1f}" r="3" '
                f'fill="{colour}"><title>{esc(line.name)} {esc(p.x)}: '
                f"{(p.value or 0.0):.3f} (n={p.n})</title></circle>"
            )
        lx = left + 4 + number * 130
        parts.append(f'<rect x="{lx}" y="{height - 16}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{lx + 14}" y="{height - 7}" font-size="11">{esc(line.name)}</text>')
    parts.append("</svg>")
    return "".join(parts)
