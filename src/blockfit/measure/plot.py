"""PNG of a Measurement's latency-versus-IOPS curve (small I/O), with the bound and the chosen point marked."""

from __future__ import annotations

import io

from blockfit.schema.measurement import Measurement


def plot_curve(m: Measurement) -> bytes:
    """The PNG's bytes (the caller writes them atomically, files.write_atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    small = sorted((p for p in m.curve if p.phase == "small"), key=lambda p: p.outstanding)
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    if small:
        iops = [p.iops for p in small]
        ax.plot(iops, [p.percentile_ms for p in small], "o-", label=f"p{m.percentile:g} latency")
        ax.plot(iops, [p.p99_ms for p in small], ".:", label="p99 latency")
        ax.plot(iops, [p.avg_ms for p in small], "s--", label="average latency", markersize=4)
        for p in small:
            ax.annotate(str(p.outstanding), (p.iops, p.percentile_ms), textcoords="offset points", xytext=(4, 4),
                        fontsize=7)
    ax.axhline(m.max_latency_ms, color="red", linewidth=1, label=f"bound {m.max_latency_ms:g} ms")
    if m.max_iops:
        ax.plot([m.max_iops], [m.latency_ms], "r*", markersize=14, label=f"max IOPS at bound: {m.max_iops:,.0f}")
    ax.set_yscale("log")
    ax.set_xlabel(f"IOPS ({m.small_io // 1024} KiB random {'mixed' if m.write_pct else 'reads'})")
    ax.set_ylabel("latency, ms (log scale)")
    ax.set_title(f"blockfit calibrate: {', '.join(m.targets)}" + (" (partial)" if m.partial else ""), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.text(0.01, 0.01, f"{m.fio_version} {m.engine} direct={int(m.direct)} kernel {m.kernel}; "
             f"numbers at points = outstanding I/Os; max MB/s ({m.large_io // 1024} KiB) = {m.max_mbps:,.1f}",
             fontsize=7, alpha=0.7)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()
