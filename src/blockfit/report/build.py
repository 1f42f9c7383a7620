"""Section for `blockfit build` (BuildResult): the generated scripts, collapsed, and the safety checks they make.

Everything shown comes from the result itself: each step's text is the step's `content`, never read from the
paths the result names (a hand-edited result naming /proc/self/environ or /dev/zero would put the environment
on the page or exhaust memory). An older result without `content` renders without the text, saying so. The
safety checks are the build's own list in plain words (BuildResult.safety_checks), never text scraped from
the scripts.
"""

from __future__ import annotations

from blockfit.report import move
from blockfit.report.page import Details, Section
from blockfit.schema import BuildResult
from blockfit.units import fmt_io_size


def summary(b: BuildResult) -> str:
    run = [st for st in b.steps if st.order > 0]
    touching = [st for st in b.steps if st.touches_devices]
    layout = (f"a single device ({b.devices[0]})" if b.members == 1 else
              f"a stripe of {b.members} devices ({', '.join(b.devices)}) with {b.manager}"
              + (f", {fmt_io_size(b.stripe_size)} stripe size" if b.stripe_size else ""))
    text = f"{len(b.steps)} generated files build {layout}"
    if b.filesystem:
        text += f", {b.filesystem} on {b.target_device or 'it'}" + (f" mounted at {b.mount}" if b.mount else "")
    text += (f". run-all.sh runs {len(run)} of them in order; {len(touching)} write to local block devices and "
             "refuse any device that fails the safety checks below. Run 'run-all.sh --dry-run' first: it prints "
             "every command and changes nothing.")
    if b.migrate_from:
        text += f" Data moves from {b.migrate_from} ({b.migrate_method or 'offline'})."
    return text


def section(b: BuildResult, source: str) -> Section:
    s = Section("build", f"Build: {b.manager} on {len(b.devices)} device(s)", source, summary(b))
    missing = 0
    for st in sorted(b.steps, key=lambda st: (st.order == 0, st.order)):
        text = st.content
        if text is None:
            text = "(this build result does not carry the file's text: rerun blockfit build --json to see it here)"
            missing += 1
        order = f"{st.order}. " if st.order else ""
        device = " — writes to devices" if st.touches_devices else ""
        s.details.append(Details(f"{order}{st.path}: {st.description}{device}", text))
    if b.safety_checks:
        s.lists.append(("What the scripts check before they change anything, and what they never change",
                        list(b.safety_checks)))
    elif missing:
        s.notes.append("This build result does not carry its scripts' text or safety checks (it was written by an "
                       "older blockfit); rerun blockfit build --json to see them here.")
    if b.notes:
        s.lists.append(("Notes", list(b.notes)))
    move.extend(s, b.migrations)
    return s
