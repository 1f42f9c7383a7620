"""The `blockfit` executable: signals handled from the first line, before the CLI's imports (a second or more).

Ctrl-C, SIGTERM or SIGHUP while typer, pydantic and rich load would otherwise end in a traceback."""

from __future__ import annotations

import sys


def main() -> None:
    from blockfit import files

    files.install_signal_handlers()
    try:
        from blockfit.cli import main as cli_main
    except KeyboardInterrupt as exc:
        name = f" by {exc.args[0]}" if isinstance(exc, files.Interrupted) else ""
        print(f"blockfit: error: interrupted{name}; no output written", file=sys.stderr)
        sys.exit(130)
    cli_main()


if __name__ == "__main__":
    main()
