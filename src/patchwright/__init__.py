"""patchwright: an autonomous coding agent that edits surgically and never leaves the repo broken."""

__version__ = "0.1.0"
