"""The Textual TUI: the chat in a full-screen interface (``patchwright tui``)."""
