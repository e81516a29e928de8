"""A compile's parts add up to its total once calibrated: each part rounded up on its own made them add
up to more than ``tokens`` (by up to 45 tokens when a compile was priced per content class)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.compile import NESTED_PARTS, calibrated_parts
from tests.hypothesis_budget import examples

SETTINGS = settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])

HINDI = "नमस्ते दुनिया यह एक परीक्षण वाक्य है " * 30


@SETTINGS
@given(
    sizes=st.lists(st.integers(0, 50_000), min_size=1, max_size=6),
    nested=st.lists(st.floats(0.0, 1.0), max_size=2),
    factor=st.floats(0.1, 20.0),
)
def test_parts_add_up_to_the_total_and_keep_their_shares(sizes: list[int], nested: list[float], factor: float) -> None:
    estimated = {f"part {k}": v for k, v in enumerate(sizes[:-1])}
    estimated["messages"] = sizes[-1]
    for name, share in zip(sorted(NESTED_PARTS), nested, strict=False):
        estimated[name] = int(sizes[-1] * share)
    whole = sum(sizes)
    tokens = int(whole * factor)
    out = calibrated_parts(estimated, tokens)
    assert list(out) == list(estimated)
    top = {k: v for k, v in out.items() if k not in NESTED_PARTS}
    if whole:
        assert sum(top.values()) == tokens
        for k, v in top.items():
            assert abs(v - estimated[k] * tokens / whole) < 1.0 + 1e-9  # its share, give or take one
    else:
        assert set(out.values()) == {0}
    for k in NESTED_PARTS & set(out):
        assert 0 <= out[k] <= out["messages"]


def test_a_compile_priced_per_class_reports_parts_that_add_up() -> None:
    cm = ContextManager.open("memory:")
    for i in range(40):
        text = HINDI if i % 3 == 0 else "plain english words here " * 20
        cm.add_message("user" if i % 2 == 0 else "assistant", text + str(i))
    first = cm.compile(3000, system="You are helpful.")
    assert sum(first.parts.values()) == first.tokens == first.estimated_tokens  # no calibration yet
    cm.report_usage(first, first.estimated_tokens * 2)
    cm.add_message("user", "english " * 100)
    for budget in (2500, 3000, 5000, 8000):
        result = cm.compile(budget, system="You are helpful.")
        assert result.calibration > 1.5  # priced with the content's own factor
        assert sum(v for k, v in result.parts.items() if k not in NESTED_PARTS) == result.tokens <= budget
        assert sum(v for k, v in result.estimated_parts.items() if k not in NESTED_PARTS) == result.estimated_tokens
        assert result.to_dict()["estimated_parts"] == dict(result.estimated_parts)
    cm.close()
