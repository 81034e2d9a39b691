"""The picture of a flight (:meth:`librunway.Flight.plot`; needs matplotlib).

Left, the route as a map (equirectangular around the route's middle latitude, so that a metre
is a metre both ways), each step coloured by the engine's pace at it (a colour bar in min/km;
paces slower than 1.5x the median are drawn at that bound, so standing still does not wash out
the scale), start and finish marked. Right, three panels over distance: elevation (smoothed
altitude), pace (fast up), heart rate; a dotted line at every lap's end with its number.
"""

from __future__ import annotations

import math
import os
from typing import Any, Optional, Union

from .errors import _install_hint

__all__ = ["plot_flight"]


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError("Flight.plot() needs matplotlib: "
                          + _install_hint("plot", "matplotlib")) from e
    if "matplotlib.pyplot" not in __import__("sys").modules:
        matplotlib.use("Agg")          # no display needed; a host that chose a backend keeps it
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection
    return matplotlib, plt, LineCollection


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _fmt_pace(value: float, _pos: Any = None) -> str:
    if not _finite(value) or value <= 0:
        return ""
    m, s = divmod(round(value * 60), 60)
    return f"{m}:{s:02d}"


def plot_flight(flight: Any, path: Union[str, "os.PathLike[str]", None] = None, *,
                title: Optional[str] = None, dpi: int = 110) -> Any:
    matplotlib, plt, LineCollection = _matplotlib()
    from matplotlib.ticker import FuncFormatter

    rows = flight.route_rows()
    if len(rows) < 2:
        raise ValueError("nothing to draw: the flight has fewer than 2 route points")
    lat0 = sum(r["lat"] for r in rows) / len(rows)
    lon0 = sum(r["lon"] for r in rows) / len(rows)
    k = 6371008.8 * math.pi / 180
    xs = [(r["lon"] - lon0) * k * math.cos(math.radians(lat0)) for r in rows]
    ys = [(r["lat"] - lat0) * k for r in rows]
    paces = [r["pace_min_per_km"] if _finite(r["pace_min_per_km"]) else math.nan for r in rows]
    known = sorted(p for p in paces if _finite(p) and p > 0)
    median = known[len(known) // 2] if known else math.nan
    lo = known[max(0, len(known) // 50)] if known else 0.0      # 2nd percentile: the fast end
    hi = median * 1.5 if known else 1.0

    fig = plt.figure(figsize=(13, 7.5), dpi=dpi)
    grid = fig.add_gridspec(3, 2, width_ratios=(1.0, 1.25), hspace=0.12, wspace=0.18)
    ax_map = fig.add_subplot(grid[:, 0])
    ax_ele = fig.add_subplot(grid[0, 1])
    ax_pace = fig.add_subplot(grid[1, 1], sharex=ax_ele)
    ax_hr = fig.add_subplot(grid[2, 1], sharex=ax_ele)

    # The map: one segment per step, coloured by the pace at its end; a pause is a gap.
    segments, colours = [], []
    for i in range(1, len(rows)):
        if rows[i]["segment"] != rows[i - 1]["segment"]:
            continue
        segments.append([(xs[i - 1], ys[i - 1]), (xs[i], ys[i])])
        colours.append(min(max(paces[i], lo), hi) if _finite(paces[i]) else hi)
    cmap = matplotlib.colormaps["viridis_r"]
    lines = LineCollection(segments, cmap=cmap, linewidths=2.4, capstyle="round")
    lines.set_array(colours)
    lines.set_clim(lo, hi if hi > lo else lo + 1)
    ax_map.add_collection(lines)
    ax_map.plot(xs[0], ys[0], "o", color="#1a9850", ms=12, mec="white", zorder=3, label="start")
    ax_map.plot(xs[-1], ys[-1], "s", color="#d73027", ms=6, mec="white", zorder=4, label="finish")
    ax_map.set_aspect("equal")
    ax_map.set_anchor("C")
    ax_map.autoscale()
    ax_map.margins(0.05)
    ax_map.set_xlabel("east (m)")
    ax_map.set_ylabel("north (m)")
    ax_map.legend(loc="best", fontsize=8, framealpha=0.8)
    bar = fig.colorbar(lines, ax=ax_map, orientation="horizontal", pad=0.08, fraction=0.05)
    bar.set_label("pace (min/km)")
    bar.formatter = FuncFormatter(_fmt_pace)
    bar.update_ticks()

    # Profiles over distance (km).
    dist = [r["distance_m"] / 1000 if _finite(r["distance_m"]) else math.nan for r in rows]
    alt = [r["altitude_m"] if _finite(r["altitude_m"]) else
           (r["alt_m"] if _finite(r["alt_m"]) else math.nan) for r in rows]
    hr = [r["hr_bpm"] if _finite(r["hr_bpm"]) else math.nan for r in rows]
    # Pace: the slow end clipped to 1.5x the colour scale's (standing still would flatten the
    # rest); the line stays continuous, slow stretches run along the bottom.
    slow = hi * 1.5 if known else 1.0
    fast = min(known[0], lo) * 0.95 if known else 0.0
    shown_pace = [min(p, slow) if _finite(p) else math.nan for p in paces]

    # Elevation: the axis spans the 1st to 99th percentile (a receiver's junk first altitude
    # must not squash the profile), the fill below the line down to the axis.
    known_alt = sorted(a for a in alt if _finite(a))
    if known_alt:
        bottom = known_alt[len(known_alt) // 100]
        top = known_alt[-1 - len(known_alt) // 100]
        pad = max(2.0, (top - bottom) * 0.08)
        ax_ele.set_ylim(bottom - pad, top + pad)
        ax_ele.fill_between(dist, alt, bottom - pad, color="#8c6d31", alpha=0.35, linewidth=0)
    ax_ele.plot(dist, alt, color="#8c6d31", lw=1.2)
    ax_ele.set_ylabel("elevation (m)")
    if len(flight.laps) > 1:
        every_k = math.ceil(len(flight.laps) / 25)
        ax_ele.set_title(f"laps: {len(flight.laps)}" +
                         (f" (a line every {every_k} laps)" if every_k > 1 else ""),
                         fontsize=8, loc="right", color="grey", pad=10)
    ax_pace.plot(dist, shown_pace, color="#2c7fb8", lw=1.0)
    if known:
        ax_pace.set_ylim(slow * 1.02, fast)         # faster is up
    else:
        ax_pace.invert_yaxis()
    ax_pace.yaxis.set_major_formatter(FuncFormatter(_fmt_pace))
    ax_pace.set_ylabel("pace (min/km)")
    if any(_finite(h) for h in hr):
        ax_hr.plot(dist, hr, color="#d7301f", lw=1.0)
    else:
        ax_hr.text(0.5, 0.5, "no heart rate in this recording", transform=ax_hr.transAxes,
                   ha="center", va="center", color="grey")
    ax_hr.set_ylabel("heart rate (bpm)")
    ax_hr.set_xlabel("distance (km)")
    for ax in (ax_ele, ax_pace):
        ax.tick_params(labelbottom=False)

    # Laps: a dotted line at each lap's end, numbered in the top panel; with many laps (a
    # long ride's 1 km laps) every k-th, so that the lines stay lines.
    laps = flight.laps
    every = max(1, math.ceil(len(laps) / 25))
    ends, at = [], 0.0
    for lap in laps:
        start = at
        at += float(lap.get("distance_m") or 0.0)
        ends.append((start, at, lap.get("index")))
    from matplotlib.transforms import blended_transform_factory
    above = blended_transform_factory(ax_ele.transData, ax_ele.transAxes)
    for n, (start, end, index) in enumerate(ends):
        if n + 1 < len(ends) and (n + 1) % every == 0:
            for ax in (ax_ele, ax_pace, ax_hr):
                ax.axvline(end / 1000, color="grey", lw=0.7, ls=":", zorder=0)
        if len(ends) > 1 and (every == 1 or n % every == 0):
            ax_ele.text(((start + end) / 2 if every == 1 else start) / 1000, 1.01,
                        str(index), ha="center" if every == 1 else "left", va="bottom",
                        fontsize=7, color="grey", transform=above)
    for ax in (ax_ele, ax_pace, ax_hr):
        ax.grid(True, alpha=0.25)

    s = flight.summary
    parts = [flight.name and os.path.basename(flight.name) or flight.format.upper(),
             f"{flight.activity}" if flight.activity else None]
    if _finite(s.get("distance_m")):
        parts.append(f"{s['distance_m'] / 1000:.2f} km")
    if _finite(s.get("elapsed_s")):
        h, rem = divmod(round(s["elapsed_s"]), 3600)
        parts.append(f"{h}:{rem // 60:02d}:{rem % 60:02d}")
    if _finite(s.get("avg_pace_min_per_km")):
        parts.append(f"{_fmt_pace(s['avg_pace_min_per_km'])} /km")
    if _finite(s.get("gain_m")):
        parts.append(f"+{s['gain_m']:.0f} m")
    if _finite(s.get("avg_hr_bpm")):
        parts.append(f"avg HR {s['avg_hr_bpm']:.0f}")
    fig.suptitle(title or "  ·  ".join(p for p in parts if p), fontsize=12)
    if path is not None:
        fig.savefig(os.fspath(path), bbox_inches="tight")
        plt.close(fig)
    return fig
