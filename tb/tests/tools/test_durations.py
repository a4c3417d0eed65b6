"""The longest-first order of pytest -n (tools/durations.py): junit times in, stable order out, every test
kept, and the checked-in table readable and covering the slow system tests."""

from __future__ import annotations

import json
from pathlib import Path

from tools import durations

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="simt-gpgpu" tests="3">
<testcase classname="tb.tests.system.test_gpu" name="test_directed[sm2-l32]" time="181.2"/>
<testcase classname="tb.tests.system.test_gpu" name="test_smoke" time="0.3"/>
<testcase classname="tb.tests.system.test_gpu.TestX" name="test_y" time="12.0"/>
</testsuite></testsuites>
"""


def test_junit_key_matches_pytests_report_names() -> None:
    assert (
        durations.junit_key("tb/tests/unit/test_alu.py::test_alu[w8]")
        == "tb.tests.unit.test_alu::test_alu[w8]"
    )
    assert durations.junit_key("tb/tests/a.py::TestX::test_y") == "tb.tests.a.TestX::test_y"


def test_update_keeps_slow_tests_and_the_median(tmp_path: Path) -> None:
    report = tmp_path / "system-icarus.xml"
    report.write_text(JUNIT)
    table = tmp_path / "durations.json"
    data = durations.update([report], table)
    assert data == json.loads(table.read_text())
    icarus = data["icarus"]
    assert icarus["tb.tests.system.test_gpu::test_directed[sm2-l32]"] == 181.2
    assert "tb.tests.system.test_gpu::test_smoke" not in icarus  # under KEEP seconds
    assert icarus[durations.MEDIAN] == 12.0


def test_longest_first_is_stable_and_keeps_every_test() -> None:
    data = {"icarus": {"tb.tests.a::test_slow": 50.0, "tb.tests.a::test_mid": 5.0, durations.MEDIAN: 2.0}}
    ids = [
        "tb/tests/a.py::test_new1",
        "tb/tests/a.py::test_mid",
        "tb/tests/a.py::test_slow",
        "tb/tests/a.py::test_new2",
    ]
    order = durations.longest_first(ids, "icarus", data)
    assert [ids[i] for i in order] == [ids[2], ids[1], ids[0], ids[3]]  # unknown ones: the median, in order
    assert durations.longest_first(ids, "verilator", data) == [0, 1, 2, 3]  # no table: collection order


def test_the_checked_in_table_has_the_slow_system_tests() -> None:
    data = durations.load()
    for sim in durations.SIMS:
        assert any(k.startswith("tb.tests.system.") for k in data.get(sim, {})), sim
        assert durations.MEDIAN in data[sim]


def test_builds_lists_each_build_costliest_first(tmp_path: Path) -> None:
    """``builds`` reads the build.json that tb/rtlsim.py leaves in each build folder (issue 29's profile)."""
    for folder, cpu, defines in (
        ("simt_alu/verilator-a", 3.5, {}),
        ("simt_sm/verilator-w32l8-b", 20.25, {"SIMT_FAULTS": 1}),
    ):
        (tmp_path / folder).mkdir(parents=True)
        record = {"sim": "verilator", "cpu_s": cpu, "wall_s": 2 * cpu, "parameters": {"N": 1}, "defines": defines,
                  "make_vars": ["OPT_FAST=-O0", "OPT_SLOW=-O0"]}  # fmt: skip
        (tmp_path / folder / "build.json").write_text(json.dumps(record))
    (tmp_path / "simt_alu" / "icarus-c").mkdir()
    (tmp_path / "simt_alu" / "icarus-c" / "build.json").write_text(
        json.dumps({"sim": "icarus", "cpu_s": 1.0, "wall_s": 1.0})
    )
    records = durations.build_records(tmp_path, "verilator")
    assert [r["folder"] for r in records] == ["simt_sm/verilator-w32l8-b", "simt_alu/verilator-a"]
    lines = durations.builds_table(records)
    assert "-O0" in lines[0] and '"`SIMT_FAULTS": 1' in lines[0]
    assert lines[-1] == "2 builds, 23.8 CPU s"
    assert len(durations.build_records(tmp_path)) == 3
