"""context-journal: a durable, branching journal and a bounded context compiler for LLM agents."""
