"""The built-in conversation of ``context-journal demo``, generated in code (see :mod:`context_journal.demo_data`).

:mod:`.files` holds the project's files on day one, :mod:`.session` the builder and its tools, and
``day1`` … ``day4`` the episodes, in order.
"""
