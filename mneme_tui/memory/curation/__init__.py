"""Curation: the store proposes what to merge, re-check or retire; a person or an agent decides.

Import from the submodules (this package re-exports nothing):

- ``stale``: the code a memory names and whether the work tree still has it (``StaleChecker``).
"""
