"""Issue 39, parse at the edge: the library's problem names the value, the command line names the option that
carried it, once (`cli.common.supplied_by`), in the one line a bad input gets (exit 2, nothing written)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support.inproc import run

PLAN_ARGS = ["plan", "--example", "part3", "--json"]   # a 6-member OCI stripe


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import subprocess
    import sys

    done = subprocess.run([str(Path(sys.executable).parent / "blockfit"), *PLAN_ARGS], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    path = tmp_path_factory.mktemp("plan") / "plan.json"
    path.write_text(done.stdout)
    return path


def one_line_naming(err: str, option: str, value: str) -> str:
    """The message's one line: the option once, then the value (a flag later in the line is advice)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    head = re.escape(option)
    assert re.search(rf"(^|: ){head}:? {re.escape(value)}", line), line
    assert len(re.findall(rf"(?<![\w-]){head}(?![\w-])", line)) == 1, line
    return line


DEVICES = ",".join(f"/dev/oracleoci/oraclevd{c}" for c in "bcdefg")


@pytest.mark.parametrize(("extra", "option", "value", "words"), [
    (["--vg", "9vg"], "--vg", "'9vg'", "expected a letter"),
    (["--lv", "a-b"], "--lv", "'a-b'", "expected a letter"),
    (["--diskgroup", "x" * 40], "--diskgroup", "'" + "x" * 40 + "'", "max 31"),
    (["--mount", "/etc/db"], "--mount", "'/etc/db'", "is a system folder"),
    (["--mount", "u01"], "--mount", "'u01'", "expected an absolute directory"),
    (["--candidate", "7"], "--candidate", "7", "expected 0.."),
    (["--manager", "none"], "--manager", "none", "only for a single volume"),
    (["--manager", "asm", "--mount", "/u01"], "--mount/--manager", "/u01 with asm", "ASM disks carry no filesystem"),
    (["--migrate-from", "/dev/sdz"], "--migrate-from/--method", "/dev/sdz and no method", "go together"),
    (["--method", "offline"], "--migrate-from/--method", "no source and offline", "go together"),
    (["--migrate-from", "/dev/sdz", "--method", "online"], "--migrate-from", "'/dev/sdz'", "logical volume path"),
    (["--migrate-from", "/dev/vg/lv", "--method", "online", "--manager", "mdadm"], "--method", "online",
     "needs --manager lvm"),
    (["--provision", "aws-cli"], "--provision", "aws-cli", "the plan is for oci, not aws"),
])
def test_build_names_the_option_once(extra: list[str], option: str, value: str, words: str, plan_file: Path,
                                     tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = {"--manager": "lvm", "--devices": DEVICES}
    rest = []
    for flag, given in zip(extra[::2], extra[1::2], strict=True):
        if flag in args:
            args[flag] = given
        else:
            rest += [flag, given]
    code, _, err = run(["build", "--plan", str(plan_file), "--out", str(tmp_path / "o"),
                        *[x for kv in args.items() for x in kv], *rest], capsys)
    assert code == 2, err
    assert words in one_line_naming(err, option, value)
    assert not (tmp_path / "o").exists()


def test_build_names_the_devices_and_the_plan(plan_file: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["build", "--plan", str(plan_file), "--out", str(tmp_path / "o"), "--manager", "lvm",
                        "--devices", "/dev/sdb,/dev/sdc"], capsys)
    assert code == 2 and "give exactly 6" in one_line_naming(err, "--devices", "2 given")


@pytest.mark.parametrize(("args", "option", "value"), [
    (["--duration", "4s"], "--duration", "4s"),
    (["--engine", "mmap"], "--engine", "'mmap'"),
    (["--host", "node1:x"], "--host", "'node1:x'"),
    (["--host", "node1", "--host", "node1:8765"], "--host", "node1"),
    (["--io-sizes", "1m,8k"], "--io-sizes", "'1m,8k'"),
])
def test_calibrate_names_the_option_once(args: list[str], option: str, value: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["calibrate", str(tmp_path), *args], capsys)
    assert code == 2, err
    one_line_naming(err, option, value)


def test_catalog_import_names_region_out_and_cloud(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from support.catalog_files import aws_price_list, aws_type, aws_types, write

    types = write(tmp_path / "types.json", aws_types([aws_type("r7i.2xlarge", 8, 65536, 312.5, 12000, 1250, 40000)]))
    code, _, err = run(["catalog", "import", "--cloud", "aws", types, "--out", types], capsys)
    assert code == 2, err
    assert "is one of the files to import" in one_line_naming(err, "--out", repr(types))
    code, _, err = run(["catalog", "import", "--cloud", "aws", types, "--out", str(tmp_path / "c.toml"),
                        "--region", "eu-west-1"], capsys)
    assert code == 2, err
    assert "goes with a price file" in one_line_naming(err, "--region", "eu-west-1")
    code, _, err = run(["catalog", "import", "--cloud", "mars", types, "--out", str(tmp_path / "c.toml")], capsys)
    assert code == 2, err
    assert "expected one of" in one_line_naming(err, "--cloud", "'mars'")
    # a region the price file does not price is found while the file is read, and still named as --region's
    prices = write(tmp_path / "prices.json", aws_price_list("us-east-1", {"r7i.2xlarge": 0.5}))
    code, _, err = run(["catalog", "import", "--cloud", "aws", types, prices, "--out", str(tmp_path / "c.toml"),
                        "--region", "mars-1"], capsys)
    assert code == 2, err
    assert "has no prices for it" in one_line_naming(err, "--region", "mars-1")
    assert not (tmp_path / "c.toml").exists()


def test_catalog_date_is_named_by_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["model", "--catalog", "1999-01", "--layout", "2x1T@balanced", "--instance",
                        "VM.Standard.E4.Flex:8"], capsys)
    assert code == 2, err
    assert "no oci catalog version that early" in one_line_naming(err, "--catalog", "1999-01-28")


PLAN = ["plan", "--cloud", "oci", "--capacity", "1T", "--target-iops", "5000", "--instance"]


@pytest.mark.parametrize(("args", "option", "value", "words"), [
    (["VM.Standard.E4.Flex", "--max-volumes", "40"], "--max-volumes", "40", "attaches at most 32 volumes"),
    (["VM.Standard.E4.Flex", "--cpus", "200-300"], "--cpus", "200-300", "no count in that range"),
    (["VM.Standard.E4.Flex:8", "--memory", "9000G"], "--memory", "9,000 GB", "takes at most 512 GB"),
    (["VM.Standard.E4.Flex:8", "--paths", "64"], "--paths", "64", "more carry nothing"),
    (["VM.Standard.E4.Flex", "--min-vcpus", "8"], "--min-vcpus", "8", "OCI sells OCPUs"),
])
def test_plan_names_the_option_once(args: list[str], option: str, value: str, words: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*PLAN, *args], capsys)
    assert code == 2 and out == "", err
    assert words in one_line_naming(err.replace("blockfit: warning:", "").strip().splitlines()[-1], option, value)


def test_a_search_names_the_field_a_shape_cannot_take() -> None:
    from blockfit.catalog import load_catalog
    from blockfit.plan.space import option_problem
    from blockfit.schema import Requirements

    cat = load_catalog("oci")
    req = Requirements(cloud="oci", capacity_gb=1024, target_iops=5000, instance_shape="VM.Standard.E4.Flex",
                       max_volumes=40)
    assert option_problem(cat, req) == "max volumes 40: VM.Standard.E4.Flex attaches at most 32 volumes"
    assert option_problem(cat, req.model_copy(update={"max_volumes": 8})) is None
