"""The Legion markdown format: parsing and rendering the memory files, their tables and records, and reading
and writing them safely beside other writers."""
