"""The disk budget of a command: how much new space it may take, enforced while it runs.

1. :mod:`.budget` — ``DiskBudget``: the pieces put together for one run, and the note that
   says what was stopped and what was left.
2. :mod:`.fallocgate` — ``fallocate`` calls judged one at a time before they take space.
3. :mod:`.watch` — every other write: free space polled, the run frozen and counted.
4. :mod:`.clean` — after a stop, the files the run created removed.
"""
