"""Grapheme clusters that a cut must keep whole (shared by the tests of every text-cutting place)."""

CLUSTERS = [
    "👨\u200d👩\u200d👧\u200d👦",  # family: four emoji and three joiners
    "🏳️\u200d🌈",
    "🇫🇷",
    "🇯🇵",
    "👍🏽",
    "1\ufe0f\u20e3",
    "e\u0301",
    "a\u0308\u0323",
    "क्षि",
    "स्ते",
    "ᄀ\u1161\u11a8",  # a Hangul syllable from jamo
    "\r\n",
    "ש\u05c1\u05b8",
]
