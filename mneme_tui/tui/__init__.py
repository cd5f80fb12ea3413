"""The Textual app: ``app.py`` (modes, bindings, command palette), ``screens/`` and ``widgets/``.

Only this package imports Textual. Screens call the store and legion APIs from thread workers and render
the dataclasses that come back; memory text is untrusted and is always shown literally (``text.py``).
"""
