"""Learning from verified task runs (spec §4.2): task sync, graduation candidates and orientation.

Import from the submodules (this package re-exports nothing, so each name has one meaning):

- ``task_report``: the task report format and its validation (``load_report``, ``parse_report``).
- ``symbols``: definitions in a cited file's post-fix state (``scan_file``).
- ``distill``: phase one, buffered learnings (``distill`` → ``SyncPlan``).
- ``tasksync``: phase two, one transaction (``sync_task``, ``commit``).
- ``graduation``: ``graduation_candidates(store, repo)`` → ``GraduationCandidate``.
- ``orientation``: ``orientation(store, repo, task_id, modified)`` → ``Orientation`` (handshake).
- ``scope``: directory scopes and topic spelling.
"""
