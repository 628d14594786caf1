"""patchwright.agent."""
