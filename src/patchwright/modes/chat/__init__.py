"""``patchwright`` / ``patchwright chat``: the REPL — one Session (one loaded model) for the
whole conversation; each line is a slash command, a question or a task. The TUI
(``ui/tui``) drives the same engine.

Follow a line through it:

1. :mod:`.repl` — ``run_chat``: opens the chat, reads lines (:mod:`.prompt`: completion,
   history, status bar), prints streamed replies; Ctrl-C stops a step, not the chat.
2. :mod:`.state` — ``ChatState``: the session, edit permission, files in context, the
   conversation (:mod:`.history`) and its transcript on disk (:mod:`.sessions`).
3. :mod:`.engine` — ``Chat.handle``: a slash command (:mod:`.commands`), a question or a
   task; compaction when the conversation outgrows its budget.
4. :mod:`.turns` — a question answered from :mod:`.context`; a task: a request built from
   the settings and the chat's flags, then :func:`patchwright.agent.solve.solve` on the
   chat's session, its approval routed through the front end (:mod:`.approval`, :mod:`.ui`).
5. :mod:`.init` and :mod:`.project_facts` — ``/init`` and ``patchwright init``: AGENTS.md
   from what the repository shows.

May import: :mod:`patchwright.modes.terminal`, ``agent``, ``config``, ``events``,
``interrupts``, ``trust_notice``, ``grammars`` and the leaf packages — no other room, no
``ui``, ``cli`` or ``commands`` (the TUI imports the chat, not the other way round).
"""
