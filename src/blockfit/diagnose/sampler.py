"""The live sampling loop of `blockfit diagnose`: one capture sample every interval until the duration or Ctrl-C.

What a capture holds, how it is read back and replayed, lives in devices.capture (bench and history read
captures too); this module only paces the samples and records them as they come.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from blockfit import lifecycle
from blockfit.devices.capture import Capture, Sample, load, snapshot, take_sample
from blockfit.errors import ValueProblem
from blockfit.files import StreamFile
from blockfit.inputs import MAX_RESULT_BYTES

# Samples are kept for the diagnosis, and a recording is replayed whole: a run holds at most what a recording may
# hold (`diagnose --replay` reads MAX_RESULT_BYTES), judged from the first sample's size with room for counters
# that grow a digit or two. A longer run is refused before its second sample, not cut short at the end.
SIZE_MARGIN = 1.5


def check_size(first: Sample, interval_s: float, duration_s: float, count: int) -> None:
    """Refuse a run of COUNT samples like FIRST that would not fit in a recording (nor in bounded memory)."""
    each = len(first.model_dump_json()) + 1
    if each * count * SIZE_MARGIN > MAX_RESULT_BYTES:
        most = int(MAX_RESULT_BYTES / (each * SIZE_MARGIN))
        raise ValueProblem(f"{duration_s:g} s every {interval_s:g} s: {count:,} samples of {len(first.lines)} "
                           f"device(s); expected at most {most:,} (a "
                           f"recording holds {MAX_RESULT_BYTES // 2**20} MiB): sample at a longer interval, a "
                           "shorter duration, or fewer --devices")


def _write(fh: StreamFile | None, model: BaseModel) -> None:
    if fh is not None:
        fh.write(model.model_dump_json() + "\n")


def run_live(requested: list[str] | None, interval_s: float, duration_s: float, record: Path | None = None,
             on_sample: Callable[[Capture], None] | None = None) -> Capture:
    """Sample until duration elapses or Ctrl-C (or SIGTERM, SIGHUP); a recording is written to a temp file beside
    it (files.StreamFile) and renamed into place at the end; with fewer than 2 samples, or on a write error,
    it is removed."""
    header = snapshot(requested, interval_s)
    capture = Capture(header=header, samples=[])
    fh = StreamFile(record, "--record") if record else None
    try:
        try:
            with lifecycle.interrupting(signal.SIGTERM):  # without the CLI too, SIGTERM stops like Ctrl-C
                _write(fh, header)
                start = time.monotonic()
                count = int(round(duration_s / interval_s))
                for i in range(count + 1):
                    target = start + i * interval_s
                    delay = target - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                    sample = take_sample(header.selected, time.monotonic() - start)
                    if i == 0:
                        check_size(sample, interval_s, duration_s, count + 1)
                    capture.samples.append(sample)
                    _write(fh, sample)
                    if on_sample is not None:
                        on_sample(capture)
        except KeyboardInterrupt:
            pass  # stop early and diagnose what was sampled
        if fh is not None:
            if len(capture.samples) >= 2:
                fh.commit(check=load)   # read back as --replay reads it, before it replaces anything
            else:
                fh.discard()
    except BaseException:
        if fh is not None:
            fh.discard()
        raise
    return capture
