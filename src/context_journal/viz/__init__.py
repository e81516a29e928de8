"""Pictures of a compiled context.

:mod:`~context_journal.viz.trace` records at compile time which messages each compiled message stands
for; :mod:`~context_journal.viz.html` draws it as one self-contained HTML page
(``CompileResult.to_html()``, ``context-journal map``); :mod:`~context_journal.viz.browser` renders that
page through a locally installed headless browser (``map --png``).
"""

from __future__ import annotations

from .trace import MapTrace, Placement

__all__ = ["MapTrace", "Placement"]
