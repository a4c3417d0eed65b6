"""What every scoreboard shares: a mismatch exception, counts, and the "compared nothing" rule.

A scoreboard that compared nothing proves nothing, so :meth:`Scoreboard.report` raises instead of
printing a success line; :meth:`Scoreboard.leftovers` lists what was expected or observed and never
matched (reported at the end of a launch, Forastero-style drain).
"""

from __future__ import annotations

from typing import ClassVar


class Mismatch(AssertionError):
    """The RTL did something the golden model did not. The message names what and where."""


class Scoreboard:
    name: ClassVar[str] = "scoreboard"
    counts: ClassVar[tuple[str, ...]] = ()  # integer attributes summed over launches for the report

    def __init__(self) -> None:
        self.compared = 0  # retire records this board checked

    def summary(self) -> str:  # pragma: no cover - overridden
        return f"{self.compared} compared"

    def leftovers(self) -> list[str]:
        """Observed or expected items never matched (empty when the launch ended cleanly)."""
        return []

    def report(self) -> str:
        if self.compared == 0:
            raise AssertionError(f"{self.name} scoreboard compared nothing: no retire reached it (wiring?)")
        left = self.leftovers()
        if left:
            raise Mismatch(f"{self.name} scoreboard: {len(left)} unmatched at the end: " + "; ".join(left[:5]))
        return f"{self.name}: {self.summary()}"
