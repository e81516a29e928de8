"""Adapters to agent frameworks: thin shells over :class:`~context_journal.ContextManager` (DESIGN.md 2).

* :mod:`context_journal.integrations.openai_agents` — an OpenAI Agents SDK ``Session`` (extra
  ``openai-agents``).
* :mod:`context_journal.integrations.langchain` — a LangChain chat message history and an agent middleware
  (extra ``langchain``).

Each session or history lives in a namespace of its own (with its own message slot) on a branch of its own,
so many of them share one store (SQLite, PostgreSQL or memory) without seeing each other's messages. Clearing
one starts a new branch: nothing written is ever deleted.
"""
