"""The fan-out buffer pass (ppa/fanout.py) on a hand-written Yosys-style netlist, without any tool: every
net ends at most MAX_FANOUT pins, every original sink still reaches its original net through buffers
only, clocks are left alone, and a submodule's port counts as one sink of its buffered load. Each check
has a planted fault it catches."""

from __future__ import annotations

import json
import re

import pytest

from ppa import fanout

P = fanout.PREFIX
CAPS = {
    f"{P}inv_1": {"A": 0.002},
    f"{P}dfxtp_1": {"D": 0.0017, "CLK": 0.0018},
    f"{P}buf_2": {"A": 0.0023},
    f"{P}buf_4": {"A": 0.0024},
    f"{P}buf_8": {"A": 0.0045},
}


def _inv(name: str, a: str, y: str) -> str:
    return f"  {P}inv_1 {name} (\n    .A({a}),\n    .Y({y})\n  );"


def netlist(n_sub_sinks: int = 25, n_top_sinks: int = 34, n_subs: int = 12) -> str:
    """``sub`` drives *n_sub_sinks* inverters from its input ``a``; ``top`` drives *n_top_sinks* flip-flop
    D pins and *n_subs* ``sub`` instances from one inverter output, all clocked by ``clk``."""
    sub = ["module sub(clk, a, y);", "  input clk;", "  wire clk;", "  input a;", "  wire a;", "  output y;",
           "  wire y;", *[f"  wire _s{i}_;" for i in range(n_sub_sinks)]]  # fmt: skip
    sub += [_inv(f"_i{i}_", "a", f"_s{i}_") for i in range(n_sub_sinks)]
    sub += ["  assign y = _s0_;", "endmodule"]
    top = ["module top(clk, x, \\q[0] );", "  input clk;", "  wire clk;", "  input x;", "  wire x;",
           "  output \\q[0] ;", "  wire \\q[0] ;", "  wire \\hi.fan ;"]  # fmt: skip
    top.append(_inv("_drv_", "x", "\\hi.fan "))
    for i in range(n_top_sinks):
        top.append(f"  {P}dfxtp_1 \\ff[{i}] (\n    .CLK(clk),\n    .D(\\hi.fan ),\n    .Q(_q{i}_)\n  );")
    for i in range(n_subs):
        top.append(f"  sub \\u[{i}] (\n    .clk(clk),\n    .a(\\hi.fan ),\n    .y(_y{i}_)\n  );")
    top += ["  assign \\q[0] = _q0_;", "endmodule"]
    return "\n".join(sub) + "\n\n" + "\n".join(top) + "\n"


def trace_root(mods: dict[str, fanout.Module], mod: str, net: str) -> str:
    """Follow *net* back through inserted buffers to the net that feeds the tree."""
    drivers = {it.conns[1][1]: it.conns[0][1] for it in mods[mod].insts if it.name.startswith("_fo_buf_")}
    seen = 0
    while net in drivers:
        net = drivers[net]
        seen += 1
        assert seen < 100, "a loop of buffers"
    return net


def sinks_of(mods: dict[str, fanout.Module]) -> dict[tuple[str, str, str], str]:
    """(module, instance, pin) -> root net of every non-buffer sink pin."""
    out = {}
    for m in mods.values():
        for it in m.insts:
            if it.name.startswith("_fo_buf_"):
                continue
            for pin, expr, _ in it.conns:
                if pin in ("A", "D", "a"):
                    out[(m.name, it.name, pin)] = trace_root(mods, m.name, expr)
    return out


def test_no_net_drives_more_than_max_fanout_and_sinks_keep_their_net() -> None:
    text = netlist()
    before = fanout.fanout_of(text, CAPS)
    assert before["sub/a"] == 25 and before["top/\\hi.fan"] == 46
    out, stats = fanout.buffer_netlist(text, CAPS, "top")
    after = fanout.fanout_of(out, CAPS)
    assert max(after.values()) <= fanout.MAX_FANOUT
    # sub: 25 sinks -> 3 buffers; top: 46 sinks -> 5 buffers
    assert sum(stats.buffers.values()) == 8 and stats.nets_buffered == 2 and stats.max_depth == 1
    assert json.loads(json.dumps(stats.as_dict()))["buffers"] == stats.buffers
    # the logic is the same: every sink pin reaches the net it read before, through buffers only
    assert sinks_of(fanout.parse(out)) == sinks_of(fanout.parse(text))
    # an escaped identifier is ended by white space before a parenthesis (Verilog's rule)
    assert "\\hi.fan )" in out and not re.search(r"\\\S*\)", out)
    # the clock is not buffered
    assert "top/clk" not in after and "_fo_" not in " ".join(re.findall(r"\.CLK\(([^)]*)\)", out))
    # planted fault: one rewired pin pointed at the wrong buffer output is caught by the trace
    bad = out.replace(".D(_fo_net_", ".D(_fo_netX_", 1)
    assert sinks_of(fanout.parse(bad)) != sinks_of(fanout.parse(text))
    # planted fault: a pass that leaves the nets alone fails the fan-out bound
    lazy, _ = fanout.buffer_netlist(text, CAPS, "top", max_fanout=1000)
    assert max(fanout.fanout_of(lazy, CAPS).values()) > fanout.MAX_FANOUT


def test_deep_tree_and_submodule_port_load() -> None:
    out, stats = fanout.buffer_netlist(netlist(n_sub_sinks=250, n_top_sinks=3, n_subs=2), CAPS, "top")
    assert stats.max_depth == 2  # 250 sinks -> 25 buffers -> 3 buffers
    assert max(fanout.fanout_of(out, CAPS).values()) <= fanout.MAX_FANOUT
    mods = fanout.parse(out)
    port_load: dict = {}
    stats2 = fanout.Stats()
    fanout.buffer_module(mods["sub"], CAPS, port_load, stats2)  # already buffered: nothing to add
    assert stats2.nets_buffered == 0
    # the port drives the three top-level buffers of its tree, and that is its load
    roots = [it for it in mods["sub"].insts if it.name.startswith("_fo_buf_") and it.conns[0][1] == "a"]
    assert len(roots) == 3
    assert port_load["sub"]["a"] == pytest.approx(sum(CAPS[it.type]["A"] for it in roots))


def test_buffer_size_follows_the_load() -> None:
    assert fanout.pick(0.005) == 2 and fanout.pick(0.03) == 4 and fanout.pick(0.07) == 8
    assert fanout.pick(1.0) == 8


def test_missing_buffers_and_bad_text_are_errors() -> None:
    with pytest.raises(fanout.FanoutError, match="buf_2"):
        fanout.buffer_netlist(netlist(), {f"{P}inv_1": {"A": 0.002}}, "top")
    with pytest.raises(fanout.FanoutError, match="no endmodule"):
        fanout.parse("module m(a);\n  input a;\n")
    with pytest.raises(fanout.FanoutError, match="no module nope"):
        fanout.buffer_netlist(netlist(), CAPS, "nope")
