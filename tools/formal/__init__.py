"""Formal verification of the RTL units with SymbiYosys (make formal; docs/verification.md "Formal")."""
