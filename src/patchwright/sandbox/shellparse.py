"""A small shell-word splitter for the policy: enough of POSIX sh/bash to find every simple
command in a line, including those hidden in ``$(...)``, backticks, ``<(...)``, subshells,
function bodies and pipelines. It never executes or expands anything; quoting is honoured
(``'$(x)'`` is text, ``"$(x)"`` is a substitution, ``$'\\x72m'`` is ``rm``). Heredoc bodies
are kept on their ``<<`` word (``Word.heredoc``) — a body piped to a shell is a script —
and the substitutions in an unquoted one are commands the shell runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_CONTROL = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")")
_REDIRECT = ("&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<<", "<&", "<>", ">", "<")
_SEPARATORS = frozenset({";", "&&", "||", ";;", "&", "|", "|&", "(", ")"})
_RESERVED_PREFIX = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"})
_RESERVED_SKIP = frozenset({"fi", "done", "esac", "}", "for", "case", "select", "in"})


class ShellSyntaxError(ValueError):
    """The line is not valid shell (unbalanced quote or parenthesis)."""


@dataclass
class Word:
    """One shell word: its text with quotes removed, and the substitutions inside it."""

    text: str
    subs: list[str] = field(default_factory=list)
    quoted: bool = False
    heredoc: str | None = None  # the body, on the delimiter word of ``<<`` / ``<<-``


@dataclass(frozen=True)
class Op:
    """A control operator (``;``, ``&&``, ``|``, ``(``...) or a redirection (``>``...)."""

    op: str


Token = Word | Op


@dataclass
class Command:
    """A simple command: words, redirections, and how it sits in its pipeline."""

    words: list[Word] = field(default_factory=list)
    redirects: list[tuple[str, Word]] = field(default_factory=list)
    piped_from: Command | None = None
    pipes_into: bool = False
    background: bool = False
    function: str | None = None  # the function whose body this command is in
    depth: int = 0  # how many ``( ... )`` subshells it is inside
    next_op: str | None = None  # the operator after it: ``&&``, ``||``, ``;``, ``|``...

    @property
    def in_current_shell(self) -> bool:
        """Runs in the line's own shell (not a subshell, pipeline, background job or
        function body), so a ``cd`` or an assignment there holds for later commands."""
        return not (
            self.depth or self.piped_from or self.pipes_into or self.background or self.function
        )

    @property
    def argv(self) -> list[str]:
        return [w.text for w in self.words]

    @property
    def subs(self) -> list[str]:
        found = [s for w in self.words for s in w.subs]
        return found + [s for _, w in self.redirects for s in w.subs]


def _read_quoted(s: str, i: int, quote: str) -> tuple[str, int]:
    """Text between a single quote at ``i - 1`` and its closing quote."""
    end = s.find(quote, i)
    if end < 0:
        raise ShellSyntaxError(f"unterminated {quote} quote")
    return s[i:end], end + 1


def _read_balanced(s: str, i: int) -> tuple[str, int]:
    """Inner text of ``$( ... )`` whose body starts at ``i``; quote-aware nesting."""
    depth, j = 1, i
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "'":
            _, j = _read_quoted(s, j + 1, "'")
            continue
        if c == '"':
            j = _read_double(s, j + 1, Word(""))
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return s[i:j], j + 1
        j += 1
    raise ShellSyntaxError("unterminated $( or (")


def _read_backtick(s: str, i: int) -> tuple[str, int]:
    j = i
    while j < len(s):
        if s[j] == "\\":
            j += 2
            continue
        if s[j] == "`":
            return s[i:j].replace("\\`", "`"), j + 1
        j += 1
    raise ShellSyntaxError("unterminated backtick")


def _read_double(s: str, i: int, word: Word) -> int:
    """Read a double-quoted string starting at ``i`` into ``word``; return the next index."""
    j = i
    while j < len(s):
        c = s[j]
        if c == '"':
            return j + 1
        if c == "\\" and j + 1 < len(s):
            nxt = s[j + 1]
            word.text += nxt if nxt in '$`"\\\n' else c + nxt
            j += 2
            continue
        if s.startswith("$(", j):
            inner, j = _read_balanced(s, j + 2)
            word.subs.append(inner)
            word.text += f"$({inner})"
            continue
        if c == "`":
            inner, j = _read_backtick(s, j + 1)
            word.subs.append(inner)
            word.text += f"`{inner}`"
            continue
        word.text += c
        j += 1
    raise ShellSyntaxError('unterminated " quote')


_ANSI_C = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b"}
_ANSI_C.update({"f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"})


def _read_ansi_c(s: str, i: int) -> tuple[str, int]:
    """Text of ``$'...'`` whose body starts at ``i``, escapes decoded (``\\x72`` is ``r``)."""
    out: list[str] = []
    j = i
    while j < len(s):
        c = s[j]
        if c == "'":
            return "".join(out), j + 1
        if c != "\\" or j + 1 >= len(s):
            out.append(c)
            j += 1
            continue
        nxt = s[j + 1]
        if nxt in _ANSI_C:
            out.append(_ANSI_C[nxt])
            j += 2
        elif nxt in "xuU0123456789":
            size = {"x": 2, "u": 4, "U": 8}.get(nxt, 3)
            start = j + 2 if nxt in "xuU" else j + 1
            digits = s[start : start + size]
            base = 8 if nxt not in "xuU" else 16
            valid = "01234567" if base == 8 else "0123456789abcdefABCDEF"
            k = 0
            while k < len(digits) and digits[k] in valid:
                k += 1
            out.append(chr(min(int(digits[:k], base), 0x10FFFF)) if k else "\\" + nxt)
            j = start + k if k else j + 2
        else:
            out.append("\\" + nxt)
            j += 2
    raise ShellSyntaxError("unterminated $' quote")


def _heredoc_subs(body: str) -> list[str]:
    """Command substitutions the shell runs while reading an unquoted heredoc body."""
    found: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\":
            i += 2
        elif body.startswith("$(", i):
            inner, i = _read_balanced(body, i + 2)
            found.append(inner)
        elif body[i] == "`":
            inner, i = _read_backtick(body, i + 1)
            found.append(inner)
        else:
            i += 1
    return found


def _read_heredocs(s: str, i: int, pending: list[tuple[Word, bool]]) -> int:
    """Read the bodies of pending heredocs onto their words; ``i`` is just after the newline."""
    for word, strip_tabs in pending:
        lines: list[str] = []
        while i < len(s):
            end = s.find("\n", i)
            line = s[i:] if end < 0 else s[i:end]
            i = len(s) if end < 0 else end + 1
            if (line.lstrip("\t") if strip_tabs else line) == word.text:
                break
            lines.append(line.lstrip("\t") if strip_tabs else line)
        word.heredoc = "".join(line + "\n" for line in lines)
        if not word.quoted:
            word.subs.extend(_heredoc_subs(word.heredoc))
    return i


_PART_STARTS = frozenset("\\$'\"`<>")


@dataclass
class _Part:
    """A quoted or substituted piece of a word, read by ``_word_part``."""

    text: str
    end: int
    quoted: bool = False
    sub: str | None = None
    double_start: int | None = None  # a double-quoted string still to read from here

    def add_to(self, word: Word) -> int:
        if self.double_start is not None:
            word.quoted = True
            return _read_double(self.text, self.double_start, word)
        word.text += self.text
        word.quoted = word.quoted or self.quoted
        if self.sub is not None:
            word.subs.append(self.sub)
        return self.end


def _word_part(s: str, i: int) -> _Part | None:
    """The quoted or substituted piece of a word starting at ``i``, if one does."""
    c = s[i]
    if c == "\\":
        return _Part(s[i + 1 : i + 2], i + 2, quoted=True)
    if s.startswith("$'", i):
        text, end = _read_ansi_c(s, i + 2)
        return _Part(text, end, quoted=True)
    if s.startswith('$"', i):
        return _Part(s, i + 2, double_start=i + 2)  # a translated string: as "..."
    if c == "'":
        text, end = _read_quoted(s, i + 1, "'")
        return _Part(text, end, quoted=True)
    if c == '"':
        return _Part(s, i + 1, double_start=i + 1)
    if s.startswith("$(", i) or (c in "<>" and s.startswith("(", i + 1)):
        inner, end = _read_balanced(s, i + 2)
        return _Part(s[i:end], end, sub=inner)
    if c == "`":
        inner, end = _read_backtick(s, i + 1)
        return _Part(f"`{inner}`", end, sub=inner)
    return None


def tokenize(s: str) -> list[Token]:
    """Split a shell line into words and operators (no expansion)."""
    tokens: list[Token] = []
    word: Word | None = None
    heredocs: list[tuple[Word, bool]] = []
    pending_heredoc: str | None = None
    i = 0

    def flush() -> None:
        nonlocal word, pending_heredoc
        if word is not None:
            if pending_heredoc is not None:
                heredocs.append((word, pending_heredoc == "<<-"))
                pending_heredoc = None
            tokens.append(word)
            word = None

    while i < len(s):
        c = s[i]
        if c in " \t":
            flush()
            i += 1
        elif c == "\n":
            flush()
            tokens.append(Op(";"))
            i = _read_heredocs(s, i + 1, heredocs)
            heredocs.clear()
        elif c == "#" and word is None:
            end = s.find("\n", i)
            i = len(s) if end < 0 else end
        elif c == "\\" and s.startswith("\\\n", i):
            i += 2  # a line continuation
        elif c in _PART_STARTS and (part := _word_part(s, i)) is not None:
            word = word or Word("")
            i = part.add_to(word)
        elif c in "<>" or s.startswith("&>", i):
            if word is not None and word.text.isdigit() and not word.quoted:
                word = None  # an fd number such as the 2 in 2>
            flush()
            op = next(r for r in _REDIRECT if s.startswith(r, i))
            tokens.append(Op(op))
            if op in ("<<", "<<-"):
                pending_heredoc = op
            i += len(op)
        elif c in ";|&()":
            flush()
            op = next(o for o in _CONTROL if s.startswith(o, i))
            tokens.append(Op(op))
            i += len(op)
        else:
            word = word or Word("")
            word.text += c
            i += 1
    flush()
    return tokens


def split_commands(tokens: list[Token]) -> list[Command]:
    """Group tokens into simple commands, noting pipelines, background jobs and functions."""
    commands: list[Command] = []
    current = Command()
    function: str | None = None
    depth_at_function = 0
    braces = 0
    parens = 0
    i = 0

    def finish(op: str | None) -> None:
        nonlocal current
        if current.words or current.redirects:
            current.function = function
            current.next_op = op
            if op in ("|", "|&"):
                current.pipes_into = True
            if op == "&":
                current.background = True
            commands.append(current)
        nxt = Command()
        if op in ("|", "|&") and commands and commands[-1] is current:
            nxt.piped_from = current
        current = nxt

    while i < len(tokens):
        tok = tokens[i]
        if isinstance(tok, Op) and tok.op in _SEPARATORS:
            if (
                tok.op == "("
                and len(current.words) in (1, 2)
                and i + 1 < len(tokens)
                and tokens[i + 1] == Op(")")
            ):
                function = current.words[-1].text  # name() { ... }
                depth_at_function = braces
                current = Command()
                i += 2
                continue
            finish(tok.op)
            parens = max(parens + {"(": 1, ")": -1}.get(tok.op, 0), 0)
            current.depth = parens
        elif isinstance(tok, Op):  # a redirection: the next word is its target
            target = tokens[i + 1] if i + 1 < len(tokens) else None
            if isinstance(target, Word):
                current.redirects.append((tok.op, target))
                i += 1
        elif not current.words and tok.text in _RESERVED_PREFIX and not tok.quoted:
            if tok.text == "{":
                braces += 1
            elif tok.text == "}":
                braces -= 1
                if function is not None and braces <= depth_at_function:
                    function = None
        else:
            current.words.append(tok)
        i += 1
    finish(None)
    return [c for c in commands if not (c.words and c.words[0].text in _RESERVED_SKIP)]


def parse(line: str) -> list[Command]:
    """All simple commands of ``line`` at this level (substitutions are left in ``subs``)."""
    return split_commands(tokenize(line))
