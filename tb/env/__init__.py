"""The pyuvm verification environment of the GPU top (docs/verification.md)."""
