"""Calibration per script class (token estimates, review finding F10).

(a) Russian, Hindi, Hebrew, Thai, Greek and Arabic were all one class, ``other``: one Hindi report at 3x
priced Russian at 3x too. Each script family is now its class. (b) A class never reported used the
overall factor: after reports on a Hindi-only compile, English was priced at Hindi's 3x (a Hindi and
English compile at ``(Hindi + English) * 3``). It now uses 1.0 once any class has its own factor.
States stored with the old class set still load, their ``other`` factor kept for every script class
that split it.
"""

from __future__ import annotations

import math

import pytest

from context_journal import ContextManager
from context_journal.tokens import Calibration, content_mix, text_class

SAMPLES = {
    "cyrillic": "Привет, как дела? Это тестовое сообщение о сборке и её тестах.",
    "indic": "नमस्ते दुनिया यह एक परीक्षण है और यह बहुत लंबा वाक्य है।",
    "arabic_hebrew": "مرحبا بالعالم هذا اختبار طويل عن البناء",
    "thai_lao_khmer": "สวัสดีครับ วันนี้อากาศดีมาก เราไปเดินเล่นที่สวน",
    "other": "Γειά σου κόσμε, αυτό είναι ένα μεγάλο τεστ.",
    "prose": "Another plain English sentence about the build and its tests.",
    "code": 'def f(x):\n    return {"a": [x, x + 1]}  # ok',
    "cjk": "今日は良い天気ですね。散歩に行きましょう。",
}
HEBREW = "שלום עולם, זה מבחן ארוך על הבנייה והבדיקות שלה."
LAO, KHMER = "ສະບາຍດີ ມື້ນີ້ອາກາດດີ", "ជំរាបសួរ ថ្ងៃនេះអាកាសធាតុល្អ"
HINDI = SAMPLES["indic"] + " "
ENGLISH = SAMPLES["prose"] + " "


@pytest.mark.parametrize(
    ("cls", "text"), [*SAMPLES.items(), ("arabic_hebrew", HEBREW), ("thai_lao_khmer", LAO), ("thai_lao_khmer", KHMER)]
)
def test_each_script_family_is_its_own_class(cls: str, text: str) -> None:
    assert text_class(text) == cls


def test_a_hindi_report_does_not_price_russian_or_greek() -> None:
    cal = Calibration()
    cal.update(1000, 3000, {"indic": 1000})
    assert cal.class_factor("indic") == pytest.approx(3.0)
    assert cal.factor == pytest.approx(3.0)
    for cls in ("cyrillic", "other", "arabic_hebrew", "thai_lao_khmer", "prose", "code", "cjk", "media"):
        assert cal.class_factor(cls) == 1.0
    assert cal.apply_mix({"cyrillic": 1000}) == 1000
    assert cal.apply_mix({"indic": 791, "prose": 194}) == 2567  # 791 * 3 + 194, not (791 + 194) * 3 = 2955
    cal.update(1000, 1500, {"cyrillic": 1000})  # Russian's own report moves Russian only
    assert cal.class_factor("cyrillic") == pytest.approx(1.5**0.3)  # a later report moves by alpha (0.3)
    assert cal.class_factor("indic") == pytest.approx(3.0)


def test_nothing_class_specific_known_uses_the_overall_factor() -> None:
    cal = Calibration()
    cal.update(1000, 1400)  # no mix: all content
    assert cal.classes == {"*": pytest.approx(1.4)}
    assert cal.class_factor("indic") == cal.class_factor("prose") == pytest.approx(1.4)
    cal.update(1000, 3000, {"indic": 1000})
    assert cal.class_factor("indic") == pytest.approx(1.4 * (3.0 / 1.4) ** 0.3)  # from 1.4, by alpha (0.3)
    assert cal.class_factor("prose") == pytest.approx(1.4)  # the mix-less reports' factor, not Hindi's


def _stored(cm: ContextManager) -> Calibration:
    return Calibration.from_state(cm._strategy_context().get_state("calibration"))


def test_an_english_message_after_hindi_reports_is_priced_at_one() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", HINDI * 40, id="h")
    first = cm.compile(20_000)
    assert (first.estimated_tokens, first.tokens) == (2705, 2705)
    assert content_mix([b for m in first.messages for b in m.content]) == {"indic": 2701}
    cm.report_usage(first, 3 * first.estimated_tokens)
    assert _stored(cm).classes == {"indic": pytest.approx(3.0)}
    alone = cm.compile(20_000)
    assert (alone.estimated_tokens, alone.tokens) == (2705, 8115)  # Hindi alone: its own 3x
    cm.add_message("assistant", ENGLISH * 12, id="e")
    both = cm.compile(20_000)
    mix = content_mix([b for m in both.messages for b in m.content])
    assert (mix, both.estimated_tokens) == ({"indic": 2701, "prose": 149}, 2858)
    own = (3 * mix["indic"] + mix["prose"]) / sum(mix.values())  # English at 1.0
    assert both.tokens == math.ceil(both.estimated_tokens * own - 1e-9) == 8276
    assert both.tokens < 3 * both.estimated_tokens == 8574  # what it was priced at before
    cm.close()


OLD_STATE = {
    "factor": 2.2,
    "samples": 6,
    "lower": 0.1,
    "upper": 20.0,
    "classes": {"prose": 1.0, "other": 3.0},
    "mix": {"prose": 0.4, "other": 0.6},
}


def test_a_state_of_the_old_class_set_loads_with_its_other_factor_split() -> None:
    cal = Calibration.from_state(OLD_STATE)
    assert (cal.factor, cal.samples, cal.mix) == (2.2, 6, OLD_STATE["mix"])
    for cls in ("cyrillic", "indic", "arabic_hebrew", "thai_lao_khmer", "other"):
        assert cal.class_factor(cls) == 3.0  # priced as before until reports refine them
    assert cal.class_factor("prose") == 1.0 and cal.class_factor("code") == 1.0
    state = cal.to_state()
    assert state["class_set"] == 2
    assert Calibration.from_state(state).classes == cal.classes
    current = Calibration.from_state({**OLD_STATE, "class_set": 2})  # the new class set: "other" is other
    assert current.classes == OLD_STATE["classes"] and current.class_factor("indic") == 1.0
    legacy = Calibration.from_state({"factor": 1.4, "samples": 9, "lower": 0.5, "upper": 2.0})
    assert legacy.classes == {"*": 1.4} and legacy.class_factor("indic") == 1.4


def test_a_namespace_with_an_old_state_prices_hindi_as_before() -> None:
    cm = ContextManager.open("memory:")
    cm._strategy_context().put_states({"calibration": OLD_STATE})
    cm.add_message("user", HINDI * 40, id="h")
    result = cm.compile(20_000)
    assert (result.estimated_tokens, result.tokens, result.calibration) == (2705, 8115, 3.0)
    cm.close()
