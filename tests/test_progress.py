"""The progress bar: what it draws, and when it is shown."""

from __future__ import annotations

import io

from genqsim.support.progress import ProgressBar, wanted


def test_bar_draws_fraction_counts_and_finishes_on_close():
    out = io.StringIO()
    bar = ProgressBar(200, "24 qubits", stream=out)
    bar.update(50)
    bar.close()
    text = out.getvalue()
    assert "24 qubits [" in text and " 25% 50/200" in text
    assert text.rstrip().splitlines()[-1].count("#") == 30 and "100% 200/200" in text
    assert text.endswith("\n")


def test_bar_is_only_wanted_for_large_runs_on_a_terminal(monkeypatch):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert wanted(1e9, quiet=False)
    assert not wanted(1e9, quiet=True)
    assert not wanted(1e3, quiet=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert not wanted(1e9, quiet=False)
