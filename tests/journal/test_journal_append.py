"""The write path on every backend: appended / duplicate / conflict, key reuse, the journal's rules,
validation of bodies, and the reads (get_entry, entries, projects, state)."""

from __future__ import annotations

import pytest

from context_journal.journal import (
    AuthorNotAllowedError,
    EntryNotFoundError,
    EntryValidationError,
    ExecutionJournal,
    IdempotencyKeyReuseError,
)
from context_journal.journal.entries import MAX_BODY_BYTES
from context_journal.stores import JOURNAL_SLOT, ROOT_BRANCH
from tests.journal._journal_helpers import handoff, plan, verification


def test_append_assigns_seqs_and_chains(journal: ExecutionJournal) -> None:
    a = journal.append("p", "plan", plan(), "lead", "k-plan")
    b = journal.append("p", "handoff", handoff(), "ann", "k-1")
    c = journal.append("p", "step", {"report": "ran the tests"}, "ann", "k-2")
    assert [o.status for o in (a, b, c)] == ["appended"] * 3
    assert [o.entry.seq for o in (a, b, c) if o.entry] == [1, 2, 3]
    assert a.entry and b.entry and c.entry
    assert a.entry.prev_hash == "" and b.entry.prev_hash == a.entry.hash and c.entry.prev_hash == b.entry.hash
    assert c.head_seq == 3 and c.head_hash == c.entry.hash
    assert journal.head_seq("p") == 3 and journal.head_seq("other") == 0
    assert journal.verify_chain("p").ok
    # every entry consumed one store-wide sequence, recorded as a marker on the root branch
    store = journal.store
    markers = store.read_slot(JOURNAL_SLOT, store.get_branch(ROOT_BRANCH).id)
    assert [r.seq for r in markers] == [a.entry.store_seq, b.entry.store_seq, c.entry.store_seq]
    assert store.head_seq() == c.entry.store_seq


def test_idempotent_retry_returns_the_original(journal: ExecutionJournal) -> None:
    first = journal.append("p", "handoff", handoff("one"), "ann", "key")
    journal.append("p", "step", {"report": "later work"}, "bob", "key-2")
    again = journal.append("p", "handoff", handoff("one"), "ann", "key", expected_seq=0)  # stale, but a retry
    assert again.status == "duplicate"
    assert again.entry == first.entry
    assert again.head_seq == 2
    assert journal.head_seq("p") == 2


def test_same_key_other_body_is_an_error(journal: ExecutionJournal) -> None:
    journal.append("p", "handoff", handoff("one"), "ann", "key")
    with pytest.raises(IdempotencyKeyReuseError) as err:
        journal.append("p", "handoff", handoff("two"), "ann", "key")
    assert err.value.differs == ["body"] and err.value.seq == 1
    with pytest.raises(IdempotencyKeyReuseError) as err2:
        journal.append("p", "handoff", handoff("one"), "bob", "key")
    assert err2.value.differs == ["author"]
    assert journal.head_seq("p") == 1
    # keys are per project
    assert journal.append("q", "handoff", handoff("two"), "ann", "key").status == "appended"


def test_stale_expected_seq_is_a_conflict_not_an_exception(journal: ExecutionJournal) -> None:
    journal.append("p", "handoff", handoff("one"), "ann", "k1", expected_seq=0)
    ok = journal.append("p", "handoff", handoff("two"), "ann", "k2", expected_seq=1)
    assert ok.status == "appended" and ok.head_seq == 2
    stale = journal.append("p", "handoff", handoff("three"), "bob", "k3", expected_seq=1)
    assert stale.status == "conflict" and not stale.ok
    assert stale.entry is None and stale.head_seq == 2 and stale.head_hash == ok.head_hash
    assert journal.head_seq("p") == 2
    # the key was not consumed by the conflict
    assert journal.append("p", "handoff", handoff("three"), "bob", "k3", expected_seq=2).status == "appended"
    with pytest.raises(ValueError, match="expected_seq"):
        journal.append("p", "handoff", handoff("x"), "bob", "k4", expected_seq=-1)


def test_bodies_are_validated_unknown_fields_refused(journal: ExecutionJournal) -> None:
    bad = [
        ("handoff", {**handoff(), "mood": "great"}, "mood"),
        ("handoff", {"goal": "g", "state": "s"}, "next_step"),
        ("handoff", handoff(ruled_out=[("a", "x", "y"), ("a", "x", "z")]), "unique"),
        ("handoff", handoff(ruled_out=[("bad id!", "x", "y")]), "pattern"),
        ("step", {"report": "x" * 32_001}, "report"),
        ("plan", {"goal": "g", "tasks": []}, "tasks"),
        ("plan", {"goal": "g", "tasks": [{"id": "T1", "title": "t", "conditions": []}]}, "conditions"),
        ("nonsense", {}, "unknown kind"),
    ]
    for kind, body, fragment in bad:
        with pytest.raises(EntryValidationError) as err:
            journal.append("p", kind, body, "ann", f"k-{kind}-{fragment}")
        assert fragment in str(err.value), str(err.value)
        assert "nothing was written" in str(err.value)
    assert journal.head_seq("p") == 0
    huge = handoff(refs=["r" * 1000] * 70)
    with pytest.raises(EntryValidationError, match=f"{MAX_BODY_BYTES:,} byte limit"):
        journal.append("p", "handoff", huge, "ann", "k-huge")
    for slug in ("", "-x", "a b", "x" * 129):
        with pytest.raises(ValueError, match="slug"):
            journal.append(slug, "step", {"report": "r"}, "ann", "k")
    with pytest.raises(ValueError, match="author"):
        journal.append("p", "step", {"report": "r"}, " ", "k")
    with pytest.raises(ValueError, match="idempotency key"):
        journal.append("p", "step", {"report": "r"}, "ann", "")


def test_journal_rules(journal: ExecutionJournal) -> None:
    with pytest.raises(EntryValidationError, match="no plan yet"):
        journal.append("p", "plan_revision", {"replaces": 1, "reason": "r", "tasks": plan()["tasks"]}, "lead", "r0")
    journal.append("p", "plan", plan(tasks=2), "lead", "plan")
    with pytest.raises(EntryValidationError, match="already has a plan"):
        journal.append("p", "plan", plan(), "lead", "plan-2")
    with pytest.raises(EntryValidationError, match="current plan is #1"):
        journal.append("p", "plan_revision", {"replaces": 7, "reason": "r", "tasks": plan()["tasks"]}, "lead", "r1")
    rev = journal.append("p", "plan_revision", {"replaces": 1, "reason": "more", "tasks": plan(3)["tasks"]}, "l", "r2")
    assert rev.entry and journal.state("p").plan and journal.state("p").plan.seq == rev.entry.seq  # type: ignore[union-attr]
    with pytest.raises(EntryValidationError, match="not active"):
        journal.append("p", "reverse_ruleout", {"id": "regex", "reason": "r"}, "ann", "rev-1")
    journal.append("p", "handoff", handoff(ruled_out=[("regex", "regex parser", "cannot nest")]), "ann", "h1")
    assert journal.append("p", "reverse_ruleout", {"id": "regex", "reason": "PCRE"}, "ann", "rev-1").ok
    with pytest.raises(AuthorNotAllowedError, match="harness"):
        journal.append("p", "verification", verification("T1"), "ann", "v1")
    with pytest.raises(EntryValidationError, match="not in the current plan"):
        journal.append("p", "verification", verification("T9"), "harness", "v1")
    with pytest.raises(EntryValidationError, match="exactly one result for each condition"):
        journal.append("p", "verification", verification("T1", conditions=1), "harness", "v1")
    assert journal.append("p", "verification", verification("T1"), "harness", "v1").status == "appended"
    custom = ExecutionJournal(journal.store, harness_authors={"ci"})
    assert custom.append("p", "verification", verification("T2"), "ci", "v2").status == "appended"


def test_reads(journal: ExecutionJournal) -> None:
    journal.append("p", "plan", plan(), "lead", "k0")
    for i in range(1, 8):  # handoffs at seqs 2, 4, 6, 8; steps at 3, 5, 7
        if i % 2:
            journal.append("p", "handoff", handoff(f"s{i}"), "a", f"k{i}")
        else:
            journal.append("p", "step", {"report": f"r{i}"}, "a", f"k{i}")
    journal.append("q", "step", {"report": "other project"}, "a", "k")
    assert journal.projects() == ["p", "q"]
    e = journal.get_entry("p", 4)
    assert e.seq == 4 and e.kind == "handoff" and e.body["state"] == "s3"
    assert e.parsed().state == "s3"  # type: ignore[attr-defined]
    for missing in (0, 9, -1):
        with pytest.raises(EntryNotFoundError, match=r"entries are 1\.\.8"):
            journal.get_entry("p", missing)
    with pytest.raises(KeyError):
        journal.get_entry("nobody", 1)
    assert [x.seq for x in journal.entries("p", after=2, upto=5)] == [3, 4, 5]
    assert [x.seq for x in journal.entries("p", kinds=["step"], descending=True, limit=2)] == [7, 5]
    assert journal.state("p", as_of=3).head_seq == 3 and journal.state("p").head_seq == 8


def test_two_journals_on_one_store_see_each_other(journal: ExecutionJournal) -> None:
    other = ExecutionJournal(journal.store)
    journal.append("p", "handoff", handoff(ruled_out=[("a", "A", "ra")]), "ann", "k1")
    assert other.state("p").active_ids() == {"a"}
    other.append("p", "handoff", handoff(ruled_out=[("b", "B", "rb")]), "bob", "k2")
    assert journal.state("p").active_ids() == {"a", "b"}
    assert journal.append("p", "reverse_ruleout", {"id": "b", "reason": "back"}, "ann", "k3").ok


def test_a_failed_transaction_writes_nothing(journal: ExecutionJournal) -> None:
    journal.append("p", "handoff", handoff("one"), "ann", "k1")
    store = journal.store
    with pytest.raises(RuntimeError), store.transaction():
        journal.append("p", "handoff", handoff("two"), "ann", "k2")  # joins the outer transaction
        raise RuntimeError("the host's outer transaction fails")
    assert journal.head_seq("p") == 1
    assert store.journal_row_by_key("p", "k2") is None
    assert journal.state("p").head_seq == 1
    assert journal.append("p", "handoff", handoff("two"), "ann", "k2").entry.seq == 2  # type: ignore[union-attr]
    assert journal.verify_chain("p").ok
