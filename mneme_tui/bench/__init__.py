"""Every benchmark of ``mneme bench``, in one place. It sits beside ``cli`` (which alone imports it) and may import
any layer: ``suite`` runs them all into one report; ``store_bench`` measures synthetic stores at each size (with
``measures``, ``postgresql_bench`` and ``review_bench``), ``legion_bench`` the Legion import, ``tui_bench`` the TUI
through Pilot; ``synthetic`` generates their memories and ``naive_rank`` is the per-row baseline recall is checked
against. Nothing here is run by the tests' timings: targets are reported, never asserted."""
