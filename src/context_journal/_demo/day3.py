"""Wednesday 6 March 2024: support ticket SUP-4471, performance of fx.convert, reconciliation."""

from __future__ import annotations

from datetime import UTC, datetime

from .session import Session, pytest_output

__all__ = ["performance", "reconcile", "ticket"]


def ticket(s: Session) -> None:
    s.day(datetime(2024, 3, 6, 9, 30, 40, tzinfo=UTC))
    s.user(
        "Support ticket SUP-4471 from Kaito Hoshino (Hoshino KK, customer 2,117): their JPY invoice "
        "INV-2024-0193, issued 28 February, shows ¥1,250,000 on the PDF instead of ¥12,500. We issued it "
        "by hand in the admin. Does our change fix it, or cause it?"
    )
    s.bash(
        "Let me look at the stored row first.",
        'sqlite3 var/prod-snapshot-2024-03-05.sqlite3 "select number, currency, issued_on from invoices '
        "where number = 'INV-2024-0193'; select description, quantity, unit_price_minor from line_items "
        "where invoice_number = 'INV-2024-0193'\"",
        "INV-2024-0193|EUR|2024-02-28\nTranslation JA-DE, 50 pages|1|1250000",
        description="Inspect the invoice in the snapshot",
    )
    s.say(
        "The row says EUR with 1,250,000 minor units, i.e. 12,500.00 EUR: the admin had no currency field, "
        "so the 12,500 yen were typed as 12500.00 into an EUR invoice. The PDF template also hard-codes "
        "`/ 100` and '%.2f'. Our change fixes the data model but not the template, so a correct JPY "
        "invoice would still print wrong. Let me find every place that formats amounts."
    )
    s.grep("", r"amount_minor / 100|%\.2f", path="src/tally", glob="*.html")
    s.read("", "src/tally/templates/invoice.html")
    s.write(
        "A Jinja filter that formats Money with the currency's digits and symbol:",
        "src/tally/web/filters.py",
        '"""Jinja filters."""\n\nfrom ..money import Money\n\n'
        'SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥", "CHF": "CHF "}\n\n\n'
        "def format_money(money: Money) -> str:\n"
        '    """``¥12,500``, ``€1,234.50``: thousands separators, the currency\'s minor digits."""\n'
        "    return f\"{SYMBOLS.get(money.currency, money.currency + ' ')}{money.to_decimal():,.{money.digits}f}\"\n",
    )
    s.edit(
        "",
        "src/tally/templates/invoice.html",
        '    <td>{{ "%.2f"|format(line.unit_price.amount_minor / 100) }}</td>\n'
        '    <td>{{ "%.2f"|format(line.subtotal().amount_minor / 100) }}</td>\n',
        "    <td>{{ line.unit_price|format_money }}</td>\n    <td>{{ line.subtotal()|format_money }}</td>\n",
    )
    s.edit(
        "",
        "src/tally/templates/invoice.html",
        '<td>{{ "%.2f"|format(invoice.total().amount_minor / 100) }}</td>',
        "<td>{{ invoice.total()|format_money }}</td>",
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_pdf.py",
        pytest_output(
            0,
            0,
            0.88,
            [
                (
                    "tests/test_pdf.py::test_render_invoice",
                    "src/tally/templates/invoice.html:6: in top-level template code\n"
                    "    <td>{{ line.unit_price|format_money }}</td>\n"
                    "E   jinja2.exceptions.TemplateAssertionError: No filter named 'format_money'.",
                ),
                (
                    "tests/test_pdf.py::test_render_jpy_invoice",
                    "E   jinja2.exceptions.TemplateAssertionError: No filter named 'format_money'.",
                ),
            ],
        ),
        error=True,
        description="Run the PDF tests",
    )
    s.say("The filter exists but is not registered on the app's Jinja environment; that happens in create_app().")
    s.edit(
        "",
        "src/tally/app.py",
        "# app.py\n",
        "# app.py\nfrom .web.filters import format_money\n\n\n"
        'def register_filters(app):\n    app.jinja_env.filters["format_money"] = format_money\n',
    )
    s.bash("", "python -m pytest -q tests/test_pdf.py", pytest_output(2, 0, 0.91), description="Run the PDF tests")
    s.say(
        "Answer for SUP-4471: our change did not cause it and fixes the display of real JPY invoices "
        "(¥12,500, no decimals). INV-2024-0193 itself is stored as 12,500.00 EUR, so it needs a credit "
        "note and a reissue as a JPY invoice once 2.14 ships; no data fix can tell yen from euros after "
        "the fact."
    )
    s.user("Makes sense. I'll tell support to credit and reissue it after the release.")


def performance(s: Session) -> None:
    s.user(
        "The nightly reconciliation converts about 2.4 million line items. Can you check fx.convert is "
        "fast enough? The job has a 20-minute window starting 02:00."
    )
    s.write(
        "A micro-benchmark first:",
        "bench/fx_bench.py",
        "import time\nfrom datetime import date\n\nfrom tally.fx import convert\nfrom tally.money import Money\n\n"
        "N = 20_000\nstart = time.perf_counter()\nfor i in range(N):\n"
        '    convert(Money(10_000 + i % 97, "USD"), "EUR", on=date(2024, 3, 1))\n'
        "elapsed = time.perf_counter() - start\n"
        'print(f"convert(): {N:,} calls in {elapsed:.2f} s ({elapsed / N * 1e6:.1f} µs/call)")\n',
    )
    s.bash("", "python bench/fx_bench.py", "convert(): 20,000 calls in 61.84 s (3092.0 µs/call)")
    s.say(
        "3.1 ms per call: 2.4 million lines would take about 2 hours, far over the 20-minute window. "
        "Let me profile rather than guess."
    )
    s.bash(
        "",
        "python -m cProfile -s cumulative bench/fx_bench.py 2>&1 | head -14",
        "convert(): 20,000 calls in 64.10 s (3205.0 µs/call)\n"
        "         241880311 function calls (241880203 primitive calls) in 64.163 seconds\n\n"
        "   Ordered by: cumulative time\n\n"
        "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
        "    20000    0.041    0.000   64.002    0.003 fx.py:53(convert)\n"
        "    20000    0.022    0.000   63.871    0.003 fx.py:44(table_on)\n"
        "    20000    1.913    0.000   63.790    0.003 fx.py:33(load_history)\n"
        "    20000    0.330    0.000   48.207    0.002 ElementTree.py:1208(parse)\n"
        "  1240000    5.020    0.000   12.996    0.000 fx.py:36(<dictcomp>)\n"
        "  4960000    3.119    0.000    3.119    0.000 {method 'get' of 'xml.etree.ElementTree.Element'}\n"
        "    20000    0.018    0.000    0.094    0.000 money.py:28(to_decimal)",
    )
    s.say(
        "As suspected: every convert() re-parses the 90-day XML (62 business days, 248 rates): 63.8 of "
        "64 seconds are in load_history(). The files change once a day, so caching the parsed tables is "
        "safe within a process. Decision: functools.lru_cache on load_history() and load_table() keyed "
        "by path (standard library, no new dependency), plus an fx.reload() for the long-running web "
        "workers, to be called by the rates refresh."
    )
    s.edit(
        "",
        "src/tally/fx.py",
        "def load_history(path: Path = HISTORY) -> dict[date, RateTable]:\n",
        "@lru_cache(maxsize=8)\ndef load_history(path: Path = HISTORY) -> dict[date, RateTable]:\n",
    )
    s.edit(
        "",
        "src/tally/fx.py",
        "def load_table(path: Path = DAILY) -> RateTable:\n",
        "@lru_cache(maxsize=8)\ndef load_table(path: Path = DAILY) -> RateTable:\n",
    )
    s.edit(
        "",
        "src/tally/fx.py",
        "import xml.etree.ElementTree as ET\n",
        "import xml.etree.ElementTree as ET\nfrom functools import lru_cache\n",
    )
    s.edit(
        "",
        "src/tally/fx.py",
        "def convert(money: Money, to: str, on: date | None = None) -> Money:\n",
        "def reload() -> None:\n"
        '    """Forget the parsed rate files (call after scripts/fetch_rates.sh)."""\n'
        "    load_table.cache_clear()\n    load_history.cache_clear()\n\n\n"
        "def convert(money: Money, to: str, on: date | None = None) -> Money:\n",
    )
    s.bash("", "python bench/fx_bench.py", "convert(): 20,000 calls in 0.09 s (4.6 µs/call)")
    s.say(
        "4.6 µs per call after caching, 670x faster: 2.4 million lines convert in about 11 seconds. Tests still pass?"
    )
    s.bash("", "python -m pytest -q", pytest_output(246, 3, 7.38), description="Run the test suite")
    s.edit(
        "The refresh script should reset the caches of running workers; it can touch a file the app watches.",
        "scripts/fetch_rates.sh",
        'echo "rates updated $(date -Iseconds)"\n',
        'touch var/rates.stamp  # web workers call tally.fx.reload() when this changes\necho "rates updated '
        '$(date -Iseconds)"\n',
    )


def reconcile(s: Session) -> None:
    s.user(
        "Jonas (he owns the nightly reconciliation) asks whether the matching still works for USD "
        "invoices. Payments for those land on our USD account at Commerzbank; the camt.053 statement "
        "has a currency per entry (the Ccy attribute on Amt)."
    )
    s.read("", "src/tally/jobs/reconcile.py")
    s.say(
        "matches() compares amount_minor only. A USD invoice of 100.00 (10000) and an EUR payment of "
        "100.00 (10000) would match, which is wrong, and a payment of ¥12,501 on a ¥12,500 invoice matches "
        "with a 1-unit tolerance, which is right (1 yen, about 0.6 cents). So: compare only within one "
        "currency, keep the tolerance in minor units of that currency, and report cross-currency "
        "payments for manual review instead of guessing a rate."
    )
    s.grep("Where is matches() called?", r"matches\(", path="src/tally")
    s.edit(
        "",
        "src/tally/jobs/reconcile.py",
        "def matches(invoice_total: Money, paid: Money) -> bool:\n"
        "    return abs(invoice_total.amount_minor - paid.amount_minor) <= TOLERANCE_MINOR\n",
        "class CurrencyMismatch(ValueError):\n"
        '    """A payment in another currency than its invoice: needs a human."""\n\n\n'
        "def matches(invoice_total: Money, paid: Money) -> bool:\n"
        "    if invoice_total.currency != paid.currency:\n"
        '        raise CurrencyMismatch(f"payment in {paid.currency} for an invoice in {invoice_total.currency}")\n'
        "    return abs(invoice_total.amount_minor - paid.amount_minor) <= TOLERANCE_MINOR\n",
    )
    s.write(
        "",
        "tests/test_reconcile.py",
        "import pytest\n\nfrom tally.jobs.reconcile import CurrencyMismatch, matches, normalise_reference\n"
        "from tally.money import Money\n\n\n"
        "def test_one_cent_tolerance():\n    assert matches(Money(10_000), Money(9_999))\n\n\n"
        "def test_one_yen_tolerance():\n"
        '    assert matches(Money(12_500, "JPY"), Money(12_501, "JPY"))\n\n\n'
        "def test_cross_currency_needs_review():\n    with pytest.raises(CurrencyMismatch):\n"
        '        matches(Money(10_000, "USD"), Money(10_000))\n\n\n'
        "def test_reference():\n"
        '    assert normalise_reference("inv 2024 0193") == "INV-2024-0193"\n',
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_reconcile.py",
        pytest_output(
            3,
            0,
            0.12,
            [
                (
                    "tests/test_reconcile.py::test_reference",
                    "    def test_reference():\n"
                    '>       assert normalise_reference("inv 2024 0193") == "INV-2024-0193"\n'
                    "E       AssertionError: assert 'INV-20240193' == 'INV-2024-0193'\n"
                    "E         - INV-2024-0193\n"
                    "E         + INV-20240193",
                ),
            ],
        ),
        error=True,
        description="Run the reconciliation tests",
    )
    s.say(
        "The new currency tests pass; the failure is the reference test I added while I was in the file, "
        "and the test is right: invoice numbers look like INV-2024-0193 (as in SUP-4471), but "
        "normalise_reference() strips every space and dash, so 'inv 2024 0193' becomes INV-20240193 and "
        "can never match an invoice. That is an existing bug, not part of TALLY-312. Before touching it, "
        "how many unmatched payments have that shape?"
    )
    s.bash(
        "",
        'sqlite3 var/prod-snapshot-2024-03-05.sqlite3 "select count(*) from unmatched_payments where '
        "upper(reference) glob 'INV [0-9][0-9][0-9][0-9] [0-9]*'\"",
        "57",
        description="Count unmatched payments with spaced references",
    )
    s.user("57! Jonas has been matching those by hand for months. Fix it, separate commit please.")
    s.edit(
        "",
        "src/tally/jobs/reconcile.py",
        "def normalise_reference(text: str) -> str:\n"
        '    return text.upper().replace(" ", "").replace("INV", "INV-", 1).replace("--", "-")\n',
        "def normalise_reference(text: str) -> str:\n"
        '    """``inv 2024 0193``, ``INV2024-0193``, ``INV-2024-0193`` -> ``INV-2024-0193``."""\n'
        '    digits = "".join(ch for ch in text if ch.isdigit())\n'
        '    return f"INV-{digits[:4]}-{digits[4:]}" if len(digits) > 4 else text.upper().strip()\n',
    )
    s.edit(
        "",
        "tests/test_reconcile.py",
        '    assert normalise_reference("inv 2024 0193") == "INV-2024-0193"\n',
        '    assert normalise_reference("inv 2024 0193") == "INV-2024-0193"\n'
        '    assert normalise_reference("INV2024-0193") == "INV-2024-0193"\n',
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_reconcile.py",
        pytest_output(4, 0, 0.11),
        description="Run the reconciliation tests",
    )
    s.bash(
        "",
        'git add -p src/tally/jobs/reconcile.py && git commit -m "reconcile: normalise spaced invoice '
        'references (57 unmatched payments)"',
        "[feature/TALLY-312-multi-currency 4e1c9a2] reconcile: normalise spaced invoice references (57 "
        "unmatched payments)\n 1 file changed, 3 insertions(+), 1 deletion(-)",
        description="Commit the reference fix separately",
    )
    s.bash("", "python -m pytest -q", pytest_output(250, 3, 7.70), description="Run the test suite")
