"""patchwright.index."""
