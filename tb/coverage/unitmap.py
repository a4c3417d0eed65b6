"""The unit map in docs/verification.md: for every RTL module, its file, its bench, the scoreboards that
guard it and the testplan features and cover points its bench serves.

    python -m tb.coverage.unitmap          # rewrite the map in docs/verification.md
    python -m tb.coverage.unitmap --check  # exit 1 if the map is stale or a module is unaccounted for

Derived from the tree:

- **modules**: every ``module`` of ``rtl/**/*.v``, and which module instantiates which (also through the
  test wrappers of ``tb/hdl``);
- **benches**: each pytest launcher of ``tb/tests/{unit,system,differential}`` builds a toplevel through
  ``rtlsim.run`` / ``rtlsim.expect_fatal`` (or through a launcher it imports, e.g. ``run_gpu``); the
  bench's device under test is that toplevel, or the RTL modules a ``tb/hdl`` wrapper toplevel holds.
  The bench's files are the launcher and the cocotb test module it names (``__name__`` or ``MODULE``);
- **scoreboards**: the ``tb/scoreboards`` files a bench's files import, directly or through other ``tb``
  modules (the pyuvm environment's ``LaunchChecker``);
- **features and cover points**: the features of ``docs/testplan.yaml`` that list a test in one of the
  bench's files, and their coverage.

Two relations are written down here because the tree cannot say them: which modules a scoreboard's
comparisons aim at (:data:`GUARDS`; each pair must be backed by a bench that runs the scoreboard over a
design holding the module) and, for a module with no bench of its own, where it is checked
(:data:`NO_BENCH`). A module with neither a bench nor an entry there fails the check, so a new module
needs one or the other (tb/tests/tools/test_unitmap.py).
"""

from __future__ import annotations

import argparse
import ast
import functools
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from spec import cli

ROOT = Path(__file__).resolve().parents[2]
RTL = ROOT / "rtl"
HDL = ROOT / "tb" / "hdl"
TESTS = ROOT / "tb" / "tests"
BENCH_DIRS = ("unit", "system", "differential")
SCOREBOARDS = ROOT / "tb" / "scoreboards"
TESTPLAN = ROOT / "docs" / "testplan.yaml"
DOC = ROOT / "docs" / "verification.md"
BEGIN = "<!-- BEGIN GENERATED: unit map (python -m tb.coverage.unitmap) -->"
END = "<!-- END GENERATED: unit map -->"

# scoreboard (tb/scoreboards/<name>.py) -> the RTL modules whose behaviour its comparisons check (the
# scoreboard's docstring says what it compares; docs/verification.md "Scoreboards"). A module that
# holds a guarded one is guarded by the same board (simt_sm by all of its units' boards).
GUARDS: dict[str, tuple[str, ...]] = {
    # pc, instruction, mask, lane values, barrier arrival, finish of every retire
    "retire": (
        "simt_decode",
        "simt_alu",
        "simt_regfile",
        "simt_barrier",
        "simt_warp_sched",
        "simt_sm",
        "simt_warp_table",
        "simt_block_init",
        "simt_tid_table",
        "simt_issue",
        "simt_execute",
        "simt_shared_wb",
        "simt_commit",
        "simt_loader",
        "simt_block_sched",
        "simt_axi_mem_bridge",
    ),
    # stack events, depth, top entry, next pc and mask
    "divergence": ("simt_div_stack",),
    # bank writes of every shared store, a finished block's shared region
    "shared": ("simt_shared_lsu",),
    # transactions of every global access, pass counts, the loader's DATA stores, tag integrity
    "coalescing": ("simt_coalescer", "simt_gmem_unit", "simt_mem_arbiter", "simt_loader"),
    # global memory, every block finished, the exact performance counters (read through the host port)
    "end_of_kernel": ("simt_perf", "simt_block_sched", "simt_axil_host", "simt_axi_mem_bridge"),
}

# RTL module without a bench of its own -> where it is checked instead
NO_BENCH: dict[str, str] = {
    "simt_warp_table": "in simt_sm: every retire's pc, mask, next pc/mask, barrier and finish are checked "
                       "against the model in lockstep (test_sm.py, the system benches); the hang report reads its "
                       "debug port (test_gpu.py watchdog tests)",
    "simt_block_init": "in simt_sm: a block's registers, shared lines and tids start cleared and right, or the "
                       "lockstep retire and shared-memory checks of test_sm.py and the system benches fail",
    "simt_tid_table": "in simt_sm: every tid.x/y/z a lane reads is compared at retire in lockstep; "
                      "test_sm_pipeline.py::test_tid_table runs three-warp 3-D blocks with a partial last "
                      "write group (planted fault 18: entry 1 of a row written with entry 0's tid)",
    "simt_issue": "in simt_sm: test_sm_pipeline.py checks overlap (planted fault 5: serial issue) and reset "
                  "(fault 6: stale token); every fetched and decoded instruction is checked at retire",
    "simt_execute": "in simt_sm: every lane value is compared at retire in lockstep (planted fault 1: a "
                    "flipped lane bit); address errors by the directed error tests",
    "simt_scoreboard": "in simt_sm: every value a warp's instruction reads behind its own earlier ones is "
                       "compared at retire in lockstep; test_sm_pipeline.py checks one warp issuing ahead "
                       "(planted fault 12: no writeback hold)",
    "simt_commit": "in simt_sm: the retire record it packs is compared field by field with the model's "
                   "(retire and divergence boards), its counters by the end-of-kernel board",
    "simt_image_check": "in simt_loader: test_loader.py offers images breaking every rule and checks the error code, "
                        "ERR_RULE and the offending word's index against spec/image_rules.py",
    "simt_loader_store": "in simt_loader: test_loader.py checks every DATA store request (address, mask, data) "
                         "against the image's segments, and that `loaded` waits for their acknowledgements",
    "simt_ignore_flag": "in simt_gpu: ResetMidKernelTest writes IMAGE words into one running launch and a START into "
                        "the next, each of which must set STATUS.IGNORED (a write to an unlisted register must "
                        "not), and every other launch must end with it clear; "
                        "test_gpu.py::test_ignored_fault_is_caught plants fault 10 (the flag never rises)",
    "simt_axil_host": "in simt_gpu_axi: test_axi.py reads the register map over AXI4-Lite and launches every "
                      "kernel through it",
    "simt_axi_mem_bridge": "in simt_gpu_axi: test_axi.py runs kernels through it with every scoreboard on, "
                           "and the retire and end-of-kernel boards catch faults planted in the AXI slave",
}  # fmt: skip

_MODULE_RE = re.compile(r"^\s*module\s+(\w+)", re.M)
_ENDMODULE_RE = re.compile(r"^\s*endmodule\b", re.M)
_INSTANCE_RE = re.compile(r"^\s*(\w+)\s*(?:#\s*\(|\w+\s*\()", re.M)


@dataclass
class Bench:
    launcher: Path  # the pytest file
    toplevels: set[str] = field(default_factory=set)
    files: set[Path] = field(default_factory=set)  # launcher + cocotb test modules
    duts: set[str] = field(default_factory=set)  # RTL modules under test
    scoreboards: set[str] = field(default_factory=set)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def verilog_modules(root: Path) -> dict[str, tuple[Path, str]]:
    """Every module under ``root``: name -> (file, body without comments)."""
    out: dict[str, tuple[Path, str]] = {}
    for path in sorted(root.rglob("*.v")):
        text = _strip_comments(path.read_text())
        for m in _MODULE_RE.finditer(text):
            end = _ENDMODULE_RE.search(text, m.end())
            out[m.group(1)] = (path, text[m.end() : end.start() if end else len(text)])
    return out


def instances(mods: dict[str, tuple[Path, str]]) -> dict[str, set[str]]:
    """Module -> the known modules it instantiates."""
    return {
        name: {m.group(1) for m in _INSTANCE_RE.finditer(body) if m.group(1) in mods} - {name}
        for name, (_, body) in mods.items()
    }


def _subtree(top: str, children: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), [top]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(children.get(name, ()))
    return seen


# ---- Python side: launchers, their toplevels and cocotb modules, imports ------------------------------
def _modname(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def _path_of(modname: str, root: Path) -> Path | None:
    base = root.joinpath(*modname.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


@functools.cache
def _imports(path: Path, root: Path) -> frozenset[Path]:
    """The project files ``path`` imports (``import a.b``, ``from a import b``, relative imports)."""
    tree = ast.parse(path.read_text(), str(path))
    package = _modname(path, root).rsplit(".", 1)[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return frozenset(p for n in names if n and (p := _path_of(n, root)) is not None)


def _functions(path: Path) -> set[str]:
    """Names of the functions ``path`` defines at module level."""
    tree = ast.parse(path.read_text(), str(path))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def _called_functions(path: Path, root: Path) -> dict[Path, set[str]]:
    """For each harness module under tb/ (not a test) that ``path`` imports names from, the names it calls."""
    tree = ast.parse(path.read_text(), str(path))
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    out: dict[Path, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            dep = _path_of(node.module, root)
            if dep is None or dep.parent != root / "tb":
                continue
            names = {a.asname or a.name for a in node.names} & called
            if names:
                out.setdefault(dep, set()).update(names)
    return out


def _launcher_calls(path: Path, root: Path) -> tuple[set[str], set[Path]]:
    """Toplevels built by ``rtlsim.run`` / ``rtlsim.expect_fatal`` in ``path`` and the cocotb modules run."""
    tree = ast.parse(path.read_text(), str(path))
    consts = {
        t.id: n.value.value
        for n in tree.body
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
        for t in n.targets
        if isinstance(t, ast.Name)
    }

    def value(node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return _modname(path, root) if node.id == "__name__" else consts.get(node.id)
        return None

    tops: set[str] = set()
    mods: set[Path] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "rtlsim"
            and node.func.attr in ("run", "expect_fatal")
            and node.args
        ):
            top = value(node.args[0])
            if top:
                tops.add(top)
            if node.func.attr == "run" and len(node.args) > 2 and (mod := value(node.args[2])):
                if (p := _path_of(mod, root)) is not None:
                    mods.add(p)
    return tops, mods


def _import_closure(files: set[Path], root: Path) -> set[Path]:
    seen: set[Path] = set()
    todo = list(files)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(_imports(path, root))
    return seen


@dataclass
class Tree:
    """Everything the map is made of, read from a tree rooted at ``root`` (RTL from ``rtl``)."""

    root: Path = ROOT
    rtl: Path = RTL

    def __post_init__(self) -> None:
        self.rtl_mods = verilog_modules(self.rtl)
        hdl_dir = self.root / "tb" / "hdl"
        self.hdl_mods = {k: v for k, v in verilog_modules(hdl_dir).items() if k not in self.rtl_mods}
        self.children = instances({**self.rtl_mods, **self.hdl_mods})
        self.parents: dict[str, set[str]] = {m: set() for m in self.rtl_mods}
        for parent, kids in self.children.items():
            for kid in kids:
                if kid in self.parents and parent in self.rtl_mods:
                    self.parents[kid].add(parent)
        self.boards = sorted(
            p.stem
            for p in (self.root / "tb" / "scoreboards").glob("*.py")
            if p.stem not in ("__init__", "base")
        )
        self.benches = self._benches()
        self.plan = yaml.safe_load((self.root / "docs" / "testplan.yaml").read_text())

    def _duts(self, top: str) -> set[str]:
        """The RTL modules a toplevel tests: itself, or what a tb/hdl wrapper holds (through wrappers)."""
        if top in self.rtl_mods:
            return {top}
        out: set[str] = set()
        for kid in self.children.get(top, ()):
            out |= self._duts(kid)
        return out

    def _benches(self) -> list[Bench]:
        root = self.root
        launchers = sorted(p for d in BENCH_DIRS for p in (root / "tb" / "tests" / d).glob("test_*.py"))
        calls = {p: _launcher_calls(p, root) for p in launchers}
        benches = []
        for path in launchers:
            tops, mods = calls[path]
            # builds through a harness launcher (tb/gpurun.py's run_gpu): inherit the toplevels it builds
            for dep, names in _called_functions(path, root).items():
                if dep not in calls:
                    calls[dep] = _launcher_calls(dep, root)
                if calls[dep][0] and names & _functions(dep):
                    tops, mods = tops | calls[dep][0], mods | calls[dep][1]
            if not tops:  # builds through another launcher's helper: inherit its toplevels
                for dep in _imports(path, root):
                    if dep in calls and calls[dep][0]:
                        tops, mods = tops | calls[dep][0], mods | calls[dep][1]
            if not tops:
                continue
            bench = Bench(path, set(tops), {path, *mods})
            for top in tops:
                bench.duts |= self._duts(top)
            boards_dir = root / "tb" / "scoreboards"
            bench.scoreboards = {
                p.stem
                for p in _import_closure(bench.files, root)
                if p.parent == boards_dir and p.stem in self.boards
            }
            benches.append(bench)
        return benches

    # ---- per module ------------------------------------------------------------------------------
    def own_benches(self, module: str) -> list[Bench]:
        return [b for b in self.benches if module in b.duts]

    def enclosing_benches(self, module: str) -> list[Bench]:
        """Benches whose design holds ``module`` (its own ones included)."""
        return [b for b in self.benches if any(module in _subtree(d, self.children) for d in b.duts)]

    def guards(self, module: str) -> list[str]:
        """Scoreboards aimed at ``module`` or at a module it holds."""
        sub = _subtree(module, self.children)
        return [b for b in self.boards if sub & set(GUARDS.get(b, ()))]

    def features(self, module: str) -> list[dict]:
        files = {str(p.relative_to(self.root)) for b in self.own_benches(module) for p in b.files}
        return [
            f
            for f in self.plan.get("features", [])
            if any(ref.partition("::")[0] in files for ref in f.get("tests", []))
        ]

    def problems(self) -> list[str]:
        """What keeps the map from being complete and true (empty: fine)."""
        out: list[str] = []
        for mod in sorted(self.rtl_mods):
            if not self.own_benches(mod) and mod not in NO_BENCH:
                out.append(
                    f"{mod} ({self._show(self.rtl_mods[mod][0])}) has no bench of its own and no "
                    "NO_BENCH entry in tb/coverage/unitmap.py saying where it is checked"
                )
            if self.own_benches(mod) and mod in NO_BENCH:
                out.append(f"{mod} has a bench now: drop its NO_BENCH entry in tb/coverage/unitmap.py")
        for mod in sorted(set(NO_BENCH) - set(self.rtl_mods)):
            out.append(f"NO_BENCH names {mod}, which is no RTL module")
        for board in sorted(set(GUARDS) - set(self.boards)):
            out.append(f"GUARDS names scoreboard {board!r}: no tb/scoreboards/{board}.py")
        for board in self.boards:
            if board not in GUARDS:
                out.append(
                    f"scoreboard tb/scoreboards/{board}.py guards nothing in GUARDS (tb/coverage/unitmap.py)"
                )
            for mod in GUARDS.get(board, ()):
                if mod not in self.rtl_mods:
                    out.append(f"GUARDS[{board!r}] names {mod}, which is no RTL module")
                elif not any(board in b.scoreboards for b in self.enclosing_benches(mod)):
                    out.append(
                        f"GUARDS[{board!r}] names {mod}, but no bench runs {board} over a design holding it"
                    )
        for bench in self.benches:
            for top in bench.toplevels:
                if top not in self.rtl_mods and top not in self.hdl_mods:
                    out.append(
                        f"{self._show(bench.launcher)} builds {top}, which is no module of rtl/ or tb/hdl/"
                    )
        return out

    # ---- rendering -------------------------------------------------------------------------------
    def _show(self, path: Path) -> str:
        """``path`` relative to the repository (an RTL file relative to the rtl folder's parent)."""
        if path.is_relative_to(self.rtl):
            return str(path.relative_to(self.rtl.parent))
        return str(path.relative_to(self.root))

    def _link(self, path: Path, text: str | None = None) -> str:
        rel = self._show(path)
        return f"[{text or rel}](../{rel})"

    def _features(self, feats: list[dict]) -> str:
        every = [f["id"] for f in self.plan.get("features", [])]
        mine = [f["id"] for f in feats]
        if len(mine) > len(every) / 2:  # most of them: name the ones left out
            rest = [fid for fid in every if fid not in mine]
            return f"all {len(every)}" if not rest else f"all {len(every)} but {', '.join(rest)}"
        return ", ".join(mine) or "—"

    def _coverage(self, feats: list[dict]) -> str:
        every = {c for f in self.plan.get("features", []) for c in f.get("coverage", [])}
        mine = {c for f in feats for c in f.get("coverage", [])}
        if not mine:
            return "—"
        if mine == every:
            return f"all {len(every)}"
        return ", ".join(f"`{c}`" for c in sorted(mine))

    def render_table(self) -> str:
        rows = [
            BEGIN,
            "| module | RTL | bench | inside | scoreboards | testplan features | cover points |",
            "|---|---|---|---|---|---|---|",
        ]
        for mod in sorted(self.rtl_mods, key=lambda m: (self._show(self.rtl_mods[m][0]), m)):
            path = self.rtl_mods[mod][0]
            own = self.own_benches(mod)
            bench = (
                ", ".join(self._link(b.launcher, b.launcher.name) for b in own)
                or f"— ({NO_BENCH.get(mod, '?')})"
            )
            inside = ", ".join(f"`{p}`" for p in sorted(self.parents[mod])) or "—"
            boards = ", ".join(self.guards(mod)) or "—"
            feats = self.features(mod)
            fids = self._features(feats)
            cells = [
                f"`{mod}`",
                self._link(path, path.name),
                bench,
                inside,
                boards,
                fids,
                self._coverage(feats),
            ]
            rows.append("| " + " | ".join(cells) + " |")
        rows += [
            "",
            "| scoreboard | file | run by |",
            "|---|---|---|",
        ]
        for board in self.boards:
            users = ", ".join(
                self._link(b.launcher, b.launcher.name) for b in self.benches if board in b.scoreboards
            )
            file = self._link(self.root / "tb" / "scoreboards" / f"{board}.py", f"{board}.py")
            rows.append(f"| {board} | {file} | {users or '—'} |")
        rows.append(END)
        return "\n".join(rows)


def render_doc(current: str, table: str, path: Path = DOC) -> str:
    start, end = current.find(BEGIN), current.find(END)
    if start < 0 or end < 0:
        raise SystemExit(f"{path}: unit-map markers not found; restore the {BEGIN!r} block")
    return current[:start] + table + current[end + len(END) :]


def targets(tree: Tree | None = None) -> list[tuple[Path, str]]:
    tree = tree or Tree()
    return [(DOC, render_doc(DOC.read_text(), tree.render_table()))]


def stale(tree: Tree | None = None) -> list[Path]:
    return [path for path, text in targets(tree) if not path.exists() or path.read_text() != text]


def main(argv: list[str] | None = None) -> int:
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--check", action="store_true", help="only check; exit 1 if the map is stale or incomplete"
    )
    args = ap.parse_args(argv)
    tree = Tree()
    problems = tree.problems()
    for p in problems:
        print(f"unit map: {p}", file=sys.stderr)
    if args.check:
        bad = stale(tree)
        for path in bad:
            print(
                f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} is stale: "
                "run `python -m tb.coverage.unitmap`",
                file=sys.stderr,
            )
        return 1 if bad or problems else 0
    for path, text in targets(tree):
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 1 if problems else 0


if __name__ == "__main__":
    cli.run(main)
