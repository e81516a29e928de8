"""Thursday 7 March 2024: the rounding question, the code review, CI, the wrap-up."""

from __future__ import annotations

from datetime import UTC, datetime

from .session import ROOT, Session, half_up, pytest_output

__all__ = ["ci", "review", "rounding", "wrap_up"]


def rounding(s: Session) -> None:
    s.day(datetime(2024, 3, 7, 10, 5, 0, tzinfo=UTC))
    s.user(
        "Ines from finance ran our branch against her spreadsheet for February: 41 of 1,906 converted "
        "lines differ by one cent. Example: 0.125 EUR becomes 0.12 in ours and 0.13 in hers. Who is right?"
    )
    s.bash(
        "Her spreadsheet almost certainly rounds half up (Excel's ROUND does). A demonstration with Decimal:",
        "python -c \"from decimal import *; x = Decimal('0.125'); "
        "print(x.quantize(Decimal('0.01'), ROUND_HALF_EVEN), x.quantize(Decimal('0.01'), ROUND_HALF_UP))\"",
        f"0.12 {half_up('0.125')}",
        description="Compare rounding modes",
    )
    s.say(
        "Both are right under their own rule: FIN-2291 asks for banker's rounding (HALF_EVEN, 0.125 -> "
        "0.12, 0.135 -> 0.14), Excel's ROUND is HALF_UP (0.125 -> 0.13). Exact halves are rare, which is "
        "why only 41 of 1,906 lines (2.2 %) differ, and HALF_EVEN is the one without a systematic upward "
        "bias. If finance now wants HALF_UP, it is one constant in money.py, but FIN-2291 would need to "
        "change first."
    )
    s.user(
        "Keep HALF_EVEN, Ines agreed once she saw FIN-2291 again. Please document the rule somewhere "
        "finance can find it."
    )
    s.write(
        "",
        "docs/money.md",
        "# Money in tally\n\n"
        "- Amounts are integer minor units (`Money.amount_minor`); the digits per currency are in "
        "`tally.money.MINOR_UNITS` (EUR, USD, GBP, CHF: 2; JPY: 0).\n"
        "- Rounding is banker's rounding (`ROUND_HALF_EVEN`) everywhere: parsing, tax, conversion "
        "(FIN-2291). Spreadsheets round half up; expect one-cent differences on exact halves.\n"
        "- Conversion uses the ECB reference rate of the invoice date (`issued_on`), or of the last ECB "
        "business day before it (weekends, TARGET holidays).\n"
        "- A converted line keeps its original amount and currency (`LineItem.original`) for audit.\n",
    )
    s.user("Thanks. Marta reviewed the PR (#1287). Her comments:")
    s.user(
        "1. fx.convert raises a bare KeyError for an unknown currency. Give it a proper exception.\n"
        "2. load_table() has no test for a missing file.\n"
        "3. Please run mypy, the CI gate is strict for src/tally/fx.py and money.py since last month.\n"
        "4. Nit: `tables = {}` needs a type."
    )


def review(s: Session) -> None:
    s.edit(
        "1. An UnknownCurrencyError (a KeyError subclass, so existing handlers keep working):",
        "src/tally/fx.py",
        "@dataclass(frozen=True)\nclass RateTable:\n",
        "class UnknownCurrencyError(KeyError):\n"
        '    """No ECB rate for this currency code."""\n\n\n'
        "@dataclass(frozen=True)\nclass RateTable:\n",
    )
    s.edit(
        "",
        "src/tally/fx.py",
        "        return self.rates[currency]\n",
        "        try:\n            return self.rates[currency]\n        except KeyError:\n"
        '            raise UnknownCurrencyError(f"no ECB rate for {currency!r} on {self.day}") from None\n',
    )
    s.edit("4. The nit:", "src/tally/fx.py", "    tables = {}\n", "    tables: dict[date, RateTable] = {}\n")
    s.bash(
        "3. mypy:",
        "mypy --strict src/tally/fx.py src/tally/money.py",
        'src/tally/fx.py:41: error: Argument 1 to "fromisoformat" of "date" has incompatible type "str | None"; '
        'expected "str"  [arg-type]\n'
        'src/tally/fx.py:42: error: Argument 1 to "Decimal" has incompatible type "str | None"; expected '
        '"Decimal | float | str | tuple[int, Sequence[int], int]"  [arg-type]\n'
        'src/tally/fx.py:42: error: Dict entry 0 has incompatible type "str | None": "Decimal"; expected '
        '"str": "Decimal"  [dict-item]\n'
        'src/tally/fx.py:49: error: Argument 1 to "fromisoformat" of "date" has incompatible type "str | None"; '
        'expected "str"  [arg-type]\n'
        "Found 4 errors in 1 file (checked 2 source files)",
        error=True,
        description="Type-check fx and money",
    )
    s.say(
        "All four come from Element.get() returning `str | None`. Rather than sprinkle casts, one helper "
        "that reads a required attribute and raises ValueError naming the file when it is missing."
    )
    s.edit(
        "",
        "src/tally/fx.py",
        "class UnknownCurrencyError(KeyError):\n",
        "def _attr(element: ET.Element, name: str) -> str:\n"
        "    value = element.get(name)\n"
        "    if value is None:\n"
        '        raise ValueError(f"ECB file: <{element.tag}> has no {name!r} attribute")\n'
        "    return value\n\n\n"
        "class UnknownCurrencyError(KeyError):\n",
    )
    for old in (
        '    rates = {c.get("currency"): Decimal(c.get("rate")) for c in day.findall("e:Cube", NS)}\n',
        '        rates = {c.get("currency"): Decimal(c.get("rate")) for c in day.findall("e:Cube", NS)}\n',
    ):
        indent = old[: len(old) - len(old.lstrip())]
        s.edit(
            "",
            "src/tally/fx.py",
            old,
            f'{indent}rates = {{_attr(c, "currency"): Decimal(_attr(c, "rate")) for c in day.findall("e:Cube", NS)}}\n',
        )
    s.edit(
        "",
        "src/tally/fx.py",
        '    return RateTable(date.fromisoformat(day.get("time")), rates)\n',
        '    return RateTable(date.fromisoformat(_attr(day, "time")), rates)\n',
    )
    s.edit(
        "",
        "src/tally/fx.py",
        '        when = date.fromisoformat(day.get("time"))\n',
        '        when = date.fromisoformat(_attr(day, "time"))\n',
    )
    s.bash(
        "",
        "mypy --strict src/tally/fx.py src/tally/money.py",
        "Success: no issues found in 2 source files",
        description="Type-check fx and money",
    )
    s.edit(
        "2. Tests for the missing file and the unknown currency:",
        "tests/test_fx.py",
        "def test_eur_to_eur_is_identity():\n",
        "def test_missing_file(tmp_path):\n    with pytest.raises(FileNotFoundError):\n"
        '        load_table(tmp_path / "nope.xml")\n\n\n'
        "def test_unknown_currency():\n    with pytest.raises(UnknownCurrencyError, match=\"'XAU'\"):\n"
        '        convert(Money(100), "XAU")\n\n\n'
        "def test_eur_to_eur_is_identity():\n",
    )
    s.edit(
        "",
        "tests/test_fx.py",
        "from tally.fx import DAILY, convert, load_table\n",
        "from tally.fx import DAILY, UnknownCurrencyError, convert, load_table\n",
    )
    s.bash("", "python -m pytest -q", pytest_output(252, 3, 7.66), description="Run the test suite")
    s.read("The final fx.py, to check it reads well as a whole:", "src/tally/fx.py")


def ci(s: Session) -> None:
    s.bash(
        "Pushing the branch and watching CI before the wrap-up.",
        "git push -u origin feature/TALLY-312-multi-currency && gh run watch --exit-status",
        "✓ lint in 21s\n✓ test in 2m13s\nX migrations-check in 9s\n"
        "  scripts/check_migrations.py --against origin/main\n"
        "  error: migration number 0008 is used twice: migrations/0008_invoice_currency.sql (this branch) "
        "and migrations/0008_payment_refs.sql (origin/main, merged 2024-03-06 by jonas)\n"
        "X Run ci (#4471) failed in 2m31s",
        error=True,
        description="Push and watch CI",
    )
    s.say(
        "Jonas merged 0008_payment_refs.sql to main yesterday, so our numbers collide. Ours must come "
        "after his: 0008_invoice_currency -> 0009, 0009_customer_currency -> 0010. Rebasing first to get "
        "his file."
    )
    s.bash(
        "",
        "git fetch origin && git rebase origin/main",
        "Successfully rebased and updated refs/heads/feature/TALLY-312-multi-currency.",
        description="Rebase on main",
    )
    s.bash(
        "",
        "git mv migrations/0009_customer_currency.sql migrations/0010_customer_currency.sql && "
        "git mv migrations/0008_invoice_currency.sql migrations/0009_invoice_currency.sql && ls migrations",
        "0001_initial.sql\n0002_customers.sql\n0003_numbering.sql\n0004_line_items.sql\n0005_tax_rate.sql\n"
        "0006_indexes.sql\n0007_add_discounts.sql\n0008_payment_refs.sql\n0009_invoice_currency.sql\n"
        "0010_customer_currency.sql",
        description="Renumber our migrations",
    )
    files = s.files
    files[f"{ROOT}/migrations/0010_customer_currency.sql"] = files.pop(f"{ROOT}/migrations/0009_customer_currency.sql")
    files[f"{ROOT}/migrations/0009_invoice_currency.sql"] = files.pop(f"{ROOT}/migrations/0008_invoice_currency.sql")
    files[f"{ROOT}/migrations/0008_payment_refs.sql"] = "-- 0008: payment references (jonas)\n"
    s.edit(
        "The comment inside the file still says 0008:",
        "migrations/0009_invoice_currency.sql",
        "-- 0009: currency on invoices",
        "-- 0009 (was 0008 before rebasing on 0008_payment_refs): currency on invoices",
    )
    s.bash(
        "",
        "rm var/dev.sqlite3 && python -m tally.db migrate --database var/dev.sqlite3 | tail -3",
        "applying 0008_payment_refs ... ok (6 ms)\napplying 0009_invoice_currency ... ok (11 ms)\n"
        "applying 0010_customer_currency ... ok (3 ms)",
        description="Re-apply migrations",
    )
    s.bash(
        "",
        'git commit -am "Renumber migrations after 0008_payment_refs" && git push --force-with-lease && '
        "gh run watch --exit-status",
        "✓ lint in 19s\n✓ test in 2m09s\n✓ migrations-check in 8s\n✓ Run ci (#4478) completed in 2m27s",
        description="Push and watch CI",
    )
    s.say("CI is green (run #4478). Our migrations are now 0009_invoice_currency and 0010_customer_currency.")


def wrap_up(s: Session) -> None:
    s.bash(
        "",
        "git diff --stat origin/main",
        " bench/fx_bench.py                       |  13 ++++\n"
        " docs/money.md                           |  11 +++\n"
        " migrations/0009_invoice_currency.sql    |   4 +\n"
        " migrations/0010_customer_currency.sql   |   3 +\n"
        " scripts/fetch_rates.sh                  |   1 +\n"
        " src/tally/api/routes.py                 |   9 +-\n"
        " src/tally/app.py                        |   6 +\n"
        " src/tally/customers.py                  |  14 ++-\n"
        " src/tally/export/csv_export.py          |  13 ++-\n"
        " src/tally/fx.py                         | 101 +++++++++++++++++++++\n"
        " src/tally/invoice.py                    |  16 +++-\n"
        " src/tally/jobs/reconcile.py             |  10 +-\n"
        " src/tally/money.py                      |  14 ++-\n"
        " src/tally/reports.py                    |  10 +-\n"
        " src/tally/templates/invoice.html        |   6 +-\n"
        " src/tally/web/filters.py                |  10 ++\n"
        " tests/golden/invoices_2024-02.csv       |  96 ++++-----\n"
        " tests/test_api_currency.py              |  25 ++++++\n"
        " tests/test_customers_currency.py        |  19 +++++\n"
        " tests/test_fx.py                        |  41 +++++++++\n"
        " tests/test_fx_history.py                |  33 +++++++\n"
        " tests/test_money.py                     |   3 +-\n"
        " tests/test_money_currency.py            |  22 +++++\n"
        " tests/test_reconcile.py                 |  21 +++++\n"
        " tests/test_reports.py                   |  29 ++++++\n"
        " 25 files changed, 476 insertions(+), 66 deletions(-)",
        description="Summarise the branch",
    )
    s.say(
        "Summary of TALLY-312 as it stands (branch feature/TALLY-312-multi-currency, PR #1287):\n"
        "- money.py: MINOR_UNITS (EUR/USD/GBP/CHF 2, JPY 0), HALF_EVEN everywhere (FIN-2291), `digits`.\n"
        "- fx.py: ECB daily and 90-day files, convert(money, to, on=date) with the last-business-day rule, "
        "no rate needed for X -> X, cached parsing (4.6 µs per call, was 3.1 ms), reload(), "
        "UnknownCurrencyError, mypy --strict clean.\n"
        "- Invoice.currency (default: the customer's currency, else EUR; Hoshino KK overridden to EUR); "
        "foreign lines converted at issued_on with the original kept; Invoice.total() unchanged.\n"
        "- API: optional `currency`, 422 for unknown codes. Migrations 0009_invoice_currency and "
        "0010_customer_currency (renumbered after Jonas's 0008_payment_refs; Priya's draft deleted).\n"
        "- CSV: three columns appended (DATEV mapping intact). PDF: format_money filter (SUP-4471). "
        "Reports in EUR at the invoice date. Reconciliation refuses cross-currency matches; the reference "
        "fix (57 payments) is its own commit.\n"
        "- Tests: 252 passed, 3 skipped (baseline 214). CI green on run #4478.\n\n"
        "Open items:\n"
        "1. The rates refresh runs at 16:30 Europe/Berlin; the ECB publishes around 16:00 CET, so same-day "
        "invoices issued before 16:30 use the previous day's rate. Is that acceptable to finance?\n"
        "2. CHF cash rounding to 0.05 (Rappenrundung): does it apply to our invoices?\n"
        "3. INV-2024-0193 (SUP-4471) needs a credit note and a JPY reissue after the release.\n"
        "4. The 90-day history only reaches back to 4 December 2023; converting older foreign invoices "
        "would need the full history file (eurofxref-hist.xml, about 6 MB)."
    )
    s.user(
        "1 is fine, finance books at the daily rate anyway. 2: no, we never invoice cash. 4: let's add the "
        "full history in 2.15, make a ticket. Open the PR as ready for review."
    )
    s.bash(
        "",
        'gh pr ready 1287 && gh pr comment 1287 --body "Addressed review: UnknownCurrencyError, missing-file '
        'test, mypy --strict clean. Follow-up: TALLY-331 (full ECB history)."',
        '✓ Pull request #1287 is marked as "ready for review"\n'
        "https://github.com/tally-billing/tally/pull/1287#issuecomment-1983349120",
        description="Mark the PR ready",
    )
    s.say(
        "PR #1287 is ready for review, with a comment linking the follow-up TALLY-331 (full ECB history, "
        "for 2.15). Closed: open items 1 and 2 (finance books at the daily rate; no CHF cash rounding). "
        "Still open: the credit note and reissue of INV-2024-0193 after release 2.14 on Friday 15 March."
    )
    s.user("Perfect. Thanks Claude, that's it for this week.")
    s.say("You're welcome. Good luck with 2.14 on Friday.")
