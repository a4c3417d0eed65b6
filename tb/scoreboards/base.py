"""What every scoreboard shares: a mismatch exception, counts, and the "compared nothing" rule.

A scoreboard that compared nothing proves nothing, so :meth:`Scoreboard.report` raises instead of
printing a success line; :meth:`Scoreboard.leftovers` lists what was expected or observed and never
matched (reported at the end of a launch, Forastero-style drain).
"""

from __future__ import annotations

from typing import ClassVar


class Mismatch(AssertionError):
    """The RTL did something the golden model did not. The message names what and where."""


class RetireMismatch(Mismatch):
    """The RTL retired something the golden model did not."""


class DivergenceMismatch(Mismatch):
    """The divergence stack, or the pc and mask a warp continues with, differ from the model's."""


class SharedMismatch(Mismatch):
    """A shared-memory bank write, or a block's final shared contents, differs from the model's."""


class CoalescingMismatch(Mismatch):
    """Memory traffic (transactions, pass counts, port integrity) differs from the model's."""


#: The mismatch each per-retire scoreboard raises, by board name: the retire record's field table names
#: the board that owns each field (spec/retire_record.py ``Field.board``); a difference in a field is
#: raised as its board's mismatch.
OWNERS: dict[str, type[Mismatch]] = {
    "retire": RetireMismatch,
    "divergence": DivergenceMismatch,
    "shared memory": SharedMismatch,
    "coalescing/bank": CoalescingMismatch,
}


class Scoreboard:
    """Every scoreboard has one shape: ``check(...)`` per observed item returns the differences found
    (or raises :attr:`mismatch`), ``end()`` at the end of a launch returns what never matched; the
    caller raises :attr:`mismatch`, the board's own exception type, with them."""

    name: ClassVar[str] = "scoreboard"
    mismatch: ClassVar[type[Mismatch]] = Mismatch
    counts: ClassVar[tuple[str, ...]] = ()  # integer attributes summed over launches for the report

    def __init__(self) -> None:
        self.compared = 0  # retire records this board checked

    def summary(self) -> str:  # pragma: no cover - overridden
        return f"{self.compared} compared"

    def leftovers(self) -> list[str]:
        """Observed or expected items never matched (empty when the launch ended cleanly)."""
        return []

    def end(self) -> list[str]:
        """The end of a launch: everything that never matched (Forastero-style drain)."""
        return self.leftovers()

    def report(self) -> str:
        if self.compared == 0:
            raise AssertionError(f"{self.name} scoreboard compared nothing: no retire reached it (wiring?)")
        left = self.leftovers()
        if left:
            raise Mismatch(
                f"{self.name} scoreboard: {len(left)} unmatched at the end: " + "; ".join(left[:5])
            )
        return f"{self.name}: {self.summary()}"
