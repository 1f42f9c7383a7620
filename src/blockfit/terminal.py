"""Text bound for the terminal: control characters from files and servers are shown escaped, never obeyed.

An AWR instance name, a Prometheus label or a catalog shape name is data someone else wrote; printed raw, an ESC
sequence in it sets the terminal's title, clears the screen or moves the cursor, and a bidi override reorders what
the reader sees. `safe` shows each such character as a Python escape (`\\x1b`, `\\u202e`, `\\n`), so a value is one
line and what it says is visible. `cell` wraps a value for rich so its brackets are never read as markup.

Imports nothing heavy: the one-line error printer uses it before (or without) rich.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

# C0 controls (newline, return and tab too: inside one value they split or hide it), DEL, C1 controls, and the
# bidi embeddings, overrides and isolates.
UNSAFE = frozenset([*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
_ESCAPES = {code: repr(chr(code))[1:-1] if code < 0x100 else f"\\u{code:04x}" for code in UNSAFE}
_ESCAPES_KEEP_NEWLINE = {code: text for code, text in _ESCAPES.items() if code != ord("\n")}

# JSON escapes C0 inside strings itself; DEL, C1 and bidi it passes raw (valid JSON, but obeyed by a terminal). Outside
# strings JSON has none of them, so replacing them everywhere keeps the document and its values the same.
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in UNSAFE if code >= 0x7F}

# characters that end or hide a line, or drive a terminal: control (Cc), format (Cf: bidi overrides), line and
# paragraph separators (Zl, Zp)
HIDDEN_CATEGORIES = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs"))


def safe(value: object) -> str:
    """`value` as text with every control character and bidi override shown escaped (ESC as `\\x1b`)."""
    return str(value).translate(_ESCAPES)


def safe_lines(text: str) -> str:
    """Like `safe`, but newlines stay: for a whole message whose lines blockfit itself made."""
    return text.translate(_ESCAPES_KEEP_NEWLINE)


def one_line(message: str) -> str:
    """An error line: like `safe`, and every other character Python calls unprintable (a line separator, a
    no-break space) escaped too, so what the user must retype is unambiguous."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)


def _visible(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(value: object) -> str:
    """The text with every control, format and line-separator character shown as \\xNN / \\uNNNN: one line (what a
    plan read back carries, and the escapers of `emit/escape.py` start from)."""
    text = str(value)
    if text.isprintable():  # none of them (isprintable is False for every hidden category): the common case
        return text
    return "".join(_visible(c) if unicodedata.category(c) in HIDDEN_CATEGORIES else c for c in text)


def json_safe(text: str) -> str:
    """A JSON document with DEL, C1 controls and bidi overrides written as \\u escapes (same document)."""
    return text.translate(_JSON_ESCAPES)


def is_safe(text: str) -> bool:
    """True if `text` holds nothing `safe` would escape."""
    return not any(ord(c) in UNSAFE for c in text)


def cell(value: object, style: str = "") -> Text:
    """A value from a file as a rich Text: escaped, and its `[...]` shown as written, not read as markup."""
    from rich.text import Text
    return Text(safe(value), style=style)


def markup(value: object) -> str:
    """A value from a file to put inside one of blockfit's own markup strings (`f"[bold]{markup(name)}[/]"`)."""
    from rich.markup import escape
    return escape(safe(value))
