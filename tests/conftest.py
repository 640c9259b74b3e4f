"""Test-wide settings.

Hypothesis examples run with no deadline: a per-example deadline is a timed assertion, and
it failed tests on a throttled machine (a 200 ms default against 341 ms for an example that
is correct). Tests assert results; speed is measured in ``benchmarks/``.
"""

from hypothesis import settings

settings.register_profile("genqsim", deadline=None)
settings.load_profile("genqsim")
