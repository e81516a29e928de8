"""The package's version: the one source (``pyproject.toml`` reads it from here; the package, the command
line, the MCP server and telemetry import it)."""

__version__ = "0.1.0"
