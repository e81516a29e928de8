"""Which symbols, punctuation marks and format characters ``cl100k_base`` encodes alone as two tokens or
more, and which as three or more: the token estimate prices the blocks of ``RANGES`` as one-token
characters and adds each further token of these (kaomoji such as
"(╯°□°)╯︵ ┻━┻" were once estimated at 0.65-0.76x, text with bidirectional marks at 0.60-0.73x).

Generated from tiktoken's ``cl100k_base`` ranks (MIT licence) by
``tests/compile/test_token_estimate_scripts.py::test_the_symbol_table_matches_cl100k`` (it fails,
printing this text, when the table and the encoding disagree): 61 characters are one token,
1,101 two and 1,525 three or more. Do not edit by hand.
"""

from __future__ import annotations

RANGES = (
    (0x0250, 0x02FF),
    (0x1D00, 0x1DBF),
    (0x2000, 0x200C),
    (0x200E, 0x206F),
    (0x20A0, 0x20CF),
    (0x2190, 0x21BF),
    (0x2300, 0x27FF),
    (0x2900, 0x2BFF),
    (0x3000, 0x303F),
)
"""The (first, last) code points the table covers."""

MORE_TOKENS = (
    "\u0250-\u0258\u025a-\u0274\u0276-\u02ff\u1d00-\u1dbf\u2000-\u200a\u200f\u2012\u2016-\u2017\u201b"
    "\u201f\u2021\u2023-\u2025\u2027-\u202f\u2031\u2034-\u2039\u203c-\u206f\u20a0-\u20ab\u20ad-\u20cf"
    "\u2194-\u21bf\u2300-\u24ff\u2503-\u254f\u2552-\u2556\u2558-\u255c\u255e-\u2587\u2589-\u2590"
    "\u2592-\u259f\u25a1-\u25b9\u25bb-\u25ce\u25d0-\u2604\u2607-\u2633\u2635-\u263f\u2641-\u2664"
    "\u2666-\u2669\u266b-\u2713\u2715-\u27e8\u27ea-\u27ff\u2900-\u2bff\u3003-\u3009\u3012-\u301b"
    "\u301d-\u303f"
)
"""A regex character class body: the characters ``cl100k_base`` encodes as two tokens or more."""

THREE_TOKENS = (
    "\u1d01-\u1d07\u1d09-\u1d5b\u1d5d-\u1d6b\u1d6d-\u1d87\u1d89-\u1d99\u1d9b-\u1dbf\u20c0"
    "\u20c2-\u20cf\u2301-\u2327\u2329-\u236f\u2371-\u23b6\u23b8-\u241b\u241d-\u243f\u2480-\u248b"
    "\u248d-\u24cc\u24ce-\u24d7\u24d9-\u24ff\u2680-\u268b\u268d-\u26c3\u26c5-\u26ff\u2900-\u297e"
    "\u2980-\u2981\u2983-\u29ab\u29ad-\u2a20\u2a22-\u2a8b\u2a8d-\u2ad7\u2ad9-\u2b00\u2b02-\u2b33"
    "\u2b35-\u2b37\u2b39-\u2b4f\u2b51-\u2bff"
)
"""A regex character class body: the characters ``cl100k_base`` encodes as three tokens or more."""
