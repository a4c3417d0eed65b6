"""The launch checker: routes every observation of a launch to the scoreboards, lock-step with the model.

Per launch (the host driver announces ``begin`` and ``end``) it builds the golden model and a fresh
set of scoreboards. Each retire goes to the retire scoreboard, which steps the model for that warp;
the model's record then goes with the RTL's to the divergence, shared-memory and coalescing
scoreboards. The first mismatch fails the test with where it happened, the warp's last retires and
the command that reruns exactly this test and seed.

Modes (ConfigDB ``CHECK_MODE``): ``full`` (every scoreboard) or ``end`` (only the end-of-kernel
check: the model runs to completion when the launch ends; the speed benchmark's baseline).
With ConfigDB ``EXPECT_FAULT`` set (a meta-test) the first mismatch is recorded in :attr:`fault`
instead of raised, and checking stops.
"""

from __future__ import annotations

import os
import shlex
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pyuvm
from cocotb.triggers import Event

from spec.hang import ST_DONE, WarpView, compare_hang, golden_run, rtl_lines, warp_report
from spec.model import ERROR_CODES, KernelError, Model
from tb.agents.host_bfm import NO_LANE
from tb.agents.sm_driver import SmLaunch
from tb.agents.trace_monitor import port_writers
from tb.benchutil import rerun_seed
from tb.env.items import LaunchItem
from tb.fastcheck import FastPath
from tb.fastcheck import available as fast_available
from tb.fastcheck import enabled as fast_enabled
from tb.scoreboards.base import Mismatch, Scoreboard
from tb.scoreboards.coalescing import CoalescingScoreboard
from tb.scoreboards.divergence import DivergenceScoreboard
from tb.scoreboards.end_of_kernel import EndOfKernelChecker
from tb.scoreboards.retire import RetireScoreboard, where
from tb.scoreboards.shared import SharedMemoryScoreboard

HANG_BUDGET = 50_000  # per-warp instructions the watchdog's model run may take (about a second)
TEST_MODULE = "tb.tests.system.gpu_tests"  # where the pyuvm tests live (their cocotb names)


class GoldenMismatch(Mismatch):
    """A benchmark kernel's output differs from its C reference program's."""


class HangMismatch(Mismatch):
    """The RTL's debug view of a hung launch disagrees with the golden model's (docs/verification.md
    "Hang report"): another warp, pc or state."""


def rerun_command(kernel_seed: int | None = None) -> str:
    """One command that reruns exactly the current pytest launcher (same regression seed, same kernel)."""
    node = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    top = type(pyuvm.uvm_root().uvm_test_top)
    module = top.__module__ if top.__module__ != "__main__" else TEST_MODULE  # gpu_tests.py or axi_tests.py
    env = [f"SIM={os.environ.get('SIM', 'verilator')}", f"SEED={rerun_seed(module, top.__name__)}"]
    if kernel_seed is not None:
        env.append(f"KERNEL_SEEDS={kernel_seed}")
    target = shlex.quote(node) if node else "tb/tests/system"
    return " ".join(env) + f" .venv/bin/python -m pytest {target} -n0   (add WAVES=1 for an FST)"


def count_quiet(
    div: DivergenceScoreboard,
    shared: SharedMemoryScoreboard,
    coal: CoalescingScoreboard,
    wpb: int,
    rtl: Any,
    exp: Any,
    sm: int,
) -> bool:
    """Count a retire the way the divergence, shared-memory and coalescing boards' ``check`` would, and
    return True, when their ``check`` could only count it: it stores nothing to shared memory, touches
    no global memory, changes no stack and ends no warp, and neither memory board holds traffic of its
    warp slot (warp slot = block slot x ``wpb`` + warp) or a protocol error. Otherwise count nothing and
    return False: the caller runs each board's ``check``. The launch checker's per-retire fast path
    (``tb/tests/model/test_checker_fast.py`` checks that both ways leave every board's counts equal)."""
    mem = exp.mem
    if exp.stack or exp.done or coal.errors:
        return False
    if mem is not None and (mem.space == "global" or (mem.store and mem.space == "shared")):
        return False
    key = (sm, rtl.slot * wpb + rtl.warp)
    if key in shared.pending or key in coal.pending:
        return False
    div.compared += 1
    shared.compared += 1
    coal.compared += 1
    if rtl.depth:
        div.tops += 1
    if mem is not None and mem.space == "shared":
        coal.shared_accesses += 1
    return True


def _observer(fn: Any) -> Any:
    """An analysis write: in a meta-test the first mismatch unwinds to here and is kept, not raised."""

    def write(self: LaunchChecker, event: Any) -> None:
        try:
            fn(self, event)
        except _Stop:
            pass

    return write


class LaunchChecker(pyuvm.uvm_component):
    def build_phase(self) -> None:
        db = pyuvm.ConfigDB()
        self.cfg = db.get(self, "", "GPU_CFG")
        self.mem: np.ndarray = db.get(self, "", "GMEM")
        self.mode: str = db.get(self, "", "CHECK_MODE")
        try:
            self.expect_fault: str | None = db.get(self, "", "EXPECT_FAULT")
        except pyuvm.UVMConfigItemNotFound:
            self.expect_fault = None
        self.fault: Mismatch | None = None
        self.fault_event = Event()
        self.retire_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("retire_export", self, self.write_retire)
        self.dispatch_export = pyuvm.uvm_subscriber.uvm_AnalysisImp(
            "dispatch_export", self, self.write_dispatch
        )
        self.shared_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("shared_export", self, self.write_shared)
        self.request_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("request_export", self, self.write_request)
        self.response_export = pyuvm.uvm_subscriber.uvm_AnalysisImp(
            "response_export", self, self.write_response
        )
        self.launch_export = pyuvm.uvm_subscriber.uvm_AnalysisImp("launch_export", self, self.write_launch)
        # every retire after all scoreboards agreed: (model record, sm, the model's warp after it)
        self.checked_ap = pyuvm.uvm_analysis_port("checked_ap", self)
        self.item: LaunchItem | None = None
        self.fast: FastPath | None = None  # the compiled fast path of this launch (SIMT_FAST_CHECK=0: none)
        self.model: Model | None = None
        self.boards: list[Scoreboard] = []
        self.end_board = EndOfKernelChecker()
        self.totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.launches = self.kernels_checked = self.golden_words = 0
        self.fast_retires = 0  # retires the compiled fast path checked
        self.fast_stores = 0  # of them shared stores (with their bank writes)
        self.seeds: list[int] = []
        db.set(None, "*", "HANG_REPORT", self.hang_report)  # read by the host driver's watchdog
        db.set(None, "*", "LAUNCH_OPEN", self.launch_open)  # read by the host driver at a launch's end

    # ---- launch lifecycle (from the host driver) -------------------------------------------------
    @_observer
    def write_launch(self, event: tuple[str, LaunchItem]) -> None:
        what, item = event
        if what == "begin":
            self.begin(item)
        elif what == "end":
            self.end(item)
        else:
            self.abandon()

    def begin(self, item: LaunchItem) -> None:
        self.item = item
        self.model = None
        self.boards = []
        self.fast = None
        self.launches += 1
        if (
            item.image is None
            or item.words is not None
            or not item.start
            or item.expect_launch_error is not None
        ):
            return  # nothing will run: no model (an impossible launch would not even build one)
        cfg, image = self.cfg, item.image
        self.model = Model(cfg, image)
        if self.mode == "full":
            self.retire = RetireScoreboard(self.model)
            self.divergence = DivergenceScoreboard(self.model)
            self.shared = SharedMemoryScoreboard(cfg, self.model, SmLaunch.of(cfg, image).sh_stride)
            self.coalescing = CoalescingScoreboard(cfg, image)
            self.after_retire = [
                self.divergence,
                self.shared,
                self.coalescing,
            ]  # check(rtl, model record, sm)
            self.boards = [self.retire, *self.after_retire]
            self.wpb = image.warps_per_block(cfg.warp_size)  # warp slot = block slot x wpb + warp
            self._checked = port_writers(self.checked_ap)  # (connected before any launch)
            if fast_enabled() and fast_available():
                self.fast = self._fast_path()

    def _fast_path(self) -> FastPath | None:
        """The compiled fast path (tb/fastcheck) when every subscriber of checked retires is one it
        counts for (functional coverage, or none)."""
        cov = None
        if self._checked:
            owner = getattr(self._checked[0], "__self__", None)
            if len(self._checked) != 1 or not hasattr(owner, "cov") or not hasattr(owner.cov, "raw"):
                return None
            cov = owner.cov
        assert self.model is not None
        try:
            return FastPath(
                self.model, self.retire, (self.divergence, self.shared, self.coalescing), self.wpb, cov
            )
        except ValueError:
            return None

    def launch_open(self) -> list[str]:
        """The memory traffic still open when the host sees a launch done (called once every trace event
        up to that cycle has been published): requests not yet answered on the external port, and
        transactions a retired posted store still owes (tb/scoreboards/coalescing.py). A launch may end
        only when there are none (docs/gpu.md "Posted stores"); end() reports them."""
        if self.model is None or self.mode != "full":
            return []
        held = int(self.fast.st.nout) if self.fast is not None else 0  # the fast path's outstanding
        return self.coalescing.open_traffic(held)

    def fast_flush(self) -> None:
        """Everything the fast path checked, handed to the model, the boards and coverage."""
        if self.fast is not None:
            self.fast.settle()

    def hang_report(self, instrs: int, views: list[WarpView]) -> str:
        """The hung launch as the RTL's debug view shows it (``views``) next to the golden model's view
        (spec/hang.py), for the host watchdog; with the full checking mode the two must agree
        (:func:`~spec.hang.compare_hang`), else a :class:`HangMismatch`. Call it with the
        trace synchronised (the lock-step model has every retire up to now)."""
        item = self.item
        code = item.image.code if item is not None and item.image is not None else None
        lines = ["RTL debug view (DBG_* registers), one line per resident warp:"]
        lines += ["  " + line for line in rtl_lines(views, code)] or ["  none resident"]
        if item is None or item.image is None:
            return "\n".join([*lines, "no golden-model view: the launch has no complete image"])
        self.fast_flush()
        budget = min(max(instrs, 1000), HANG_BUDGET)
        text, stop = golden_run(self.cfg, item.image, budget)
        compare = self.model is not None and self.mode == "full" and not self.failed
        if compare:
            last = {k: d[-1][0] for k, d in self.retire._last.items() if d}
            warps = warp_report(self.model, last, limit=64)
            lines.append("warps as the RTL's retires left them (lock-step model):")
            lines += ["  " + line for line in warps] or ["  none resident"]
        lines.append(text)
        if compare:
            recent = {k: [pc for pc, _, _ in d] for k, d in self.retire._last.items()}
            problems = compare_hang(views, self.model, recent, stop)
            if problems:
                report = "\n  ".join(lines)
                try:
                    self._raise(
                        HangMismatch,
                        "the RTL's hang report disagrees with the golden model's: "
                        + "; ".join(problems)
                        + f"\n  {report}",
                    )
                except _Stop:
                    lines.append("DISAGREE (planted fault caught): " + "; ".join(problems))
                    return "\n".join(lines)
            running = sum(1 for v in views if v.state != ST_DONE)
            lines.append(
                f"the RTL and the golden model agree: the same {running} unfinished warp(s), pcs and states "
                f'(docs/verification.md "Hang report")'
            )
        return "\n".join(lines)

    def abandon(self) -> None:
        """The launch was reset or aborted on purpose: drop its state (what was checked stays counted)."""
        self.fast_flush()
        self._bank()
        self.model, self.item, self.boards, self.fast = None, None, [], None

    def end(self, item: LaunchItem) -> None:
        self.fast_flush()
        if self.model is None or self.failed:
            self.abandon()
            return
        if item.expect_error is not None:
            self.check_kernel_error(item)
        if item.expect_error is not None or item.expect_launch_error is not None:
            self.abandon()
            return
        if self.mode == "end":
            self.model.run()
        if item.open_at_end:
            self._raise(
                self.coalescing.mismatch,
                f"{item} was reported done (STATUS) with memory traffic open: " + "; ".join(item.open_at_end),
            )
        for board in self.boards:
            left = board.end()
            if left:
                self._raise(
                    board.mismatch, f"{board.name} scoreboard at the end of {item}: " + "; ".join(left[:5])
                )
        diffs = self.end_board.check(self.model, self.mem, item.perf)
        if diffs:
            self._raise(self.end_board.mismatch, f"end of kernel check of {item}: " + "; ".join(diffs))
        if item.golden is not None:
            words, diffs = item.golden.mismatches(self.mem)
            if diffs:
                self._raise(
                    GoldenMismatch,
                    f"{item}: output differs from kernels/{item.golden.kernel}/golden.c "
                    f"(size {item.golden.size}, seed {item.golden.seed}): " + "; ".join(diffs),
                )
            self.golden_words += words
        self.kernels_checked += 1
        if item.seed is not None:
            self.seeds.append(item.seed)
        self.abandon()

    def check_kernel_error(self, item: LaunchItem) -> None:
        """The GPU's error registers (``item.error``) must name the error the model raises stepping the
        warp they blame (lock-step), or running to completion (end-only mode)."""
        err = item.error
        assert self.model is not None and item.image is not None and err is not None
        try:
            if self.mode == "full" and err.block in self.model.blocks:
                self.model.step(err.block, err.warp)  # lock-step: the warp the GPU blames must fail now
            else:
                Model(self.cfg, item.image).run()  # end-only mode: the model's own interleaving
        except KernelError as exc:
            want = (ERROR_CODES[exc.kind], exc.pc, NO_LANE if exc.lane is None else exc.lane)
            if exc.kind.name != item.expect_error:
                self._raise(
                    Mismatch, f"{item}: the model raised {exc.kind.name}, expected {item.expect_error}"
                )
        else:
            self._raise(
                Mismatch,
                f"{item}: the GPU reports an error at block {err.block} warp {err.warp}; "
                "the model steps that warp without one",
            )
        if (err.kind, err.pc, err.lane) != want:
            self._raise(Mismatch, f"{item}: GPU error {err}, model (kind, pc, lane) {want}")

    def _bank(self) -> None:
        if self.fast is not None:
            self.fast_retires += self.fast.handled
            self.fast_stores += self.fast.stores
        for board in self.boards:
            t = self.totals[board.name]
            for k in ("compared", *board.counts):
                t[k] += getattr(board, k)

    # ---- observations ----------------------------------------------------------------------------
    @property
    def failed(self) -> bool:
        return self.fault is not None

    @_observer
    def write_dispatch(self, event: tuple[int, int]) -> None:
        if self.model is not None and not self.failed:
            bid, sm = event
            self.model.start_block(bid, sm=sm)
            if self.fast is not None:
                self.fast.register()

    def write_retire(self, event: tuple[Any, int]) -> None:
        """One RTL retire: the retire scoreboard steps the model and compares the whole record, then the
        divergence, shared-memory and coalescing boards check the rest of it, then coverage samples it.

        Called once per retire (the trace monitor calls it directly, not through :func:`_observer`), so
        the common case is kept short: a retire the after-boards would only count is counted by
        :func:`count_quiet` without their ``check`` calls; every other retire goes through each board's
        ``check``."""
        if self.fault is not None:  # (``failed``, without a property call on every retire)
            return
        try:
            rtl, sm = event
            if not self.boards:
                self._raise(Mismatch, f"retire on {where(rtl, sm)} while no kernel is running")
            retire = self.retire
            try:
                exp = retire.check(rtl, sm)
            except Mismatch as exc:
                self._raise(type(exc), str(exc))
            if not count_quiet(self.divergence, self.shared, self.coalescing, self.wpb, rtl, exp, sm):
                self._after_boards(rtl, exp, sm)
            checked = (exp, sm, retire.warp)
            for write in self._checked:
                write(checked)
        except _Stop:
            pass

    def _after_boards(self, rtl: Any, exp: Any, sm: int) -> None:
        for board in self.after_retire:
            diffs = board.check(rtl, exp, sm)
            if diffs:
                self._raise(
                    board.mismatch,
                    f"{board.name} mismatch on {where(rtl, sm)}: "
                    + "; ".join(diffs)
                    + f"\n  last retires of this warp (model):\n    {self.retire.last_retires(rtl.block, rtl.warp)}",
                )

    @_observer
    def write_shared(self, event: tuple[int, bool, list[tuple[int, int]]]) -> None:
        if self.boards and not self.failed:
            self.shared.observe(*event)

    @_observer
    def write_request(self, txn: Any) -> None:
        if self.boards and not self.failed:
            self.coalescing.on_request(txn)

    @_observer
    def write_response(self, rsp: Any) -> None:
        if self.boards and not self.failed:
            self.coalescing.on_response(rsp)

    def _raise(self, kind: type[Mismatch], text: str) -> None:
        seed = self.item.seed if self.item is not None else None
        exc = kind(f"{text}\n  rerun: {rerun_command(seed)}\n  picture: {self._picture()}")
        if self.expect_fault is not None:
            self.fault = exc
            self.fault_event.set()
            fast = self.fast
            how = (
                f"fast path on, {self.fast_retires + fast.handled + int(fast.counters[0])} retires checked in C"
                if fast is not None
                else "Python path alone"
            )
            self.logger.info(f"planted fault caught by {kind.__name__} ({how})")
            raise _Stop()
        raise exc

    def _picture(self) -> str:
        """The command drawing this launch's warp timeline as far as the trace holds it (tools/timeline); with
        SIMT_TIMELINE=1 it is drawn now, as timeline.png beside the trace."""
        try:
            trace = Path(pyuvm.ConfigDB().get(self, "", "TRACE_PATH")).resolve()
        except pyuvm.UVMConfigItemNotFound:
            return "no trace in this run"
        args = [str(trace), "--launch", "-1", "--num-warps", str(self.cfg.num_warps)]
        if os.environ.get("SIMT_TIMELINE") and self.expect_fault is None:
            from tools.timeline.__main__ import main as draw

            try:
                draw([*args, "--out", str(trace.with_name("timeline.png"))])
            except (SystemExit, OSError, ValueError) as err:  # a picture must never hide the mismatch
                self.logger.warning(f"no timeline drawn: {err}")
        return ".venv/bin/python -m tools.timeline " + " ".join(args) + " --out timeline.png"

    # ---- end of test -----------------------------------------------------------------------------
    def report_lines(self) -> list[str]:
        lines = []
        for name, t in self.totals.items():
            if not t.get("compared"):
                raise AssertionError(f"{name} scoreboard compared nothing in this test")
            lines.append(f"{name}: " + ", ".join(f"{k} {v}" for k, v in t.items() if v))
        lines.append(f"end of kernel: {self.end_board.summary()}")
        if self.fast_retires:
            lines.append(
                f"fast path (tb/fastcheck; SIMT_FAST_CHECK=0 turns it off): {self.fast_retires} retires checked in C "
                f"({self.fast_stores} shared stores with their bank writes)"
            )
        if self.golden_words:
            lines.append(f"C references: {self.golden_words} output words compared")
        return lines


class _Stop(Exception):
    """Unwinds the observation callback that found the planted fault (meta-tests only)."""
