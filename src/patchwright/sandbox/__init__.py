"""patchwright.sandbox."""
