"""What a tool call says about the working state: files touched, commands run, plans written.

A small public mapping, tool name -> :class:`ToolSpec` (files and commands) or :class:`PlanShape`
(plan/todo structures), covers the common shapes out of the box: Claude Code (``Read``, ``Edit``,
``MultiEdit``, ``Write``, ``NotebookEdit``, ``Glob``, ``Grep``, ``LS``, ``Bash``, ``WebFetch``'s URL,
``TodoWrite``), OpenAI/Codex (``shell``, ``local_shell``, ``exec_command``, ``apply_patch``, ``update_plan``), the
Anthropic text editor (``str_replace_based_edit_tool``, ``str_replace_editor``) and the MCP filesystem
server (``read_file``, ``write_file``, ``edit_file``, ``move_file``, ...), and the provider-side tools of
:data:`SERVER_TOOLS` (``web_fetch``, ``bash_code_execution``, ``code_execution``,
``text_editor_code_execution``; an ``mcp_tool_use`` is looked up like any call). A host adds or overrides
entries through :class:`~context_journal.state.LedgerConfig` (``tools=``, ``plan_tools=``).

Names are looked up whole, then without an MCP prefix (``mcp__filesystem__read_file`` ->
``read_file``), then after the last dot (``functions.shell`` -> ``shell``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFAULT_PLAN_TOOLS",
    "DEFAULT_TOOLS",
    "SERVER_TOOLS",
    "PlanShape",
    "ToolSpec",
    "command_files",
    "command_text",
    "lookup",
    "patch_files",
]


@dataclass(frozen=True)
class ToolSpec:
    """How a tool's input names files or a command.

    Attributes:
        action: The action recorded for the paths (``"read"``, ``"edited"``, ``"written"``,
            ``"created"``, ``"deleted"``, ``"searched"``, ``"listed"``...).
        paths: Input keys holding a path (or a list of paths). A mapping gives each key its own action
            (``{"source": "moved away", "destination": "created"}``).
        command: Input key holding a shell command (a string, or an argv list).
        patch: Input key holding an ``apply_patch`` patch (``*** Update File: path`` lines).
        action_key: Input key whose value picks the action from ``actions`` (the text editor's
            ``command``: ``view``, ``create``, ``str_replace``...).
        actions: ``action_key`` value -> action; values not listed use ``action``.
    """

    action: str = "read"
    paths: Sequence[str] | Mapping[str, str] = ()
    command: str | None = None
    patch: str | None = None
    action_key: str | None = None
    actions: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _name("ToolSpec.action", self.action)
        if isinstance(self.paths, Mapping):
            for key, act in self.paths.items():
                _name("ToolSpec.paths key", key)
                _name(f"ToolSpec.paths[{key!r}]", act)
        else:
            _names("ToolSpec.paths", self.paths)
        for attr in ("command", "patch", "action_key"):
            if getattr(self, attr) is not None:
                _name(f"ToolSpec.{attr}", getattr(self, attr))
        if not isinstance(self.actions, Mapping):
            raise TypeError(f"ToolSpec.actions must be a mapping of input value -> action, got {self.actions!r}")
        for key, act in self.actions.items():
            _name("ToolSpec.actions key", key)
            _name(f"ToolSpec.actions[{key!r}]", act)
        # (input key, its own action or None: the spec's) pairs, made once (the fold reads them per call)
        keyed = tuple(self.paths.items()) if isinstance(self.paths, Mapping) else tuple((k, None) for k in self.paths)
        object.__setattr__(self, "_keyed", keyed)

    def path_actions(self, tool_input: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
        """``(path, action)`` for every path the input names."""
        return iter(self.path_list(tool_input))

    def path_list(self, tool_input: Mapping[str, Any]) -> list[tuple[str, str]]:
        """:meth:`path_actions` as a list."""
        action = self.action
        if self.action_key is not None:
            picked = tool_input.get(self.action_key)
            if isinstance(picked, str):
                action = self.actions.get(picked, action)
        out: list[tuple[str, str]] = []
        keyed: tuple[tuple[str, str | None], ...] = self._keyed  # type: ignore[attr-defined]
        for key, act in keyed:
            value = tool_input.get(key)
            if value is None:
                continue
            if isinstance(value, str):
                value = value.strip()
                if value:
                    out.append((value, act or action))
            elif isinstance(value, list):
                for v in value[:64]:
                    if isinstance(v, str) and v.strip():
                        out.append((v.strip(), act or action))
        return out


@dataclass(frozen=True)
class PlanShape:
    """Where a plan tool keeps its items.

    Attributes:
        items: Input key of the list of items (``"todos"``, ``"plan"``).
        text: Keys tried in order for an item's text.
        status: Key of an item's status.
        note: Input key of a note on the whole plan (``update_plan``'s ``explanation``), if any.
    """

    items: str = "items"
    text: Sequence[str] = ("content", "step", "text", "title", "task", "description")
    status: str = "status"
    note: str | None = None

    def __post_init__(self) -> None:
        _name("PlanShape.items", self.items)
        _names("PlanShape.text", self.text)
        if not self.text:
            raise ValueError("PlanShape.text must name at least one key of an item's text")
        _name("PlanShape.status", self.status)
        if self.note is not None:
            _name("PlanShape.note", self.note)


def _name(what: str, value: object) -> None:
    """``value`` must be a non-blank string (an input key, an action): a typo'd shape is an error at
    configuration, not a tool call silently ignored or a crash at the first fold."""
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{what} must be a non-blank string, got {value!r}")


def _names(what: str, values: object) -> None:
    """``values`` must be a list or tuple of non-blank strings (a bare string is refused: ``"path"``
    would be read as the keys ``p``, ``a``, ``t``, ``h``)."""
    if isinstance(values, str) or not isinstance(values, list | tuple):
        raise TypeError(f"{what} must be a list or tuple of strings, got {values!r}")
    for v in values:
        _name(f"{what} item", v)


def check_table(what: str, table: object, kind: type) -> None:
    """``table`` must map non-blank tool names to ``kind`` instances (raises TypeError naming the entry)."""
    if not isinstance(table, Mapping):
        raise TypeError(f"{what} must be a mapping of tool name -> {kind.__name__}, got {table!r}")
    for name, spec in table.items():
        _name(f"{what} key", name)
        if not isinstance(spec, kind):
            raise TypeError(f"{what}[{name!r}] must be a {kind.__name__}, got {spec!r}")


def _read(*keys: str) -> ToolSpec:
    return ToolSpec("read", keys)


DEFAULT_TOOLS: Mapping[str, ToolSpec] = {
    # Claude Code
    "Read": _read("file_path"),
    "NotebookRead": _read("notebook_path"),
    "Edit": ToolSpec("edited", ("file_path",)),
    "MultiEdit": ToolSpec("edited", ("file_path",)),
    "Write": ToolSpec("written", ("file_path",)),
    "NotebookEdit": ToolSpec("edited", ("notebook_path",)),
    "Glob": ToolSpec("searched", ("path",)),
    "Grep": ToolSpec("searched", ("path",)),
    "LS": ToolSpec("listed", ("path",)),
    "Bash": ToolSpec("ran", command="command"),
    "WebFetch": ToolSpec("fetched", ("url",)),
    # OpenAI / Codex
    "shell": ToolSpec("ran", command="command"),
    "local_shell": ToolSpec("ran", command="command"),
    "container.exec": ToolSpec("ran", command="command"),
    "exec_command": ToolSpec("ran", command="cmd"),
    "apply_patch": ToolSpec("edited", patch="input"),
    # Anthropic text editor tools
    "str_replace_based_edit_tool": ToolSpec(
        "edited",
        ("path",),
        action_key="command",
        actions={"view": "read", "create": "created", "str_replace": "edited", "insert": "edited"},
    ),
    "str_replace_editor": ToolSpec(
        "edited",
        ("path",),
        action_key="command",
        actions={"view": "read", "create": "created", "str_replace": "edited", "insert": "edited"},
    ),
    # MCP filesystem server
    "read_file": _read("path"),
    "read_text_file": _read("path"),
    "read_media_file": _read("path"),
    "read_multiple_files": _read("paths"),
    "get_file_info": _read("path"),
    "write_file": ToolSpec("written", ("path",)),
    "edit_file": ToolSpec("edited", ("path",)),
    "create_directory": ToolSpec("created", ("path",)),
    "list_directory": ToolSpec("listed", ("path",)),
    "list_directory_with_sizes": ToolSpec("listed", ("path",)),
    "directory_tree": ToolSpec("listed", ("path",)),
    "search_files": ToolSpec("searched", ("path",)),
    "move_file": ToolSpec("moved", {"source": "moved away", "destination": "created"}),
    "delete_file": ToolSpec("deleted", ("path",)),
}
"""Tool name -> :class:`ToolSpec` for files and commands (see the module docstring)."""

SERVER_TOOLS: Mapping[str, ToolSpec] = {
    "web_fetch": ToolSpec("fetched", ("url",)),
    "bash_code_execution": ToolSpec("ran", command="command"),
    "code_execution": ToolSpec("ran", command="code"),
    "text_editor_code_execution": ToolSpec(
        "edited",
        ("path",),
        action_key="command",
        actions={"view": "read", "create": "created", "str_replace": "edited"},
    ),
}
"""Provider-side tools (Anthropic ``server_tool_use`` names) -> :class:`ToolSpec`: a ``web_fetch``'s URL is
a file ``fetched``, ``bash_code_execution``'s command and ``code_execution``'s code are commands run, the
code-execution text editor touches its ``path``. (``web_search`` has a table of its own in the ledger: its
query and top results.) Looked up by the whole name only; a ``LedgerConfig.tools`` entry of the same name
overrides it."""

DEFAULT_PLAN_TOOLS: Mapping[str, PlanShape] = {
    "TodoWrite": PlanShape(items="todos"),
    "todo_write": PlanShape(items="todos"),
    "write_todos": PlanShape(items="todos"),
    "update_plan": PlanShape(items="plan", note="explanation"),
    "ExitPlanMode": PlanShape(items="plan"),
}
"""Tool name -> :class:`PlanShape`: Claude Code's ``TodoWrite`` and ``ExitPlanMode`` (a plan written as
markdown: its title, headings and list items), LangChain deep agents' ``write_todos``, OpenAI/Codex
``update_plan``. Any plan tool whose items key holds text is read as markdown."""


def lookup(name: str, table: Mapping[str, Any]) -> Any:
    """``table``'s entry for a tool name: whole, then after an MCP ``__`` prefix, then after a dot."""
    found = table.get(name)
    if found is None and "__" in name:
        found = table.get(name.rsplit("__", 1)[1])
    if found is None and "." in name:
        found = table.get(name.rsplit(".", 1)[1])
    return found


_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"})


def command_text(value: Any) -> str | None:
    """A command as one line of text: a string as given; an argv list joined, ``bash -lc CMD`` as
    ``CMD``."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        if len(value) >= 3 and value[0] in _SHELLS and value[1] in ("-c", "-lc", "-ic"):
            return value[2].strip() or None
        return " ".join(value).strip() or None
    return None


_PATCH_RE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)
_PATCH_ACTIONS = {"Add": "created", "Update": "edited", "Delete": "deleted"}


def patch_files(patch: str) -> list[tuple[str, str]]:
    """``(path, action)`` for each file an ``apply_patch`` patch adds, updates, deletes or moves to."""
    out: list[tuple[str, str]] = []
    for m in _PATCH_RE.finditer(patch[:200_000]):
        if m.group(3):
            out.append((m.group(3), "created"))
        else:
            out.append((m.group(2), _PATCH_ACTIONS[m.group(1)]))
    return out


_SEGMENT_RE = re.compile(r"&&|\|\||[;|\n]")  # what separates a command's segments


def _segments(command: str) -> list[str]:
    """``_SEGMENT_RE.split(command)``, with ``str`` methods (C speed): "&&" and "||" share no character,
    so replacing each, left to right, cuts where the pattern's leftmost scan does."""
    return command.replace("&&", "\n").replace("||", "\n").replace(";", "\n").replace("|", "\n").split("\n")


_VERBS = {
    "rm": "deleted",
    "unlink": "deleted",
    "rmdir": "deleted",
    "touch": "created",
    "mkdir": "created",
    "cat": "read",
    "head": "read",
    "tail": "read",
    "less": "read",
    "more": "read",
    "bat": "read",
    "wc": "read",
    "nl": "read",
}
_FILE_VERBS = frozenset({*_VERBS, "sed", "mv", "cp", "sudo"})
"""The verbs whose arguments :func:`command_files` reads without a ``/`` in them (``sudo``: its verb's)."""
_VERB_HEADS = tuple(sorted(_FILE_VERBS))
"""What a segment whose first word is a file verb starts with (once its leading whitespace is stripped):
one ``str.startswith`` rules most segments out."""
_PATHLIKE_RE = re.compile(r"^[\w.~/-]*(?:/[\w.-]+|\.[A-Za-z0-9]{1,8})$")
_NAMED_FILE_RE = re.compile(r"^[\w.~-]*/[\w.~/-]*\.[A-Za-z][A-Za-z0-9]{0,7}$")


def _pathlike(token: str) -> bool:
    return not token.startswith("-") and token not in (".", "..") and bool(_PATHLIKE_RE.match(token))


def _named_file(token: str) -> bool:
    """A path with a directory and an extension (``src/app.py``), as any command may name one."""
    return not token.startswith("-") and bool(_NAMED_FILE_RE.match(token))


def command_files(command: str) -> list[tuple[str, str]]:
    """Files a shell command plainly touches: ``rm``/``touch``/``mkdir``/``cat``-like verbs, ``sed -i``,
    ``mv``/``cp`` targets and ``>`` redirections; with any other verb, the arguments that are paths with
    a directory and an extension (``pytest tests/test_app.py``, ``git add src/app.py``) as ``"used"``
    (a heuristic; anything unclear is left out)."""
    if len(command) > 4000:
        return []
    out: list[tuple[str, str]] = []
    for segment in _segments(command):
        if ">" not in segment and not segment.lstrip().startswith(_VERB_HEADS):
            # No redirection, and the first word is no file verb unless it holds a "/" (``/bin/rm``): only
            # the named files of a segment with a "/" and a "." count (a commit message's lines: none).
            if "/" not in segment:
                continue
            if "." not in segment and "/" not in segment.split(None, 1)[0]:
                continue
        tokens = segment.split()
        if not tokens:
            continue
        if tokens[0] == "sudo":
            del tokens[0]
            if not tokens:
                continue
        if ">" in segment:
            for k, tok in enumerate(tokens[:-1]):
                if tok in (">", ">>") and _pathlike(tokens[k + 1]) and not tokens[k + 1].startswith("/dev/"):
                    out.append((tokens[k + 1], "written"))
        verb = tokens[0]
        if "/" in verb:
            verb = verb.rsplit("/", 1)[-1]
        action = _VERBS.get(verb)
        # The arguments: tokens[1:] less the redirection words (none of which is path-like or holds a
        # "/": only ``sed`` needs them taken out, for its last argument).
        if action is not None:
            out.extend((t, action) for t in tokens[1:] if _pathlike(t))
        elif (
            verb == "sed"
            and (args := [t for t in tokens[1:] if t not in (">", ">>", "2>&1")])
            and (any(t.startswith("-i") for t in args) and _pathlike(args[-1]))
        ):
            out.append((args[-1], "edited"))
        elif verb == "mv" or verb == "cp":
            paths = [t for t in tokens[1:] if _pathlike(t)]
            if len(paths) >= 2:
                if verb == "mv":
                    out.extend((t, "moved away") for t in paths[:-1])
                out.append((paths[-1], "created"))
        elif "/" in segment:  # a named file holds a "/": most segments have none and skip the loop
            written: set[str] | None = None  # the files named so far (made at the segment's first candidate)
            for arg in tokens[1:]:
                if "/" in arg and "." in arg:
                    t = arg.strip("'\"")
                    if written is None:
                        written = {w for w, _ in out}
                    if t not in written and _named_file(t):
                        out.append((t, "used"))
                        written.add(t)
    return out
