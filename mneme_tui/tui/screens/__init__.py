"""One module per mode screen, plus the modal screens (help, confirm, choice, memory detail)."""
