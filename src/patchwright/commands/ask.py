"""``patchwright ask``: stream one reply from a model (the users' first smoke test)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer


def _fail(message: str, code: int) -> typer.Exit:
    from patchwright.llm import redact

    typer.echo(f"error: {redact(message)}", err=True)
    return typer.Exit(code)


if TYPE_CHECKING:
    from patchwright.events import Event
    from patchwright.llm import Router


def _notice(event: Event) -> None:
    """Say on stderr why the reply is slow or comes from another model (a retried
    stream may repeat text already shown)."""
    from patchwright.events import (
        ModelFallback,
        ModelKeyCooled,
        ModelKeyRefused,
        ModelRetry,
        ModelWait,
    )

    match event:
        case ModelRetry():
            line = f"retrying {event.model} (attempt {event.attempt} failed)"
        case ModelKeyCooled():
            line = f"{event.model}: key {event.key} rate-limited, cooling for {event.seconds:.0f}s"
        case ModelKeyRefused():
            line = f"{event.model}: key {event.key} refused"
        case ModelFallback():
            line = f"{event.model} failed ({event.reason}); trying the next model"
        case ModelWait():
            line = f"every key is cooling; waiting {event.seconds:.0f}s"
        case _:
            return
    sys.stdout.flush()
    typer.echo(f"\n[{line}]", err=True)


def _build(model: str | None, record: Path | None, as_json: bool) -> Router:
    from patchwright.agent.session import build_model
    from patchwright.trust_notice import settings_for

    settings = settings_for(Path.cwd(), as_json=as_json)
    return build_model(settings, spec=model, record=record, on_event=_notice)


def register(app: typer.Typer) -> None:
    @app.command("ask")
    def ask_command(
        prompt: str = typer.Argument(..., help="What to ask."),
        model: str | None = typer.Option(
            None,
            "--model",
            "-m",
            help="Model spec, e.g. local:qwen2.5-coder-1.5b, ollama:qwen2.5-coder.",
        ),
        max_tokens: int = typer.Option(512, "--max-tokens", min=1, help="Reply budget in tokens."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object, no streaming."),
        record: Path | None = typer.Option(
            None,
            "--record",
            help="Append the reply to this JSONL file (replay with scripted:PATH).",
        ),
    ) -> None:
        """Send PROMPT to a model and stream its reply. Exit 2 on bad input: unknown
        model (in the catalog or on the server), missing or refused key, server down,
        weights missing, empty prompt."""
        from patchwright.config import ConfigError
        from patchwright.llm import CapExceeded, ModelConfigError, ModelError, ProviderError

        if not prompt.strip():
            raise _fail("the prompt is empty; say what to ask, e.g. patchwright ask 'hi'", 2)
        start = time.monotonic()
        try:
            router = _build(model, record, as_json)
            on_token = None if as_json else _stream
            reply = router.complete(
                [{"role": "user", "content": prompt}], on_token=on_token, max_tokens=max_tokens
            )
        except (ConfigError, ModelConfigError) as exc:
            raise _fail(str(exc), 2) from None
        except ProviderError as exc:
            bad_input = exc.kind in {"unreachable", "auth"} or exc.status == 404
            raise _fail(str(exc), 2 if bad_input else 1) from None
        except CapExceeded as exc:
            raise _fail(str(exc), 1) from None
        except ModelError as exc:
            raise _fail(str(exc), 1) from None
        seconds = time.monotonic() - start
        if as_json:
            payload = {
                "content": reply.text,
                "model": reply.model,
                "usage": reply.usage.to_dict(),
                "cost": reply.cost,
                "seconds": round(seconds, 3),
            }
            typer.echo(json.dumps(payload))
            return
        sys.stdout.write("\n")
        u = reply.usage
        source = getattr(router.candidates[0].backend(0), "weights", None)
        where = f", weights {source.describe()}" if source is not None else ""
        typer.echo(
            f"[{reply.model}{where}: {u.prompt_tokens} prompt ({u.cached_tokens} cached) + "
            f"{u.completion_tokens} completion tokens, ${reply.cost:.4f}, {seconds:.1f}s]",
            err=True,
        )


def _stream(piece: str) -> None:
    sys.stdout.write(piece)
    sys.stdout.flush()
