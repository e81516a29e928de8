"""Which letters, symbols, punctuation marks and format characters ``cl100k_base`` encodes alone as two
tokens or more, and which as three or more: the token estimate prices the blocks of ``RANGES`` as
one-token characters and adds each further token of these (kaomoji such as
"(╯°□°)╯︵ ┻━┻" were once estimated at 0.65-0.76x, text with bidirectional marks at 0.60-0.73x, Maltese
with its ħ and ġ at 0.85x). ``SPACE_APART``: the Latin letters a space before does not merge with (a
word that opens with ụ or ā costs a token more: Igbo was 0.82x).

Generated from tiktoken's ``cl100k_base`` ranks (MIT licence) by
``tests/compile/test_token_estimate_scripts.py::test_the_symbol_table_matches_cl100k`` (it fails,
printing this text, when the table and the encoding disagree): 127 characters are one token,
1,564 two and 1,684 three or more. Do not edit by hand.
"""

from __future__ import annotations

RANGES = (
    (0x0100, 0x02FF),
    (0x1D00, 0x1DBF),
    (0x1E00, 0x1EFF),
    (0x2000, 0x200C),
    (0x200E, 0x206F),
    (0x20A0, 0x20CF),
    (0x2190, 0x21BF),
    (0x2300, 0x27FF),
    (0x2900, 0x2BFF),
    (0x3000, 0x303F),
    (0x3130, 0x318F),
)
"""The (first, last) code points the table covers."""

MORE_TOKENS = (
    "\u0100\u0102\u0104\u0106\u0108-\u010c\u010e-\u010f\u0112\u0114-\u0118\u011a\u011c-\u011e"
    "\u0120-\u012a\u012c-\u012f\u0132-\u0141\u0143\u0145-\u014c\u014e-\u0150\u0152\u0154-\u0158\u015a"
    "\u015c-\u015e\u0160\u0162\u0164\u0166-\u016a\u016c-\u016e\u0170\u0172-\u0179\u017b\u017d"
    "\u017f-\u01a0\u01a2-\u01af\u01b1-\u0218\u021a\u021c-\u0258\u025a-\u0274\u0276-\u02ff"
    "\u1d00-\u1dbf\u1e00-\u1ea0\u1ea2\u1ea4\u1ea6\u1ea8\u1eaa-\u1eac\u1eae\u1eb0-\u1eb6\u1eb8-\u1ebe"
    "\u1ec0\u1ec2\u1ec4-\u1ec6\u1ec8\u1eca\u1ecc\u1ece\u1ed0\u1ed2\u1ed4\u1ed6\u1ed8\u1eda\u1edc"
    "\u1ede\u1ee0-\u1ee2\u1ee4\u1ee6\u1ee8\u1eea-\u1eec\u1eee\u1ef0\u1ef2-\u1eff\u2000-\u200a\u200f"
    "\u2012\u2016-\u2017\u201b\u201f\u2021\u2023-\u2025\u2027-\u202f\u2031\u2034-\u2039\u203c-\u206f"
    "\u20a0-\u20ab\u20ad-\u20cf\u2194-\u21bf\u2300-\u24ff\u2503-\u254f\u2552-\u2556\u2558-\u255c"
    "\u255e-\u2587\u2589-\u2590\u2592-\u259f\u25a1-\u25b9\u25bb-\u25ce\u25d0-\u2604\u2607-\u2633"
    "\u2635-\u263f\u2641-\u2664\u2666-\u2669\u266b-\u2713\u2715-\u27e8\u27ea-\u27ff\u2900-\u2bff"
    "\u3003-\u3009\u3012-\u301b\u301d-\u303f\u3130-\u318f"
)
"""A regex character class body: the characters ``cl100k_base`` encodes as two tokens or more."""

THREE_TOKENS = (
    "\u1d01-\u1d07\u1d09-\u1d5b\u1d5d-\u1d6b\u1d6d-\u1d87\u1d89-\u1d99\u1d9b-\u1dbf\u1e00-\u1e43"
    "\u1e45-\u1e7f\u20c0\u20c2-\u20cf\u2301-\u2327\u2329-\u236f\u2371-\u23b6\u23b8-\u241b"
    "\u241d-\u243f\u2480-\u248b\u248d-\u24cc\u24ce-\u24d7\u24d9-\u24ff\u2680-\u268b\u268d-\u26c3"
    "\u26c5-\u26ff\u2900-\u297e\u2980-\u2981\u2983-\u29ab\u29ad-\u2a20\u2a22-\u2a8b\u2a8d-\u2ad7"
    "\u2ad9-\u2b00\u2b02-\u2b33\u2b35-\u2b37\u2b39-\u2b4f\u2b51-\u2bff\u3130-\u313f\u3180-\u318f"
)
"""A regex character class body: the characters ``cl100k_base`` encodes as three tokens or more."""

SPACE_APART = (
    "\u0101\u0103\u0105\u0107\u0113\u0119\u011b\u011f\u012b\u0131\u0144\u014d\u0151\u0159\u0163\u0165"
    "\u016b\u016f\u0171\u017a\u0180-\u024f\u1e80-\u1efe"
)
"""A regex character class body: the Latin letters ``cl100k_base`` encodes with a space before them as one
token more than alone (the space is a token of its own)."""
