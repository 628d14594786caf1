"""A tiny inventory package used by patchwright's demo."""
