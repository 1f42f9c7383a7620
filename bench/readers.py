"""Benchmark: the history readers of this tree against the base commit's (issue 36 parts 4 and 5), side by side.

Per million CSV rows and per MB of AWR HTML: CPU time (user + system of the child, which a busy machine inflates
less than wall time) and peak memory (the child's max RSS from wait4; for the CSV, less the same child's on a
10-row CSV, per million rows: what the rows add). Each reader runs in its own child process (`derive_targets`
on the file: read + targets), this tree's `src` or the base's (`git archive BASE src`, on PYTHONPATH) in turn,
on the same files. Printed: each figure for both and the ratio this tree / base. The AWR inputs are a real
report (the public samples in ../shared/samples/awr, when present) and a file of unclosed `<table` tags, the
case that was quadratic.

    .venv/bin/python -m bench.readers [--base e18fba3] [--rows 300000] [--tables 20000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT.parent / "shared" / "samples" / "awr"
CHILD = ("import sys; from pathlib import Path; from blockfit.errors import InputError\n"
         "from blockfit.history import derive_targets\n"
         "try:\n    derive_targets(Path(sys.argv[1]))\nexcept InputError as e:\n    print(e, file=sys.stderr)\n")


def write_csv(path: Path, rows: int) -> None:
    lines = ["timestamp,read IOPS,write IOPS,read MB/s,write MB/s"]
    for k in range(rows):
        d, s = divmod(k, 86400)
        lines.append(f"2024-01-{d % 28 + 1:02d}T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}Z,"
                     f"{(k * 7919) % 5000}.5,{(k * 104729) % 3000}.25,{k % 97 * 1.5},{k % 89 * 2.25}")
    path.write_text("\n".join(lines) + "\n")


def write_unclosed_tables(path: Path, tables: int) -> None:
    path.write_text("<html><body>WORKLOAD REPOSITORY report for\n" + '<table summary="x" ' * tables
                    + "\nEnd of Report\n</body></html>\n")


def measure(src: Path, file: Path, timeout: float) -> tuple[float, float]:
    """(CPU seconds, peak RSS MB) of one child reading FILE with blockfit imported from SRC."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(file)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        proc.kill()
        raise
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="e18fba3", help="the revision to compare with (default: issue 36's base)")
    ap.add_argument("--rows", type=int, default=300_000, help="CSV rows (the base holds ~2 KB a row)")
    ap.add_argument("--tables", type=int, default=20_000, help="unclosed <table tags (the base is quadratic)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-readers-") as tmp:
        work = Path(tmp)
        base = work / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "src"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        trees = {"this": ROOT / "src", "base": base / "src"}
        tiny, csv, unclosed = work / "tiny.csv", work / "rows.csv", work / "tables.html"
        write_csv(tiny, 10)
        write_csv(csv, args.rows)
        write_unclosed_tables(unclosed, args.tables)
        cases = [("CSV, per million rows", csv, 1e6 / args.rows, True)]
        real = sorted(SAMPLES.glob("*.html")) if SAMPLES.is_dir() else []
        for report in real:
            cases.append((f"AWR {report.name}, per MB", report, 1e6 / report.stat().st_size, False))
        cases.append((f"{args.tables:,} unclosed <table, per MB", unclosed, 1e6 / unclosed.stat().st_size, False))
        floor = {name: measure(src, tiny, 120)[1] for name, src in trees.items()}
        print(f"{'input':<48} {'':>9} {'CPU s':>9} {'peak MB':>9}")
        print("  CPU s per million rows or per MB; peak MB: per million CSV rows above a 10-row CSV's peak, or the "
              "AWR child's whole peak")
        for label, file, scale, per_row in cases:
            got = {name: measure(src, file, 3600) for name, src in trees.items()}
            fig = {name: (cpu * scale, (rss - floor[name]) * scale if per_row else rss)
                   for name, (cpu, rss) in got.items()}
            for name in trees:
                print(f"{label:<48} {name:>9} {fig[name][0]:>9.2f} {fig[name][1]:>9.0f}")
            ratio = [f"{fig['this'][i] / fig['base'][i]:>9.3f}" if fig["base"][i] > 0 else f"{'n/a':>9}"
                     for i in (0, 1)]
            print(f"{'':<48} {'this/base':>9} {ratio[0]} {ratio[1]}")


if __name__ == "__main__":
    main()
