"""Matplotlib charts with real titles, axes, legends and tick labels.

Realistic chart furniture matters: the transforms that make items unanswerable mask or
perturb exactly these elements (titles, legends, tick labels, data labels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes

from .raster import figure, figure_png

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def _style_axes(ax: Axes, title: str, xlabel: str, ylabel: str) -> None:
    ax.set_title(title, pad=12)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="y", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)


def grouped_bar(
    title: str,
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    xlabel: str,
    ylabel: str,
    size: tuple[int, int] = (640, 480),
    value_labels: bool = False,
    value_format: str = "{:,.0f}",
) -> bytes:
    """Bars grouped by category, one colour per series, with a legend."""
    with figure(*size) as fig:
        ax = fig.add_subplot()
        x = np.arange(len(categories))
        width = 0.8 / len(series)
        for i, (name, values) in enumerate(series.items()):
            offset = (i - (len(series) - 1) / 2) * width
            bars = ax.bar(x + offset, values, width, label=name, color=PALETTE[i])
            if value_labels:
                ax.bar_label(
                    bars, labels=[value_format.format(v) for v in values], padding=2, fontsize=8
                )
        ax.set_xticks(x, list(categories))
        _style_axes(ax, title, xlabel, ylabel)
        ax.legend(frameon=False, loc="upper left", ncols=len(series))
        ax.margins(y=0.15)
        fig.tight_layout()
        return figure_png(fig)


def line_chart(
    title: str,
    x: Sequence[int],
    series: Mapping[str, Sequence[float]],
    xlabel: str,
    ylabel: str,
    size: tuple[int, int] = (640, 480),
) -> bytes:
    """One marked line per series; every x value gets a tick so values can be read off."""
    with figure(*size) as fig:
        ax = fig.add_subplot()
        markers = ("o", "s", "^", "D")
        for i, (name, values) in enumerate(series.items()):
            ax.plot(x, values, marker=markers[i], color=PALETTE[i], linewidth=2, label=name)
        ax.set_xticks(list(x))
        _style_axes(ax, title, xlabel, ylabel)
        ax.grid(axis="x", color="#eeeeee", linewidth=0.8)
        ax.legend(frameon=False, loc="upper left")
        fig.tight_layout()
        return figure_png(fig)


def scatter_plot(
    title: str,
    x: Sequence[float],
    y: Sequence[float],
    xlabel: str,
    ylabel: str,
    size: tuple[int, int] = (640, 480),
) -> bytes:
    """A plain scatter with a light grid, the kind used for correlation questions."""
    with figure(*size) as fig:
        ax = fig.add_subplot()
        ax.scatter(x, y, s=36, color=PALETTE[0], edgecolor="white", linewidth=0.6, alpha=0.9)
        _style_axes(ax, title, xlabel, ylabel)
        ax.grid(axis="x", color="#dddddd", linewidth=0.8)
        fig.tight_layout()
        return figure_png(fig)


def pie_chart(
    title: str,
    labels: Sequence[str],
    percentages: Sequence[float],
    size: tuple[int, int] = (640, 480),
) -> bytes:
    """Slices labelled with their names outside and their percentages inside."""
    with figure(*size) as fig:
        ax = fig.add_subplot()
        ax.pie(
            percentages,
            labels=list(labels),
            autopct="%1.0f%%",
            startangle=90,
            counterclock=False,
            colors=PALETTE[: len(labels)],
            pctdistance=0.72,
            wedgeprops={"edgecolor": "white", "linewidth": 1.5},
            textprops={"fontsize": 11},
        )
        ax.set_title(title, pad=14)
        ax.set_aspect("equal")
        fig.tight_layout()
        return figure_png(fig)


def labelled_bars(
    title: str,
    categories: Sequence[str],
    values: Sequence[float],
    ylabel: str,
    color: str,
    ylim: float,
    size: tuple[int, int] = (400, 300),
) -> bytes:
    """A small single-series bar chart with the value printed on every bar."""
    with figure(*size) as fig:
        ax = fig.add_subplot()
        bars = ax.bar(list(categories), values, color=color, width=0.65)
        ax.bar_label(bars, labels=[f"{v:,.0f}" for v in values], padding=2, fontsize=9)
        _style_axes(ax, title, "Month", ylabel)
        ax.set_ylim(0, ylim)
        ax.title.set_fontsize(11)
        fig.tight_layout()
        return figure_png(fig)


def paired_hbars(
    title: str,
    groups: Sequence[str],
    series: Mapping[str, Sequence[float]],
    xlabel: str,
    size: tuple[int, int] = (900, 560),
) -> bytes:
    """Survey-report style horizontal bars, two years per group, each bar labelled in %."""
    with figure(*size) as fig:
        ax = fig.add_subplot()
        y = np.arange(len(groups))
        height = 0.8 / len(series)
        for i, (name, values) in enumerate(series.items()):
            offset = (i - (len(series) - 1) / 2) * height
            bars = ax.barh(y + offset, values, height, label=name, color=PALETTE[i])
            ax.bar_label(bars, labels=[f"{v:.0f}%" for v in values], padding=3, fontsize=10)
        ax.set_yticks(y, list(groups))
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_title(title, pad=12)
        ax.set_xlabel(xlabel)
        ax.spines[["top", "right"]].set_visible(False)
        ax.grid(axis="x", color="#dddddd", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.legend(frameon=False, loc="lower right")
        fig.tight_layout()
        return figure_png(fig)
