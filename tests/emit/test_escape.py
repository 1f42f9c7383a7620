"""The escapers of emit/escape.py hold for arbitrary strings (issue 36): a value stays one bash word, one `#`
comment, one HCL string, one SQL literal or comment, one Markdown span. Each property runs its examples in
batches (one bash per batch), so the module stays fast."""

from __future__ import annotations

import re
import subprocess
from importlib import resources
from pathlib import Path

import hcl2
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from blockfit.emit.escape import (
    hcl_number,
    hcl_string,
    line_comment,
    md_code,
    md_text,
    shell_word,
    sql_literal,
    sql_name,
    visible,
)
from blockfit.emit.safety import render_template

# any text a JSON file can carry (no lone surrogates: UTF-8 cannot write them), with the characters that break
# out of each language over-represented
HOSTILE = "\n\r\t'\"`$(){};|&<>#\\*?[]!~%-/=,. \x00\x1b\x07\u2028\u2029\u0085\u202e"
TEXT = st.text(st.one_of(st.sampled_from(HOSTILE), st.characters(exclude_categories=("Cs",))), max_size=40)
NO_NUL = TEXT.map(lambda t: t.replace("\0", ""))
BATCH = st.lists(NO_NUL, min_size=1, max_size=25)
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    path = cwd / "s.sh"
    path.write_text(script, encoding="utf-8")
    check = subprocess.run(["bash", "-n", str(path)], capture_output=True, timeout=60)
    assert check.returncode == 0, check.stderr.decode()
    return subprocess.run(["bash", str(path)], capture_output=True, timeout=60, cwd=cwd)


@FAST
@given(values=BATCH)
def test_a_shell_word_gives_back_exactly_the_value_and_runs_nothing(values: list[str], tmp_path_factory) -> None:
    cwd = tmp_path_factory.mktemp("sh")
    lines = [f"printf '%s\\0' {shell_word(v)}" for v in values]
    lines.append(f"ARR=({' '.join(shell_word(v) for v in values)}); printf '%s\\0' \"${{#ARR[@]}}\"")
    proc = _bash("set -eu\n" + "\n".join(lines) + "\n", cwd)
    assert proc.returncode == 0, proc.stderr.decode()
    out = proc.stdout.decode("utf-8").split("\0")[:-1]
    assert out == [*values, str(len(values))]
    assert sorted(p.name for p in cwd.iterdir()) == ["s.sh"]


def test_a_shell_word_quotes_a_newline_and_refuses_a_nul() -> None:
    assert shell_word("data\n") == "'data\n'"
    assert shell_word("a,b") == "'a,b'" and shell_word("/dev/sdc") == "/dev/sdc"
    with pytest.raises(ValueError, match="NUL"):
        shell_word("a\0b")


@FAST
@given(values=st.lists(TEXT, min_size=1, max_size=25))
def test_a_comment_stays_one_comment_line(values: list[str], tmp_path_factory) -> None:
    cwd = tmp_path_factory.mktemp("cm")
    script = "".join(f"# {line_comment(v)}\n" for v in values) + "printf done\n"
    assert script.count("\n") == len(values) + 1
    proc = _bash(script, cwd)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"done", b"")
    assert sorted(p.name for p in cwd.iterdir()) == ["s.sh"]


# ---- HCL: a spec scanner for one quoted string (HCL native syntax: escapes \\ \" \n \r \t \uNNNN \UNNNNNNNN;
# $${ and %%{ are a literal ${ and %{; an undoubled ${ or %{ starts a template sequence)
_HCL_PART = re.compile(r'\\(?:[\\"nrt]|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})|\$\$\{|%%\{|\$(?!\{)|%(?!\{)|[^"\\$%\n\r]')


def _hcl_literal(text: str) -> str:
    """The value of TEXT, which must be exactly one HCL quoted string without a template sequence."""
    assert text.startswith('"') and text.endswith('"')
    out, pos, body = [], 0, text[1:-1]
    while pos < len(body):
        m = _HCL_PART.match(body, pos)
        assert m, f"not a literal string part at {body[pos:pos + 10]!r}"
        part = m.group(0)
        if part in ("$${", "%%{"):
            out.append(part[1:])
        elif part.startswith("\\u") or part.startswith("\\U"):
            out.append(chr(int(part[2:], 16)))
        elif part.startswith("\\"):
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(part[1], part[1]))
        else:
            out.append(part)
        pos = m.end()
    return "".join(out)


def _keys(node: object) -> object:
    """python-hcl2's result without its markers (__is_block__ and the like)."""
    if isinstance(node, dict):
        return {k: _keys(v) for k, v in node.items() if not k.startswith("__")}
    if isinstance(node, list):
        return [_keys(v) for v in node]
    return node


@settings(max_examples=200, deadline=None)
@given(value=TEXT)
def test_an_hcl_string_is_one_literal_with_the_value(value: str) -> None:
    literal = hcl_string(value)
    assert "\n" not in literal and _hcl_literal(literal) == value
    doc = f"locals {{\n  x = [{literal}, \"end\"]\n}}\nresource \"a\" \"b\" {{\n  y = {literal}\n}}\n"
    # python-hcl2 (8.x) reads $${ and %%{ only with a closing brace after them; HCL itself needs none
    assume(not re.search(r"[$%]\{[^}]*$", value))
    parsed = _keys(hcl2.loads(doc))
    assert set(parsed) == {"locals", "resource"}
    assert [list(r) for r in parsed["resource"]] == [['"a"']]
    assert list(parsed["locals"][0]) == ["x"] and parsed["locals"][0]["x"] == [literal, '"end"']
    assert parsed["resource"][0]['"a"']['"b"']["y"] == literal


def test_hcl_numbers_are_numbers() -> None:
    assert (hcl_number(16), hcl_number(46.6), hcl_number(500.0)) == ("16", "46.6", "500")
    for bad in ("1; x", float("nan"), True, None):
        with pytest.raises(ValueError):
            hcl_number(bad)


# ---- SQL: a strict tokenizer for what SQL*Plus runs (quoted literal, -- comment, word, punctuation)
_SQL_TOKEN = re.compile(r"(?P<lit>'(?:[^'\n]|'')*')|(?P<comment>--[^\n]*)|(?P<word>[A-Za-z][A-Za-z0-9_$#]*)"
                        r"|(?P<punct>[;,=()])|(?P<space>[ \t]+)|(?P<nl>\n)")


def _sql_tokens(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    while pos < len(text):
        m = _SQL_TOKEN.match(text, pos)
        assert m, f"no SQL token at {text[pos:pos + 10]!r}"
        if m.lastgroup != "space":
            tokens.append((str(m.lastgroup), m.group(0)))
        pos = m.end()
    return tokens


@settings(max_examples=300, deadline=None)
@given(value=TEXT)
def test_a_sql_literal_and_comment_stay_one_token(value: str) -> None:
    text = f"-- {line_comment(value)}\nSELECT name FROM t WHERE name = {sql_literal(value)};\nEXIT\n"
    tokens = _sql_tokens(text)
    kinds = [k for k, _ in tokens]
    assert kinds == ["comment", "nl", "word", "word", "word", "word", "word", "word", "punct", "lit", "punct", "nl",
                     "word", "nl"]
    assert tokens[9][1][1:-1].replace("''", "'") == visible(value)
    # SQL*Plus reads line by line: no blank line, no lone '/', no '&' substitution once SET DEFINE OFF is read
    assert all(line.strip() not in ("", "/") for line in text.splitlines())


@settings(max_examples=200, deadline=None)
@given(value=TEXT)
def test_a_sql_name_is_a_plain_identifier_or_refused(value: str) -> None:
    try:
        name = sql_name(value)
    except ValueError:
        assert not re.fullmatch(r"[A-Za-z][A-Za-z0-9_$#]*", value, re.ASCII)
        return
    assert name == value and _sql_tokens(name) == [("word", value)]


def test_the_asm_sql_turns_substitution_off_and_quotes_its_paths() -> None:
    sql = render_template("asm.sql.j2", source="plan candidate 0 (x\nDROP DISKGROUP DATA;)", diskgroup="DATA",
                          asm_names=["data01", "data'02"], au_mb=4, au_reason="r\n/", compatible="19.0.0.0.0",
                          redundancy="EXTERNAL", asm_dir="/dev/oracleasm")
    lines = sql.splitlines()
    assert "SET DEFINE OFF" in lines and not any(line.startswith("DROP") for line in lines)
    assert "'/dev/oracleasm/data''02'" in sql
    with pytest.raises(ValueError):
        render_template("asm.sql.j2", source="s", diskgroup="DATA; DROP DISKGROUP X", asm_names=["a"], au_mb=4,
                        au_reason="r", compatible="19.0.0.0.0", redundancy="EXTERNAL", asm_dir="/dev/oracleasm")


# ---- Markdown: markdown-it (CommonMark + GFM tables) as the reader
_MD = MarkdownIt("commonmark").enable("table")


def _inline_children(doc: str) -> list:
    tokens = _MD.parse(doc)
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    return list(tokens[1].children or [])


@settings(max_examples=300, deadline=None)
@given(value=TEXT)
def test_markdown_text_is_one_span_of_text(value: str) -> None:
    assume(visible(value).strip(" "))  # an empty paragraph is no paragraph
    for doc in (f"Before {md_text(value)} after\n", f"- {md_text(value)}\n", f"{md_text(value)}\n"):
        if doc.startswith("- "):
            tokens = _MD.parse(doc)
            assert [t.type for t in tokens][:3] == ["bullet_list_open", "list_item_open", "paragraph_open"]
            assert len(tokens) == 7
            children = list(tokens[3].children or [])
        else:
            children = _inline_children(doc)
        assert {c.type for c in children} <= {"text"}, [c.type for c in children]
    expected = "Before " + visible(value).rstrip(" ") + " after"
    assert "".join(c.content for c in _inline_children(f"Before {md_text(value)} after\n")) == expected


@settings(max_examples=200, deadline=None)
@given(value=TEXT)
def test_markdown_text_stays_in_its_table_cell(value: str) -> None:
    doc = f"| a | b |\n|---|---|\n| {md_text(value)} | end |\n"
    types = [t.type for t in _MD.parse(doc)]
    assert types.count("td_open") == 2 and types.count("tr_open") == 2


@settings(max_examples=200, deadline=None)
@given(value=TEXT)
def test_a_markdown_code_span_shows_the_value(value: str) -> None:
    assume(visible(value).strip(" "))
    children = _inline_children(f"x {md_code(value)} y\n")
    assert [c.type for c in children] == ["text", "code_inline", "text"]
    assert children[1].content == visible(value)


# ---- every template value goes through an escaper

_FILTERED = re.compile(r"\|\s*(q|qlist|comment|hcl|hcl_number|num|sql_literal|sql_name|md|md_code)\s*"
                       r"(if .* else \"[^\"]*\")?$")
# expressions that only choose between literals of the template itself, or (oci.tf) attribute lines whose
# names are constants and whose values provision.py builds from constants, an int and hcl_string()
_LITERAL_CHOICES = {
    '2 if redundancy == "NORMAL" else 3', '"DISK" if loop.first else "    "', '"," if not loop.last else ""',
    '", " if not loop.last else ""', '",layout" if level == "raid10" else ""',
    "' once the agent has logged in' if attachment == 'iscsi' else ''", 'ctx.devices | map("md") | join(", ")',
    'key.ljust(attach_attrs | map("first") | map("length") | max)', "value",
}


def test_every_template_expression_is_escaped_or_a_literal_choice() -> None:
    templates = sorted(Path(str(resources.files("blockfit.emit") / "templates")).glob("*.j2"))
    assert len(templates) >= 17
    loose = [(t.name, e) for t in templates for e in re.findall(r"\{\{\s*(.*?)\s*\}\}", t.read_text())
             if not _FILTERED.search(e) and e not in _LITERAL_CHOICES]
    assert loose == []
