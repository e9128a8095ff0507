"""The adapter runtime: a world asks the outside through books, wants and rounds (spec adapters.md §1-§6).

Built on ``engine/`` only; ``engine/`` never imports it.  ``adapters.rounds.Session`` is the entry point:
it reads the books a world declares (``books``), collects its wants (``wants``), negotiates the
capability policy (``policy``), sends one batch per capability per round through the adapter kinds
(``exec_kind``, ``sql_kind``, ``rofl_kind``) and asserts the answers into each book's perspective.  A
program (``--allow exec`` only) runs under the supervisor ``reaper`` (``process``), with a minimal environment.
"""
