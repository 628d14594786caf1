"""patchwright.edits."""
