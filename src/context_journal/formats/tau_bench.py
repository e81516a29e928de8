"""tau-bench historical trajectories (``historical_trajectories/<model>-<domain>.json``).

Follows the converter SPEC of ``shared/data/tau-bench-airline/README.md``: one conversation per
trajectory, id ``tau-<domain>:<task_id>:<trial>``, with participants ``policy`` (the system message,
pinned), ``customer:<user_id>`` (role ``user``), ``agent:<model>`` (role ``assistant``) and
``tools:<domain>`` (role ``tool``). Tool calls become ``tool_use`` blocks (arguments parsed from
JSON; the raw string kept when that fails) and tool messages ``tool_result`` blocks with the tool's
``name`` in metadata. There are no timestamps: ``metadata["index"]`` is the position in ``traj``.

The conversation metadata holds ``reward``, the hidden ``instruction`` the simulated customer
follows (never for the agent's view), ``reward_info`` and the whole ``task`` (for an auditor view).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from .base import Conversation, ImportResult, SkipLog, expect, load_json
from .chat_json import OpenAIReader

__all__ = ["read_tau_bench"]


def _guess(stem: str) -> tuple[str, str]:
    """``(domain, model)`` from a file stem such as ``gpt-4o-airline-dev150``."""
    m = re.match(r"^(?P<model>.+?)-(?P<domain>airline|retail)(?:[-_.].*)?$", stem)
    if m:
        return m.group("domain"), m.group("model")
    return "airline", "gpt-4o"


def read_tau_bench(
    path: str | os.PathLike[str], *, data: Any = None, domain: str | None = None, model: str | None = None
) -> ImportResult:
    """Read tau-bench trajectories into one conversation each.

    Args:
        path: The JSON file (a list of trajectories).
        data: The parsed file, when the caller already has it.
        domain: ``airline`` or ``retail`` (default: from the file name, else ``airline``).
        model: The agent's model name (default: from the file name, else ``gpt-4o``).

    Returns:
        One conversation per trajectory, none primary, in file order.

    Raises:
        ImportFormatError: the file is not a list of trajectories, or a message has the wrong shape
            (names the trajectory and message index).
    """
    source = os.fspath(path)
    skips = SkipLog()
    data = load_json(source, skips) if data is None else data
    expect(
        isinstance(data, list), "a tau-bench file is a JSON list of trajectories", source=source, location="top level"
    )
    guessed_domain, guessed_model = _guess(Path(source).stem)
    domain = domain or guessed_domain
    model = model or guessed_model
    conversations: list[Conversation] = []
    seen: set[str] = set()
    for i, traj in enumerate(data):
        where = f"[{i}]"
        expect(
            isinstance(traj, dict) and isinstance(traj.get("traj"), list) and "task_id" in traj,
            "a trajectory needs 'task_id' and a 'traj' list",
            source=source,
            location=where,
        )
        info = traj.get("info") if isinstance(traj.get("info"), dict) else {}
        assert isinstance(info, dict)
        task = info.get("task") if isinstance(info.get("task"), dict) else {}
        assert isinstance(task, dict)
        conv_id = f"tau-{domain}:{traj['task_id']}:{traj.get('trial', 0)}"
        if conv_id in seen:
            skips.add("duplicate trajectory", where)
            continue
        seen.add(conv_id)
        user_id = task.get("user_id") or "unknown"
        names = {
            "system": "policy",
            "user": f"customer:{user_id}",
            "assistant": f"agent:{model}",
            "tool": f"tools:{domain}",
        }
        reader = OpenAIReader(source, skips, names, f"{conv_id}:", user_names=False)
        messages = reader.convert(traj["traj"], f"{where}.traj")
        metadata: dict[str, Any] = {
            "format": "tau-bench",
            "domain": domain,
            "task_id": traj["task_id"],
            "trial": traj.get("trial"),
            "reward": traj.get("reward"),
            "assistant": names["assistant"],
            "user": names["user"],
            "system_participants": [names["system"]],
            "tool_participants": [names["tool"]],
            "instruction": task.get("instruction"),
            "reward_info": info.get("reward_info"),
            "task": task,
            "user_cost": info.get("user_cost"),
            "markers": [],
        }
        conversations.append(Conversation(conv_id, messages, metadata, None, False))
    return ImportResult("tau-bench", source, conversations, skips.report())
