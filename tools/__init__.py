"""The project's tooling, apart from the harness in tb/: the task runner (tasks), simulator set-up
(simenv), RTL and workflow lint, code coverage (codecov), mutation testing (mutants), benchmarks
(bench) and warp-timeline pictures (timeline)."""
