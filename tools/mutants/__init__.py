"""Mutation testing of the RTL (``make mutants``, docs/verification.md "Mutation testing").

One systematic mutation at a time is applied to a copy of ``rtl/`` and the fast regression is run
against the copy; a mutant the regression fails on is *killed*, one it passes is a *survivor*: either
an equivalent mutant (no input can observe it; the reason is written in
``docs/mutants-equivalent.toml``) or a hole in the tests.

    lexer.py     a Verilog tokenizer and the map of what may be mutated (comments, strings, test-only
                 fault hooks, parameter checks and declarations are not)
    generate.py  the mutation operators and the stable mutant ids
    runner.py    the fast regression per mutant, the baseline self-check, two mutants at a time
    report.py    build/reports/mutants.md and mutants.jsonl, with the survivors and their reasons
    __main__.py  ``python -m tools.mutants run|list|report`` (what ``make mutants`` calls)
"""
