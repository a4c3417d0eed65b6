"""The energy reference's toggle counts (ppa/toggles.py) are exact on wide signals.

Verilator 5.048's toggle coverage adds the changes of 32-bit word i of a wide signal to every later
word too; ppa/toggles.py builds against a corrected header. The planted case builds without the
correction and shows that the check refuses it (a check that can fail)."""

from __future__ import annotations

import pytest

from ppa import toggles


def test_corrected_header_counts_every_word_alike(tmp_path):
    words = toggles.count_check_words(tmp_path, corrected=True)
    toggles.check_counting(words)  # raises unless four equal, non-zero counts
    assert words[0] > 0


def test_uncorrected_verilator_miscount_is_refused(tmp_path):
    words = toggles.count_check_words(tmp_path, corrected=False)
    with pytest.raises(RuntimeError, match="miscounts a 128-bit signal"):
        toggles.check_counting(words)
