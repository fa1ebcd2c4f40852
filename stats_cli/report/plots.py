"""Figures drawn with matplotlib into PNG bytes, so the HTML report can embed them as base64."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # headless: the CLI never opens a window
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402

from .model import Figure, Series  # noqa: E402


def figure_png(figure: Figure, *, dpi: int = 110) -> bytes:
    """Draw one :class:`Figure` (grouped bars with CI whiskers, or lines with CI bands)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=dpi)
    try:
        if figure.kind == "bars":
            _bars(ax, figure.series)
        else:
            _lines(ax, figure.series)
        for (x0, y0), (x1, y1) in zip(figure.reference, figure.reference[1:]):
            ax.plot([x0, x1], [y0, y1], linestyle=":", color="grey", linewidth=1)
        ax.set_title(figure.title, fontsize=10)
        ax.set_xlabel(figure.xlabel)
        ax.set_ylabel(figure.ylabel)
        ax.grid(axis="y", alpha=0.3)
        if figure.kind == "line" and _whole_numbers(figure.series):  # "2.5 members" is not a thing
            xs = sorted({int(x) for s in figure.series for x in s.x if x is not None})
            if len(xs) <= 20:
                ax.set_xticks(xs)
                ax.set_xlim(xs[0] - 0.5, xs[-1] + 0.5)
            else:
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if len(figure.series) > 1:
            ax.legend(fontsize=8)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)


def _whole_numbers(series: tuple[Series, ...]) -> bool:
    xs = [x for s in series for x in s.x if x is not None]
    return bool(xs) and all(isinstance(x, (int, float)) and float(x).is_integer() for x in xs)


def _num(values) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def _bars(ax, series: tuple[Series, ...]) -> None:
    labels = [str(x) for x in series[0].x] if series else []
    pos = np.arange(len(labels))
    width = 0.8 / max(len(series), 1)
    for i, s in enumerate(series):
        y = _num(s.y)
        yerr = None
        if s.low is not None and s.high is not None:
            yerr = np.vstack([np.clip(y - _num(s.low), 0, None), np.clip(_num(s.high) - y, 0, None)])
        ax.bar(pos + (i - (len(series) - 1) / 2) * width, np.nan_to_num(y), width, yerr=yerr,
               capsize=3, label=s.name)
    ax.set_xticks(pos, labels, fontsize=8)


def _lines(ax, series: tuple[Series, ...]) -> None:
    for s in series:
        x = _num(s.x)
        y = _num(s.y)
        ax.plot(x, y, marker="o", label=s.name)
        if s.low is not None and s.high is not None:
            ax.fill_between(x, _num(s.low), _num(s.high), alpha=0.2)
