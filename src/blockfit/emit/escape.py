"""One escaper per language a build writes (bash, HCL, SQL for SQL*Plus, Markdown), registered as jinja2 filters.

Every value a template puts into a generated file goes through the escaper of that file's language and position,
even after the plan was re-derived at the edge (documents.read_plan): defense in depth, so a hole upstream does not
become a root shell command. Each escaper holds for any string: the value stays one word, literal, comment or
span of its language. Where a language cannot carry a character (a newline inside a `#` comment or a SQL*Plus
line, a NUL in a bash word), the character is shown as visible text (\\x0a) or the value is refused (ValueError),
never emitted raw.
"""

from __future__ import annotations

import math
import re
import unicodedata

from blockfit.terminal import HIDDEN_CATEGORIES as _HIDDEN
from blockfit.terminal import visible
from blockfit.units import fmt_hours

_SHELL_WORD = re.compile(r"[A-Za-z0-9_@%+=:./-]+", re.ASCII)
_SQL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_$#]*", re.ASCII)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&]|:(?=//))")
# what makes a line a heading, list item, quote or rule when the value starts one
_MD_BLOCK_START = re.compile(r"^(\s*)([-+#](?=[-+#]*(?:\s|\Z))|=|\d{1,9}(?=[.)](?:\s|\Z)))")


# ---- bash


def shell_word(value: object) -> str:
    """One bash word that expands to exactly the value: bare when it is plain ASCII word characters, else single
    quoted (a newline stays inside the quotes; commas are quoted too, which shellcheck reads as a mistake in an
    array). A NUL cannot be in a bash argument: ValueError."""
    text = str(value)
    if "\0" in text:
        raise ValueError("a NUL character cannot be part of a bash word")
    if _SHELL_WORD.fullmatch(text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def shell_words(values: object) -> str:
    """Several bash words, space separated (an array's elements)."""
    return " ".join(shell_word(v) for v in values)  # type: ignore[attr-defined]


def line_comment(value: object) -> str:
    """Text to put after a `#` (bash, HCL) or `--` (SQL) on one line: a newline would end the comment and start
    a command, so every line-ending or control character is shown as visible text."""
    return visible(value)


# ---- HCL (Terraform)


def hcl_string(value: object) -> str:
    """A complete HCL quoted string (quotes included) whose value is exactly the text: backslash, quote and control
    characters escaped, and the template sequences ${ and %{ doubled ($${, %%{) so they stay literal."""
    out = []
    for ch in str(value):
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif unicodedata.category(ch) in _HIDDEN:
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    text = "".join(out)
    text = re.sub(r"\$(?=\{)", "$$", text)
    text = re.sub(r"%(?=\{)", "%%", text)
    return f'"{text}"'


def hcl_number(value: object) -> str:
    """An HCL number: a finite int or float, written as Python writes it; anything else is refused (ValueError)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{str(value)[:40]!r} is not a finite number")
    return str(int(value)) if isinstance(value, int) or value.is_integer() else repr(value)


# ---- SQL (run by SQL*Plus)


def sql_literal(value: object) -> str:
    """A complete SQL string literal (quotes included): a quote doubled; line-ending and control characters shown
    as visible text, since SQL*Plus reads a script line by line (a blank line or a lone '/' would end or run the
    statement). `&` is left as it is: the SQL file turns substitution off (SET DEFINE OFF)."""
    return "'" + visible(value).replace("'", "''") + "'"


def sql_name(value: object) -> str:
    """An unquoted SQL identifier (ASM disk group and disk names): a letter, then letters, digits, _, $ or #.
    Anything else is refused (ValueError): a name is never quoted into SQL."""
    text = str(value)
    if not _SQL_NAME.fullmatch(text):
        raise ValueError(f"{text[:40]!r} is not a plain SQL name")
    return text


# ---- Markdown (README.md)


def md_text(value: object) -> str:
    """Inline Markdown text that renders as the value: no line break, heading, list, link, image, code span,
    emphasis, table cell break or HTML; control characters shown as visible text."""
    text = _MD_SPECIAL.sub(r"\\\1", visible(value))
    text = re.sub(r"(?i)\b(www)\.", r"\1\\.", text)
    text = _MD_BLOCK_START.sub(lambda m: m.group(1) + ("\\" + m.group(2) if not m.group(2).isdigit()
                                                     else m.group(2) + "\\"), text, count=1)
    return text.rstrip(" ")


def md_code(value: object) -> str:
    """A Markdown code span (backticks included) showing the value verbatim: the fence is one backtick longer
    than the longest run inside; control characters shown as visible text."""
    text = visible(value)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")) or not text:
        text = f" {text} "
    return f"{fence}{text}{fence}"


FILTERS = {
    "q": shell_word, "qlist": shell_words, "comment": line_comment,
    "hcl": hcl_string, "hcl_number": hcl_number, "num": hcl_number,
    "sql_literal": sql_literal, "sql_name": sql_name,
    "md": md_text, "md_code": md_code, "hours": fmt_hours,
}
