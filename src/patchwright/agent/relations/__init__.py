"""What in a repository relates to what a task is about — no model, no session.

- ``related_tests``: which failing tests are the task's (names, files, coverage) and which
  are unrelated; ``word_forms`` matches a name in the task however it is written.
- ``test_links`` (with ``rust_links`` and ``code_defs``): which source files a test file
  exercises and which tests exercise a source file, in Python, JavaScript/TypeScript, Go
  and Rust.
- ``coverage_links``: the functions a failing test ran, from coverage taken at baseline.
- ``traceback_refs``: the repository files and lines a traceback names.
"""
