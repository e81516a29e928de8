"""The Porter stemmer loaded alone (``stores/_porter.py``) stems as ``snowballstemmer.stemmer("porter")``,
and a process's first query stems without importing the package's 39 language modules."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import snowballstemmer  # type: ignore[import-untyped]

from context_journal.stores._porter import _load_private, porter_stemmer


def test_the_private_porter_stems_as_the_package_does() -> None:
    ours = _load_private().PorterStemmer()
    theirs = snowballstemmer.stemmer("porter")
    rnd = random.Random(11)
    letters = "abcdefghijklmnopqrstuvwxyzéü"
    samples = ["caresses", "ponies", "running", "generalization", "adjusting", "tournament", "happily"]
    samples += ["".join(rnd.choice(letters) for _ in range(rnd.randint(1, 16))) for _ in range(20_000)]
    assert [ours.stemWord(w) for w in samples] == [theirs.stemWord(w) for w in samples]


def test_porter_stemmer_uses_the_package_once_it_is_imported() -> None:
    assert "snowballstemmer" in sys.modules  # imported by this test module
    assert porter_stemmer().stemWord("ponies") == "poni"


def test_a_query_does_not_import_every_language() -> None:
    code = (
        "import sys\n"
        "from context_journal.stores.fulltext import query_terms, stem\n"
        "query_terms('When did Melanie paint a sunrise?')\n"
        "assert stem('ponies') == 'poni', stem('ponies')\n"
        "assert 'snowballstemmer' not in sys.modules\n"
        "assert not any(m.startswith('snowballstemmer.') for m in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # this checkout's package
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
