"""patchwright.modes."""
