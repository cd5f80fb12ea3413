"""The two-way mirror between a Legion memory folder and the store: sync, its plan, export and preview, and
the rows it redacts or purges."""
