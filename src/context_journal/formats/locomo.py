"""LoCoMo long-term conversations (``locomo10.json`` and its subsets).

Follows the converter SPEC of ``shared/data/locomo/README.md``: one conversation per ``sample_id``
(id ``locomo:<sample_id>``), two participants named by the speakers, one message per turn with the
turn's ``dia_id`` as message id, and a session marker per ``session_N`` (numeric order) in the
conversation's ``metadata["markers"]``. A turn that shares an image gets a second text block
``[shares an image: <blip_caption>]``; ``img_url`` and ``query`` stay in metadata.

Turns carry no time of their own: every turn gets its session's start (parsed from
``session_N_date_time``, naive, stored as UTC) as timestamp, and ``metadata["turn"]`` (0-based index
in the session) keeps the order; no finer time is invented.

QA items are evaluation fixtures, not messages: :func:`load_locomo_qa` returns them as
:class:`LocomoQA` records with normalised evidence ids.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..messages import MessageInput
from .base import Conversation, ImportResult, SkipLog, expect, load_json

__all__ = ["LocomoQA", "load_locomo_qa", "normalise_evidence", "parse_session_time", "read_locomo"]

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"^D(\d+):(\d+)$")
_TIME_FORMAT = "%I:%M %p on %d %B, %Y"
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
"""LoCoMo QA categories as named by the paper's Table 5."""


@dataclass(frozen=True)
class LocomoQA:
    """One LoCoMo question with its gold answer.

    Attributes:
        question_id: ``locomo_<i>_qa<j>`` (i = index of the sample in the file, j = index in its ``qa``
            list), the id the LoCoMo audit and baselines use.
        sample_id: The conversation (``conv-26``...).
        conversation_id: Id of the imported conversation (``locomo:conv-26``).
        question: The question.
        answer: The gold answer as text; for category 5 the adversarial answer.
        category: 1-5 (see :data:`CATEGORY_NAMES`).
        category_name: The category's name.
        evidence: ``dia_id`` values (message ids) that contain the answer, normalised.
        raw_evidence: The evidence list as given.
        dropped_evidence: Evidence tokens that did not resolve to a turn.
        should_abstain: True for category 5 (the question is unanswerable from the conversation).
    """

    question_id: str
    sample_id: str
    conversation_id: str
    question: str
    answer: str
    category: int
    category_name: str
    evidence: tuple[str, ...]
    raw_evidence: tuple[str, ...]
    dropped_evidence: tuple[str, ...]
    should_abstain: bool


def parse_session_time(text: str) -> datetime | None:
    """Parse ``"1:56 pm on 8 May, 2023"`` (naive local time); None when it does not parse."""
    try:
        return datetime.strptime(text.strip(), _TIME_FORMAT)
    except ValueError:
        return None


def _sessions(conv: dict[str, Any]) -> list[tuple[int, str]]:
    found = [(int(m.group(1)), k) for k in conv if (m := _SESSION_KEY.match(k))]
    return sorted(found)


def _samples(path: str, skips: SkipLog) -> list[dict[str, Any]]:
    data = load_json(path, skips)
    expect(isinstance(data, list), "a LoCoMo file is a JSON list of samples", source=path, location="top level")
    for i, sample in enumerate(data):
        expect(
            isinstance(sample, dict)
            and isinstance(sample.get("sample_id"), str)
            and isinstance(sample.get("conversation"), dict),
            "a sample needs 'sample_id' (text) and 'conversation' (object)",
            source=path,
            location=f"[{i}]",
        )
    return list(data)


def read_locomo(path: str | os.PathLike[str], *, data: Any = None) -> ImportResult:
    """Read LoCoMo samples into one conversation each.

    Args:
        path: The JSON file (a list of samples).
        data: The parsed file, when the caller already has it (path is then only named in errors).

    Returns:
        One conversation per sample, none primary.

    Raises:
        ImportFormatError: the file is not a list of samples, or a turn has the wrong shape (names the
            sample index, session and turn index).
    """
    source = os.fspath(path)
    skips = SkipLog()
    samples = _samples(source, skips) if data is None else data
    expect(isinstance(samples, list), "a LoCoMo file is a JSON list of samples", source=source, location="top level")
    conversations: list[Conversation] = []
    for i, sample in enumerate(samples):
        conversations.append(_read_sample(source, i, sample, skips))
    return ImportResult("locomo", source, conversations, skips.report())


def _read_sample(source: str, index: int, sample: dict[str, Any], skips: SkipLog) -> Conversation:
    sid = sample.get("sample_id")
    conv = sample.get("conversation")
    expect(
        isinstance(sid, str) and isinstance(conv, dict),
        "a sample needs 'sample_id' and 'conversation'",
        source=source,
        location=f"[{index}]",
    )
    assert isinstance(sid, str) and isinstance(conv, dict)
    speakers = [conv.get("speaker_a"), conv.get("speaker_b")]
    expect(
        all(isinstance(s, str) and s for s in speakers),
        "the conversation needs 'speaker_a' and 'speaker_b'",
        source=source,
        location=f"[{index}].conversation",
    )
    conv_id = f"locomo:{sid}"
    messages: list[MessageInput] = []
    markers: list[dict[str, Any]] = []
    seen: set[str] = set()
    summaries = sample.get("session_summary") if isinstance(sample.get("session_summary"), dict) else {}
    assert isinstance(summaries, dict)
    for number, key in _sessions(conv):
        turns = conv[key]
        where = f"[{index}].conversation.{key}"
        expect(isinstance(turns, list), "a session is a list of turns", source=source, location=where)
        raw_time = conv.get(f"{key}_date_time")
        start = parse_session_time(raw_time) if isinstance(raw_time, str) else None
        if start is None:
            skips.add("session without a parsable date_time", f"{sid}:{key}")
        marker: dict[str, Any] = {
            "kind": "session",
            "session": number,
            "date_time": raw_time,
            "start": start.isoformat() if start else None,
            "first_message_id": None,
            "message_count": 0,
        }
        if isinstance(summaries.get(f"{key}_summary"), str):
            marker["summary"] = summaries[f"{key}_summary"]
        for k, turn in enumerate(turns):
            twhere = f"{where}[{k}]"
            expect(
                isinstance(turn, dict) and isinstance(turn.get("speaker"), str) and isinstance(turn.get("dia_id"), str),
                "a turn needs 'speaker' and 'dia_id' (text)",
                source=source,
                location=twhere,
            )
            text = turn.get("text")
            expect(
                text is None or isinstance(text, str), "a turn's 'text' must be text", source=source, location=twhere
            )
            dia_id = str(turn["dia_id"])
            if dia_id in seen:
                skips.add("duplicate dia_id", f"{sid}:{dia_id}")
                continue
            blocks: list[dict[str, Any]] = []
            if text and text.strip():
                blocks.append({"type": "text", "text": text})
            caption = turn.get("blip_caption")
            if isinstance(caption, str) and caption.strip():
                blocks.append({"type": "text", "text": f"[shares an image: {caption}]"})
            if not blocks:
                skips.add("turn without text", f"{sid}:{dia_id}")
                continue
            seen.add(dia_id)
            meta: dict[str, Any] = {"session": number, "turn": k, "session_date_time": raw_time}
            for field in ("img_url", "query", "blip_caption", "re-download"):
                if field in turn:
                    meta[field.replace("-", "_")] = turn[field]
            if marker["first_message_id"] is None:
                marker["first_message_id"] = dia_id
                meta["session_start"] = True
            marker["message_count"] += 1
            messages.append(MessageInput(turn["speaker"], blocks, meta, dia_id, start))
        markers.append(marker)
    metadata: dict[str, Any] = {
        "format": "locomo",
        "sample_id": sid,
        "sample_index": index,
        "assistant": None,
        "user": None,
        "speakers": speakers,
        "system_participants": [],
        "tool_participants": [],
        "markers": markers,
        "qa_count": len(sample.get("qa") or []),
    }
    return Conversation(conv_id, messages, metadata, None, False)


def normalise_evidence(raw: Any, known: set[str]) -> tuple[list[str], list[str]]:
    """Split evidence references on ``;``/``,``/whitespace and keep those that name a known ``dia_id``.

    Nothing is guessed: ``"D:11:26"`` or ``"D30:05"`` are dropped, as the data set's SPEC says.

    Args:
        raw: The ``evidence`` list as given (strings; anything else is dropped).
        known: The sample's ``dia_id`` values.

    Returns:
        ``(kept, dropped)``: resolved ids in order without duplicates, and the tokens that did not resolve.
    """
    kept: list[str] = []
    dropped: list[str] = []
    for item in raw if isinstance(raw, list) else [raw]:
        for token in re.split(r"[;,\s]+", str(item)):
            if not token:
                continue
            if token in known:
                if token not in kept:
                    kept.append(token)
            else:
                dropped.append(token)
    return kept, dropped


def load_locomo_qa(path: str | os.PathLike[str], *, data: Any = None) -> list[LocomoQA]:
    """The QA items of a LoCoMo file as evaluation fixtures.

    Args:
        path: The JSON file (a list of samples).
        data: The parsed file, when the caller already has it.

    Returns:
        Every QA item in file order; answers cast to text (category 5 uses ``adversarial_answer``).

    Raises:
        ImportFormatError: the file is not a list of samples, or a QA item has the wrong shape.
    """
    source = os.fspath(path)
    samples = _samples(source, SkipLog()) if data is None else data  # invalid bytes read as U+FFFD, as on import
    out: list[LocomoQA] = []
    for i, sample in enumerate(samples):
        conv = sample["conversation"]
        known = {str(t.get("dia_id")) for _, key in _sessions(conv) for t in conv[key] if isinstance(t, dict)}
        qa = sample.get("qa") or []
        expect(isinstance(qa, list), "'qa' must be a list", source=source, location=f"[{i}].qa")
        for j, item in enumerate(qa):
            where = f"[{i}].qa[{j}]"
            expect(
                isinstance(item, dict) and isinstance(item.get("question"), str),
                "a QA item needs a 'question' (text)",
                source=source,
                location=where,
            )
            category = item.get("category")
            expect(
                isinstance(category, int) and not isinstance(category, bool),
                "a QA item needs an integer 'category'",
                source=source,
                location=where,
            )
            assert isinstance(category, int)
            abstain = category == 5
            answer = item.get("adversarial_answer") if abstain and "adversarial_answer" in item else item.get("answer")
            if answer is None:
                answer = item.get("answer", item.get("adversarial_answer", ""))
            raw = item.get("evidence") or []
            kept, dropped = normalise_evidence(raw, known)
            out.append(
                LocomoQA(
                    question_id=f"locomo_{i}_qa{j}",
                    sample_id=str(sample["sample_id"]),
                    conversation_id=f"locomo:{sample['sample_id']}",
                    question=item["question"],
                    answer="" if answer is None else str(answer),
                    category=category,
                    category_name=CATEGORY_NAMES.get(category, f"category-{category}"),
                    evidence=tuple(kept),
                    raw_evidence=tuple(str(e) for e in (raw if isinstance(raw, list) else [raw])),
                    dropped_evidence=tuple(dropped),
                    should_abstain=abstain,
                )
            )
    return out
