"""A compression worker process: ``python _worker_child.py SPEC WORKER_ID LEASE LATENCY [CONCURRENCY]``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

# Run as a script: the repository root goes on the path, for the tests package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from context_journal.testing import ScriptedProvider
from context_journal.workers import CompressionWorker
from tests.workers._work import open_spec

spec, worker_id, lease, latency = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
concurrency = int(sys.argv[5]) if len(sys.argv) > 5 else 1
provider = ScriptedProvider(default="I remember this part of the conversation.", latency=latency)
with CompressionWorker(
    open_spec(spec), provider, worker_id=worker_id, lease_seconds=lease, concurrency=concurrency, poll_seconds=0.05
) as worker:
    report = worker.run(until_idle=True)
    worker.store.close()
print(json.dumps(report.to_dict()))
