"""Journal hashes over RFC 8785 canonical JSON (hash version 2), beside the entries written before (version 1).

* RFC 8785's own examples (section 3.2.2, the key order of 3.2.3, numbers of appendix B) give the expected
  bytes, and an entry's hash is the sha256 of bytes written out by hand here.
* A journal of version-1 rows (written the way the library wrote them before, hashes computed here with
  ``hashlib``) still verifies, and so does one that goes on with version-2 entries; a redacted entry of
  either version verifies as before; a retried key of a version-1 entry is still a duplicate.
* Tampering is detected under both versions, including with the version key itself.
* Values RFC 8785 cannot hash are refused at append with :class:`EntryValidationError` naming the field.
* Property: under version 2 the hash does not depend on key order, nor on ``1`` versus ``1.0``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import sqlite3
import struct
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal.journal import (
    EntryValidationError,
    ExecutionJournal,
    IdempotencyKeyReuseError,
    JournalIntegrityError,
    entry_hash,
)
from context_journal.journal.chain import (
    HASH_VERSION,
    HASH_VERSION_KEY,
    body_hash_version,
    canonical_bytes,
    jcs_problem,
    verify_chain,
)
from context_journal.journal.entries import parse_body
from context_journal.journal.integrity import row_problem
from context_journal.stores import ROOT_BRANCH, JournalRow, SQLiteStore, Store
from tests.hypothesis_budget import examples
from tests.journal._journal_helpers import handoff, plan


def _sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def _old_json(value: Any) -> str:
    """Hash version 1's form, spelled out here rather than taken from the library."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _write_v1(store: Store, project: str, items: list[tuple[str, dict[str, Any], str, str]]) -> None:
    """Append ``(kind, body, author, key)`` rows exactly as the journal wrote them before hash version 2."""
    head = store.journal_head(project)
    prev, seq = (head.hash, head.seq) if head else ("", 0)
    root = store.get_branch(ROOT_BRANCH).id
    for kind, body, author, key in items:
        seq += 1
        data = parse_body(kind, body).model_dump(mode="json")
        digest = _sha(_old_json([prev, project, seq, kind, author, data]))
        with store.transaction() as txn:
            txn.lock_journal(project)
            txn.append_journal(root, project, seq, kind, author, key, _old_json(data), prev, digest)
        prev = digest


# ---- RFC 8785 vectors ---------------------------------------------------------------------------------------

RFC_3_2_2_INPUT = r"""{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"""
RFC_3_2_2_OUTPUT = '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' + (
    '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
)

RFC_3_2_3_INPUT = r"""{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}"""
RFC_3_2_3_VALUES = [  # the order RFC 8785 section 3.2.3 prints (UTF-16 code units: the emoji before U+FB33)
    "Carriage Return",
    "One",
    "Control",
    "Latin Small Letter O With Diaeresis",
    "Euro Sign",
    "Emoji: Grinning Face",
    "Hebrew Letter Dalet With Dagesh",
]

RFC_APPENDIX_B = [  # IEEE-754 bits -> the number's text
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


def test_rfc8785_section_3_2_2_example() -> None:
    value = json.loads(RFC_3_2_2_INPUT)
    assert canonical_bytes(value, 2) == RFC_3_2_2_OUTPUT.encode("utf-8")
    # where version 1 (Python's own spelling) differs from RFC 8785
    assert canonical_bytes([1.0, 1e-7, 1e20, 1e21], 1) == b"[1.0,1e-07,1e+20,1e+21]"
    assert canonical_bytes([1.0, 1e-7, 1e20, 1e21], 2) == b"[1,1e-7,100000000000000000000,1e+21]"


def test_rfc8785_key_order_by_utf16_code_units() -> None:
    value = json.loads(RFC_3_2_3_INPUT)
    out = canonical_bytes(value, 2)
    assert list(json.loads(out).values()) == RFC_3_2_3_VALUES
    expected = (
        '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",'
        '"€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'
    )
    assert out == expected.encode("utf-8")
    # version 1 (Python's sort by code point) puts U+FB33 before the emoji: the difference the versions fix
    assert list(json.loads(canonical_bytes(value, 1)).values())[-2:] == RFC_3_2_3_VALUES[-1:] + RFC_3_2_3_VALUES[-2:-1]


@pytest.mark.parametrize(("bits", "text"), RFC_APPENDIX_B)
def test_rfc8785_appendix_b_numbers(bits: str, text: str) -> None:
    (number,) = struct.unpack(">d", bytes.fromhex(bits))
    assert canonical_bytes(number, 2) == text.encode("ascii")
    assert canonical_bytes([number], 2) == f"[{text}]".encode("ascii")


def test_entry_hash_is_sha256_of_the_rfc8785_bytes() -> None:
    body = {"😀": 1.0, "\ufb33": 1e21, "€": [1.0, 4.50, None, True], "a": "naïve\n"}
    expected = '["","p",1,"step","ann",{"[hash_version]":2,"a":"naïve\\n","€":[1,4.5,null,true],"😀":1,"\ufb33":1e+21}]'
    assert entry_hash("", "p", 1, "step", "ann", body, hash_version=2) == _sha(expected)
    assert entry_hash("", "p", 1, "step", "ann", {**body, HASH_VERSION_KEY: 2}) == _sha(expected)
    assert entry_hash("", "p", 1, "step", "ann", json.dumps({**body, HASH_VERSION_KEY: 2})) == _sha(expected)
    old = '["","p",1,"step","ann",{"a":"naïve\\n","€":[1.0,4.5,null,true],"\ufb33":1e+21,"😀":1.0}]'
    assert entry_hash("", "p", 1, "step", "ann", body) == _sha(old)  # no key: version 1
    assert entry_hash("", "p", 1, "step", "ann", body, hash_version=1) == _sha(old)
    with pytest.raises(ValueError, match="hash version"):
        entry_hash("", "p", 1, "step", "ann", {**body, HASH_VERSION_KEY: 2}, hash_version=1)
    for bad in (1, 3, "2", 2.0, True, None):
        with pytest.raises(ValueError, match="unknown hash version"):
            entry_hash("", "p", 1, "step", "ann", {**body, HASH_VERSION_KEY: bad})
    with pytest.raises(ValueError):
        entry_hash("", "p", 2**53, "step", "ann", body, hash_version=2)  # a seq RFC 8785 cannot hash
    # RFC 8785 numbers are doubles: 2**53 as a float is stored as "9007199254740992" and read back as one
    big = {"n": float(2**53), HASH_VERSION_KEY: 2}
    stored = canonical_bytes(big, 2).decode("utf-8")
    assert stored == '{"[hash_version]":2,"n":9007199254740992}'
    assert entry_hash("", "p", 1, "step", "ann", stored) == entry_hash("", "p", 1, "step", "ann", big)
    assert entry_hash("", "p", 1, "step", "ann", '{"[hash_version]":2,"n":9007199254740993}') == (
        entry_hash("", "p", 1, "step", "ann", big)  # the same double, as a JavaScript verifier reads it
    )


def test_appended_entries_hash_rfc8785_of_what_is_stored(journal: ExecutionJournal) -> None:
    assert HASH_VERSION == 2
    first = journal.append("p", "plan", plan(tasks=1, conditions=1, goal="Ship ünïcode 😀"), "lead", "k1").entry
    step = {"report": "naïve 😀 \u2028 done", "task_id": "T1"}
    second = journal.append("p", "step", step, "ann", "k2").entry
    assert first is not None and second is not None
    assert (first.hash_version, second.hash_version) == (2, 2)
    assert second.body == step and HASH_VERSION_KEY not in second.body
    expected_first = (
        '["","p",1,"plan","lead",{"[hash_version]":2,"goal":"Ship ünïcode 😀","tasks":[{"conditions":'
        '[{"check":"pytest -k t1_1","description":"condition 1 of T1 holds","id":"c1"}],"id":"T1",'
        '"title":"Task number 1"}]}]'
    )
    assert first.hash == _sha(expected_first)
    expected_second = (
        f'["{first.hash}","p",2,"step","ann",{{"[hash_version]":2,"report":"naïve 😀 \u2028 done","task_id":"T1"}}]'
    )
    assert second.hash == _sha(expected_second)
    row = journal._store.journal_rows("p", after=1)[0]
    assert row.body == '{"[hash_version]":2,"report":"naïve 😀 \u2028 done","task_id":"T1"}'  # stored RFC 8785
    assert entry_hash(second.prev_hash, "p", 2, "step", "ann", second.body, hash_version=second.hash_version) == (
        second.hash
    )
    assert journal.verify_chain("p").ok


# ---- version 1 journals, and journals mixing both ---------------------------------------------------------


def test_version_1_journal_verifies_and_continues_with_version_2(store: Store) -> None:
    _write_v1(
        store,
        "p",
        [
            ("plan", plan(goal="Ship 😀 parser"), "lead", "k1"),
            ("handoff", handoff("state ünï 1"), "ann", "k2"),
            ("handoff", handoff("state 2"), "ann", "k3"),
        ],
    )
    journal = ExecutionJournal(store)
    report = journal.verify_chain("p")
    assert report.ok and report.checked == 3, report
    assert [e.hash_version for e in journal.entries("p")] == [1, 1, 1]
    assert verify_chain(store.journal_rows("p")).ok
    # a retry of a version-1 entry's key is still the same entry
    again = journal.append("p", "handoff", handoff("state 2"), "ann", "k3")
    assert again.status == "duplicate" and again.entry is not None and again.entry.seq == 3
    for i in (4, 5):
        journal.append("p", "handoff", handoff(f"state {i}"), "ann", f"k{i}")
    entries = journal.entries("p")
    assert [e.hash_version for e in entries] == [1, 1, 1, 2, 2]
    assert entries[3].prev_hash == entries[2].hash
    assert ExecutionJournal(store).verify_chain("p").ok
    assert verify_chain(store.journal_rows("p")).ok
    for e in entries:  # each entry recomputes from its public fields
        assert entry_hash(e.prev_hash, e.project, e.seq, e.kind, e.author, e.body, hash_version=e.hash_version) == (
            e.hash
        )
    if store.can_redact:  # a redacted entry of either version verifies as it did before
        journal.redact_entry("p", 2, reason="test v1")
        journal.redact_entry("p", 4, reason="test v2")
        report = ExecutionJournal(store).verify_chain("p")
        assert report.ok and report.redacted == (2, 4), report
        assert [e.hash_version for e in journal.entries("p")] == [1, None, 1, None, 2]
        for key, state in (("k2", "state ünï 1"), ("k4", "state 4")):
            retry = journal.append("p", "handoff", handoff(state), "ann", key)
            assert retry.status == "duplicate" and retry.entry is not None and retry.entry.redacted
        with pytest.raises(IdempotencyKeyReuseError, match="body"):
            journal.append("p", "handoff", handoff("another state"), "ann", "k2")


def _replace_body(row: JournalRow, edit: Any) -> JournalRow:
    data = json.loads(row.body)
    edit(data)
    return dataclasses.replace(row, body=json.dumps(data))


def test_tampering_is_detected_under_both_versions(store: Store) -> None:
    _write_v1(store, "p", [("plan", plan(), "lead", "k1"), ("handoff", handoff("one"), "ann", "k2")])
    journal = ExecutionJournal(store)
    journal.append("p", "handoff", handoff("two"), "ann", "k3")
    journal.append("p", "handoff", handoff("three"), "ann", "k4")
    rows = store.journal_rows("p")
    assert [body_hash_version(json.loads(r.body)) for r in rows] == [1, 1, 2, 2]
    assert all(row_problem(r) is None for r in rows)
    tampers = {
        "v1 state": (1, lambda d: d.update(state="forged")),
        "v2 state": (2, lambda d: d.update(state="forged")),
        "v2 key removed": (2, lambda d: d.pop(HASH_VERSION_KEY)),
        "v1 key added": (1, lambda d: d.update({HASH_VERSION_KEY: 2})),
        "v2 unknown version": (3, lambda d: d.update({HASH_VERSION_KEY: 3})),
        "v2 refs": (3, lambda d: d.update(refs=["x"])),
    }
    for name, (index, edit) in tampers.items():
        forged = list(rows)
        forged[index] = _replace_body(rows[index], edit)
        report = verify_chain(forged)
        assert not report.ok and report.first_bad_seq == index + 1, name
        reason = row_problem(forged[index])
        assert reason is not None, name
        if "unknown" in name:
            assert "unknown hash version 3" in reason and "unknown hash version 3" in report.reason
    # a body edited in place to another JSON spelling of the same value still verifies (1.0, key order)
    respelled = [dataclasses.replace(r, body=json.dumps(dict(reversed(json.loads(r.body).items())))) for r in rows]
    assert verify_chain(respelled).ok


def _raw_body(path: Path, seq: int, body: str | None = None) -> str:
    """Entry ``seq``'s stored body; with ``body``, write it there first, the guards lifted (as a database
    owner can) and put back."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        if body is not None:
            triggers = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
            for name, _ in triggers:
                conn.execute(f"DROP TRIGGER {name}")
            conn.execute("UPDATE journal_entries SET body = ? WHERE seq = ?", (body, seq))
            for _, sql in triggers:
                conn.execute(sql)
        (text,) = conn.execute("SELECT body FROM journal_entries WHERE seq = ?", (seq,)).fetchone()
        return str(text)
    finally:
        conn.close()


def test_tampering_in_the_database_is_detected_under_both_versions(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    store = SQLiteStore(path)
    _write_v1(store, "p", [("plan", plan(), "lead", "k1"), ("handoff", handoff("one"), "ann", "k2")])
    ExecutionJournal(store).append("p", "handoff", handoff("two"), "ann", "k3")
    store.close()
    for seq, version in ((2, 1), (3, 2)):
        original = _raw_body(path, seq)
        assert body_hash_version(json.loads(original)) == version
        _raw_body(path, seq, original.replace('"one"' if seq == 2 else '"two"', '"forged"'))
        store = SQLiteStore(path)
        report = ExecutionJournal(store).verify_chain("p")
        assert not report.ok and report.first_bad_seq == seq and "does not match its hash" in report.reason
        with pytest.raises(JournalIntegrityError):
            ExecutionJournal(store).append("p", "handoff", handoff("four"), "ann", "k4")
        store.close()
        _raw_body(path, seq, original)
        store = SQLiteStore(path)
        assert ExecutionJournal(store).verify_chain("p").ok
        store.close()


# ---- what RFC 8785 cannot hash ------------------------------------------------------------------------------


def test_values_rfc8785_cannot_hash_are_refused_naming_the_field(journal: ExecutionJournal) -> None:
    journal.append("p", "plan", plan(), "lead", "k1")
    revision = {"replaces": 2**53, "reason": "too far", "tasks": plan()["tasks"]}
    with pytest.raises(EntryValidationError, match=r"replaces: the integer 9007199254740992 is beyond"):
        journal.append("p", "plan_revision", revision, "lead", "k2")
    # a lone surrogate is refused by the schema already, naming the field (and by jcs_problem below)
    with pytest.raises(EntryValidationError, match=r"report: Input should be a valid string"):
        journal.append("p", "step", {"report": "half \ud800 a pair"}, "ann", "k3")
    assert journal.head_seq("p") == 1
    assert jcs_problem({"a": [1, math.nan]}) == "a.1: nan is not a JSON number (RFC 8785 has no NaN or Infinity)"
    assert jcs_problem({"a": {"b": -math.inf}}) == "a.b: -inf is not a JSON number (RFC 8785 has no NaN or Infinity)"
    assert jcs_problem({"a": {1: "x"}}) == "a: key 1 is not text" and jcs_problem(math.nan) is not None
    assert jcs_problem({"refs": ["ok", "\udfff"]}) == "refs.1: the text holds a lone surrogate (not valid UTF-8)"
    assert jcs_problem({"\udfff": 1}) == "\udfff (key): the text holds a lone surrogate (not valid UTF-8)"
    assert jcs_problem({"a": [2**53 - 1, -(2**53 - 1), 1.5, True, None, "😀"]}) is None
    assert (
        jcs_problem([-(2**53)])
        == "0: the integer -9007199254740992 is beyond ±(2**53 - 1), which RFC 8785 cannot hash exactly"
    )
    for bad in (math.nan, math.inf, 2**53, {1: 2}, "\ud800"):
        with pytest.raises(ValueError):
            canonical_bytes(bad, 2)


# ---- property: key order and 1 versus 1.0 ---------------------------------------------------------------------

_SAFE = 2**53 - 1
_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=6)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-_SAFE, _SAFE) | st.floats(allow_nan=False, allow_infinity=False) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=20,
)


def _permuted(value: Any, rnd: Any) -> Any:
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        return {k: _permuted(value[k], rnd) for k in keys}
    if isinstance(value, list):
        return [_permuted(v, rnd) for v in value]
    return value


def _floated(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _floated(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floated(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)  # exact: |value| <= 2**53 - 1
    return value


@settings(max_examples=examples(200), deadline=None)
@given(body=st.dictionaries(_text, _json, max_size=5), rnd=st.randoms(use_true_random=False))
def test_version_2_hash_ignores_key_order_and_int_float_spelling(body: dict[str, Any], rnd: Any) -> None:
    digest = entry_hash("h", "p", 7, "step", "ann", body, hash_version=2)
    assert entry_hash("h", "p", 7, "step", "ann", _permuted(body, rnd), hash_version=2) == digest
    assert entry_hash("h", "p", 7, "step", "ann", _floated(body), hash_version=2) == digest
    text = json.dumps(_permuted({**body, HASH_VERSION_KEY: 2}, rnd))
    assert entry_hash("h", "p", 7, "step", "ann", text) == digest  # from stored text, any spelling
    payload = canonical_bytes(["h", "p", 7, "step", "ann", {**body, HASH_VERSION_KEY: 2}], 2)
    assert digest == _sha(payload)
    stored = canonical_bytes({**body, HASH_VERSION_KEY: 2}, 2).decode("utf-8")  # as an append stores it
    assert entry_hash("h", "p", 7, "step", "ann", stored) == digest  # reads back to the same hash
    assert jcs_problem(body) is None
