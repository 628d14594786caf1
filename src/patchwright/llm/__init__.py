"""patchwright.llm."""
