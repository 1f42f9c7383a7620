"""report.move: the ways to move, each with its duration and the arithmetic behind it."""

from __future__ import annotations

import typing

from blockfit.report.move import LIMIT_WORDS, METHOD_WORDS, extend, migrations_table
from blockfit.report.page import Section
from blockfit.schema.migration import CurrentLayout, Migration, MigrationLimit, MigrationMethod
from support.build import make_layout, make_plan


def _move(method: str, seconds: float) -> Migration:
    return Migration.model_validate({
        "method": method, "online": method in ("lvm-mirror", "asm-rebalance"), "tool": "dd", "data_bytes": 2 * 10**12,
        "data_what": "the device", "read_mbps": 500, "read_limited_by": "v", "write_mbps": 400,
        "write_limited_by": "v", "rate_mbps": 400, "limited_by": "target_write", "duration_s": seconds,
        "arithmetic": ["2 TB / 400 MB/s = 5,000 s"], "notes": ["assumes idle"]})


def test_every_method_and_limit_has_words() -> None:
    assert set(METHOD_WORDS) == set(typing.get_args(MigrationMethod))
    assert set(LIMIT_WORDS) == set(typing.get_args(MigrationLimit))


def test_one_row_and_one_arithmetic_list_per_method() -> None:
    moves = [_move("offline-block-copy", 5000), _move("lvm-mirror", 9000)]
    s = Section("plan", "P", "p.json", "s")
    extend(s, moves)
    (table,) = s.tables
    assert [r[0] for r in table.rows] == ["offline, block copy", "online, LVM mirror"]
    assert all(r[2] == "2.00 TB" and r[5] == "the target's writes" for r in table.rows)
    assert [title.split(":")[0] for title, _ in s.lists] == ["offline, block copy", "online, LVM mirror"]
    assert s.lists[0][1] == ["2 TB / 400 MB/s = 5,000 s", "note: assumes idle"]


def test_no_moves_add_nothing_but_the_current_layout_when_given() -> None:
    s = Section("plan", "P", "p.json", "s")
    extend(s, [])
    assert s.tables == [] and s.lists == []
    plan = make_plan(make_layout())
    best = plan.candidates[0]
    extend(s, [], CurrentLayout(mount_point="/u01", device="dm-0", prediction=best.prediction), best)
    (table,) = s.tables
    assert table.rows[0][0] == "now: /u01" and table.rows[1][0] == "recommended" and table.strong_rows == {1}
    assert migrations_table([]).rows == []
