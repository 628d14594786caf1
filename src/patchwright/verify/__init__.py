"""patchwright.verify."""
