"""Errors the CLI turns into one-line messages and exit codes.

InputError   → exit 2: the user gave something we cannot use (names the input and what was expected).
InfeasibleError → exit 3: the input is valid but no layout can meet it (plan).
EnvironmentProblem → exit 4: the machine lacks something (fio missing, not root, no loop device).
LabFailed    → exit 5: the lab's guest run failed (a step in the guest, or the guest itself).
Ctrl-C, SIGTERM and SIGHUP exit 130 with one line (lifecycle.Interrupted, the CLI's handler); stdout that cannot take
the output (a full disk) exits 4, a closed pipe 141 without a message.
"""

from __future__ import annotations


class BlockfitError(Exception):
    exit_code = 1


class InputError(BlockfitError, ValueError):
    """Bad user input. The message names the input and what was expected."""

    exit_code = 2


class ValueProblem(InputError):
    """A value library code cannot use, named by the value alone ("'4.5Q': expected SIZE+GROWTH").

    The library does not know which option carried the value; the CLI does, and names it once, where it hands the
    value over (`cli.common.supplied_by`): a renamed option is then renamed in every message. Without a CLI around
    it (a library caller), the message still names the value and what was expected."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(f"{option} {message}" if option else message)
        self.bare = message
        self.option = option


class InfeasibleError(BlockfitError):
    """Valid input, but no layout meets the targets. Carries a renderable explanation."""

    exit_code = 3

    def __init__(self, message: str, details: object | None = None) -> None:
        super().__init__(message)
        self.details = details


class EnvironmentProblem(BlockfitError):
    """Something the machine lacks: a tool, a privilege, a kernel feature."""

    exit_code = 4


class LabFailed(BlockfitError):
    """The lab's guest run failed; the message names the step and where the console log was kept."""

    exit_code = 5
