"""Every benchmark of ``mneme bench``, in one place; it sits beside ``cli`` and may import any layer."""
