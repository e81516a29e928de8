"""The synthesizer through the LLM layer: scripted good, rule-out-dropping, rule-out-inventing, stale and
uncited briefs (each bad one rejected or rebuilt, findings stored); the offline default; cumulative mode;
versioning; the token-threshold trigger; the narrative parser."""

from __future__ import annotations

import json

import pytest

from context_journal.journal import Brief, ExecutionJournal, SynthesisConfig, parse_narrative
from context_journal.journal.synthesis import parse_draft
from context_journal.llm import LLMRequest
from context_journal.testing import ScriptedProvider
from tests.journal._journal_helpers import handoff, plan

RULES = [("regex", "regex parser", "cannot nest"), ("lalr", "LALR tables", "too slow")]


def _project(journal: ExecutionJournal, steps: int = 4) -> None:
    journal.append("p", "plan", plan(tasks=2), "lead", "plan")
    for i in range(steps):
        rules = [RULES[i]] if i < len(RULES) else []
        journal.append("p", "handoff", handoff(f"state {i}. Tried thing {i}.", ruled_out=rules), "ann", f"h{i}")


def _draft(head: int, *, rule_outs: list[object] | None = None, narrative: object = None, **extra: object) -> str:
    body: dict[str, object] = {
        "as_of_seq": head,
        "rule_outs": ["regex", "lalr"] if rule_outs is None else rule_outs,
        "narrative": narrative if narrative is not None else [{"text": "The parser is half done", "cites": [head]}],
    }
    body.update(extra)
    return json.dumps(body)


def test_good_brief_is_accepted(journal: ExecutionJournal) -> None:
    _project(journal)
    provider = ScriptedProvider([_draft(5)])
    brief = journal.build_brief("p", provider=provider)
    assert (brief.status, brief.version, brief.findings) == ("accepted", 1, [])
    assert brief.narrative_text() == "The parser is half done [#5]"
    assert [r.id for r in brief.rule_outs] == ["regex", "lalr"] and brief.as_of_seq == 5
    assert brief.provider == "scripted" and brief.model == "scripted"
    assert journal.get_brief("p") == brief
    request: LLMRequest = provider.requests[0]
    assert "regex, lalr" in request.system_text and "[#5]" in request.messages[0].content[0].text  # type: ignore[union-attr]
    provider.assert_exhausted()


def test_rule_out_dropping_brief_is_rebuilt(journal: ExecutionJournal) -> None:
    _project(journal)
    brief = journal.build_brief("p", provider=ScriptedProvider([_draft(5, rule_outs=["lalr"])]))
    assert brief.status == "rebuilt"
    assert [r.id for r in brief.rule_outs] == ["regex", "lalr"]  # the fold's, never the draft's
    assert [(f.code, f.subject, f.evidence) for f in brief.errors] == [("ruleout_dropped", "regex", [2])]
    assert brief.narrative_text() == "The parser is half done [#5]"  # well-cited claims survive
    assert journal.check_drift("p").ok


def test_rule_out_inventing_brief_is_rebuilt(journal: ExecutionJournal) -> None:
    _project(journal)
    draft = _draft(5, rule_outs=["regex", "lalr", {"id": "peg", "item": "PEG", "reason": "made up"}])
    brief = journal.build_brief("p", provider=ScriptedProvider([draft]))
    assert brief.status == "rebuilt" and [r.id for r in brief.rule_outs] == ["regex", "lalr"]
    assert [(f.code, f.subject) for f in brief.errors] == [("ruleout_invented", "peg")]


def test_stale_brief_is_rejected_and_not_current(journal: ExecutionJournal) -> None:
    _project(journal, steps=4)
    first = journal.build_brief("p", provider=ScriptedProvider([_draft(5)]))
    for i in range(25):
        journal.append("p", "step", {"report": f"more work {i}"}, "ann", f"s{i}")
    stale = journal.build_brief("p", provider=ScriptedProvider([_draft(5, narrative=[{"text": "old", "cites": [3]}])]))
    assert stale.status == "rejected" and stale.version == 2
    assert [(f.code, f.evidence) for f in stale.errors if f.code == "brief_stale"] == [("brief_stale", [6, 30])]
    assert journal.get_brief("p") == first  # the current brief is still v1
    assert journal.get_brief("p", version=2) == stale
    assert [b.version for b in journal.list_briefs("p")] == [1, 2]
    drift = journal.check_drift("p")  # v1 is now stale against the head too
    assert not drift.ok and drift.brief_version == 1 and drift.findings[0].code == "brief_stale"
    assert journal.check_drift("p", stale_after=100).ok
    with pytest.raises(ValueError, match="no brief v9"):
        journal.check_drift("p", brief_version=9)


def test_uncited_brief_is_rebuilt_without_the_uncited_claims(journal: ExecutionJournal) -> None:
    _project(journal)
    text = "We tried regex [#2] and LALR [#3].\nEverything else is fine.\nThe next step is a PEG [#99]."
    brief = journal.build_brief("p", provider=ScriptedProvider([text]))  # plain text: a narrative only
    assert brief.status == "rebuilt"
    assert [(f.code, f.subject) for f in brief.errors] == [
        ("uncited_claim", "narrative[2]"),
        ("bad_citation", "narrative[3]"),
    ]
    assert brief.narrative_text() == "We tried regex [#2]\nand LALR [#3]"
    assert journal.check_drift("p").ok


def test_offline_default_writes_cited_claims_only(journal: ExecutionJournal) -> None:
    _project(journal, steps=3)
    brief = journal.build_brief("p")
    assert brief.status == "accepted" and brief.provider == "offline", brief.findings
    assert brief.narrative and all(c.cites and 1 <= min(c.cites) <= max(c.cites) <= 4 for c in brief.narrative)
    assert journal.check_drift("p").ok


def test_cumulative_mode_continues_the_previous_brief(journal: ExecutionJournal) -> None:
    _project(journal, steps=2)
    journal.build_brief("p", provider=ScriptedProvider([_draft(3, narrative=[{"text": "regex failed", "cites": [2]}])]))
    journal.append("p", "handoff", handoff("new state"), "bob", "h-new")
    provider = ScriptedProvider([_draft(4, narrative="regex failed [#2]. Bob took over [#4].")])
    brief = journal.build_brief("p", provider=provider, config=SynthesisConfig(mode="cumulative"))
    assert brief.status == "accepted" and brief.mode == "cumulative" and brief.previous_version == 1
    assert brief.cite_from == 1 and [c.cites for c in brief.narrative] == [[2], [4]]
    sent = provider.requests[0].messages[0].content[0].text  # type: ignore[union-attr]
    assert sent.startswith("regex failed [#2]") and "[#3]" not in sent  # the old claims, then #4 only
    # without a previous brief, cumulative falls back to windowed
    other = ExecutionJournal(journal.store)
    other.append("q", "handoff", handoff("x"), "ann", "q1")
    assert other.build_brief("q", config=SynthesisConfig(mode="cumulative")).mode == "windowed"


def test_windowed_mode_reads_the_last_n_entries(journal: ExecutionJournal) -> None:
    _project(journal, steps=4)
    provider = ScriptedProvider([_draft(5, narrative=[{"text": "plan", "cites": [1]}])])
    brief = journal.build_brief("p", provider=provider, config=SynthesisConfig(window=2))
    assert brief.cite_from == 4 and brief.status == "rebuilt"  # #1 is outside the window
    assert [f.code for f in brief.errors] == ["bad_citation"]
    sent = provider.requests[0].messages[0].content[0].text  # type: ignore[union-attr]
    assert "[#4]" in sent and "[#3]" not in sent


def test_a_failing_provider_stores_nothing(journal: ExecutionJournal) -> None:
    from context_journal.llm import ProviderTransientError

    _project(journal)
    with pytest.raises(ProviderTransientError):
        journal.build_brief("p", provider=ScriptedProvider([ProviderTransientError("overloaded", provider="x")]))
    assert journal.get_brief("p") is None and journal.list_briefs("p") == []
    with pytest.raises(ValueError, match="no entries"):
        journal.build_brief("empty")


def test_trigger_says_when_a_brief_is_needed(journal: ExecutionJournal) -> None:
    journal.append("p", "plan", plan(), "lead", "plan")
    for i in range(3):
        journal.append("p", "handoff", handoff(f"state {i} " + "words " * 50), "ann", f"h{i}")
    small = journal.brief_needed("p", threshold_tokens=10_000)
    assert not small.needed and small.uncovered_handoffs == 3 and small.brief_version is None
    big = journal.brief_needed("p", threshold_tokens=100)
    assert big.needed and "exceed 100 tokens" in big.reason
    journal.build_brief("p")
    after = journal.brief_needed("p", threshold_tokens=100)
    assert not after.needed and after.uncovered_handoffs == 0 and after.brief_version == 1


def test_parse_narrative_and_drafts() -> None:
    claims = parse_narrative("- Tried regex [#2][#3]. Then LALR [#4, #5]; done\n\n* plain claim\n[#7]")
    assert [(c.text, c.cites) for c in claims] == [
        ("Tried regex", [2, 3]),
        ("Then LALR", [4, 5]),
        ("done", []),
        ("plain claim", []),
    ]
    fenced = parse_draft('Here it is:\n```json\n{"as_of_seq": 3, "narrative": "x [#1]"}\n```')
    assert fenced.as_of_seq == 3 and [c.cites for c in fenced.claims()] == [[1]]
    plain = parse_draft("{not json at all [#2]")
    assert plain.as_of_seq is None and plain.claims()[0].cites == [2]
    mixed = parse_draft(json.dumps({"narrative": ["a [#1]", {"claim": "b", "cites": ["#2", "x"]}, {"text": "c [#3]"}]}))
    assert [(c.text, c.cites) for c in mixed.claims()] == [("a", [1]), ("b", [2]), ("c", [3])]
    assert Brief(project="p", as_of_seq=0).narrative_text() == ""
