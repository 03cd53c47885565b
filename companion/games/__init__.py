"""Pure rules engines. Nothing here does I/O or imports other layers of the project."""
