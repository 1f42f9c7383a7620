"""Suite-wide setup.

SIGINT as a terminal gives it: a job started in the background by a non-interactive shell (`cmd &`, as a CI
runner may start the suite) begins with SIGINT ignored, and an ignored signal stays ignored across fork and exec.
Every test that presses Ctrl-C on a child (calibrate, bench, lab) would then see it do nothing: the child runs
to completion and exits 0 (seen in a fresh-clone run started with `setsid nohup … &`). Installing Python's
handler here makes the children start with SIGINT at its default (exec resets a handled signal), and pytest
itself stoppable by Ctrl-C.
"""

from __future__ import annotations

import signal

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
