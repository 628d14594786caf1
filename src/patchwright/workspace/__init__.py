"""patchwright.workspace."""
