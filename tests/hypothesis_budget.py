"""Example counts that follow the Hypothesis settings profile (the profiles are registered in ``conftest.py``).

A test that writes ``@settings(max_examples=N)`` overrides the profile's ``max_examples``, so such a count is
written ``max_examples=examples(N)`` instead: ``N`` as written under the ``ci`` profile (the default), about a
tenth of it under ``dev`` (``python -m pytest --hypothesis-profile=dev``), for a quicker local run.
"""

from __future__ import annotations

from hypothesis import settings

DEV_PROFILE = "dev"
DEV_DIVISOR = 10
DEV_MINIMUM = 2
DEV_MAX_EXAMPLES = 100 // DEV_DIVISOR  # for the tests that name no count (hypothesis's default is 100)


def examples(n: int) -> int:
    """``n`` under every profile but ``dev``; ``n // 10`` (at least 2, at most ``n``) under ``dev``."""
    if settings.get_current_profile_name() == DEV_PROFILE:
        return min(n, max(DEV_MINIMUM, n // DEV_DIVISOR))
    return n
