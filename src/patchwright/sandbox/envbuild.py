"""The environment a sandboxed command sees: rebuilt from an allowlist, secrets removed.

Nothing is inherited by default. A variable is passed on only when its name is on the
allowlist — for the locale (``LANG``, ``LANGUAGE``, ``LC_ALL``, ``LC_CTYPE``...) only the
names the C library knows, and only with a value that looks like a locale (``C.UTF-8``,
``en_US.UTF-8``, ``de_DE@euro``), so ``LC_X=anything`` cannot carry data in — and even
then it is dropped when its name looks like a key, token, secret, credential or password,
or when its value is a URL that carries a password (``https://user:pass@host``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

LOCALE_NAMES = frozenset(
    {
        "LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_CTYPE",
        "LC_NUMERIC",
        "LC_TIME",
        "LC_COLLATE",
        "LC_MONETARY",
        "LC_MESSAGES",
        "LC_PAPER",
        "LC_NAME",
        "LC_ADDRESS",
        "LC_TELEPHONE",
        "LC_MEASUREMENT",
        "LC_IDENTIFICATION",
    }
)
# C, POSIX, or language[_territory][.codeset][@modifier]; LANGUAGE is a list of these
_LOCALE = re.compile(
    r"(C|POSIX|[A-Za-z]{2,3}(_[A-Za-z0-9]{2,3})?)(\.[A-Za-z0-9][A-Za-z0-9_-]{0,15})?(@[A-Za-z0-9_]{1,16})?"
)

ALLOWED_NAMES = frozenset(
    {
        "PATH",
        "TERM",
        "TZ",
        "USER",
        "LOGNAME",
        "SHELL",
        "COLUMNS",
        "LINES",
        "NO_COLOR",
        "FORCE_COLOR",
        "CI",
        # Python
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "PYTHONHASHSEED",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED",
        "PYTHONWARNINGS",
        "PYENV_ROOT",
        "PYENV_VERSION",
        "CONDA_PREFIX",
        "CONDA_DEFAULT_ENV",
        # pytest: which plugins load, as in the user's shell (not PYTEST_ADDOPTS: an -x or
        # -k there would hide the per-test outcomes the gates compare)
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
        "PYTEST_PLUGINS",
        # Node (nvm, volta, fnm, pnpm, bun, corepack)
        "NODE_PATH",
        "NODE_ENV",
        "NVM_DIR",
        "NVM_BIN",
        "VOLTA_HOME",
        "FNM_DIR",
        "FNM_MULTISHELL_PATH",
        "PNPM_HOME",
        "BUN_INSTALL",
        "COREPACK_HOME",
        # Go (the sandbox points GOPATH, GOMODCACHE and GOCACHE at what it shows; toolchains)
        "GOPATH",
        "GOROOT",
        "GOFLAGS",
        "GOMODCACHE",
        "GO111MODULE",
        "GOWORK",
        "GOOS",
        "GOARCH",
        "GOAMD64",
        "CGO_ENABLED",
        "GOEXPERIMENT",
        "GOPRIVATE",
        "GONOPROXY",
        "GONOSUMDB",
        "GOSUMDB",
        "GOPROXY",
        "GOTOOLCHAIN",
        # Rust (the sandbox sets RUSTUP_HOME and a scratch CARGO_HOME; see toolchains)
        "CARGO_HOME",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_JOBS",
        "CARGO_INCREMENTAL",
        "CARGO_TERM_COLOR",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUST_BACKTRACE",
        # other toolchains (their defaults under the real HOME are hidden)
        "JAVA_HOME",
        # CA bundles, needed when the network is allowed
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
    }
)

_STRONG = re.compile(r"TOKEN|SECRET|CREDENTIAL|PASSW|PASSPHRASE|COOKIE|PRIVATE", re.IGNORECASE)
# weaker words count only as a whole ``_``-separated part or its ending (APIKEY, not MONKEYPATCH)
_WEAK = ("KEY", "AUTH", "SESSION", "PWD", "PASS")
_URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@", re.IGNORECASE)
# names with a secret word that hold none: GOPRIVATE lists which module paths are private
_NOT_SECRET_NAMES = frozenset({"GOPRIVATE"})

SANDBOX_TOKEN_VAR = "PATCHWRIGHT_SANDBOX_RUN"


def looks_secret(name: str, value: str = "") -> bool:
    """True when a variable's name (or value) suggests it carries a credential."""
    if _URL_WITH_PASSWORD.search(value):
        return True
    if name in _NOT_SECRET_NAMES:
        return False
    if _STRONG.search(name):
        return True
    parts = [p for p in name.upper().split("_") if p]
    return any(p.endswith(_WEAK) for p in parts)


def looks_like_locale(value: str) -> bool:
    """``C.UTF-8``, ``en_US.UTF-8``, ``de_DE@euro``, ``POSIX``, empty; or a ``:`` list of them."""
    return all(_LOCALE.fullmatch(part) for part in value.split(":") if part)


def is_allowed(name: str, value: str = "C") -> bool:
    """True when ``name`` (with ``value``) is on the allowlist (before the secret filter)."""
    if name in LOCALE_NAMES:
        return looks_like_locale(value)
    return name in ALLOWED_NAMES


def build_env(
    base: Mapping[str, str],
    *,
    home: str,
    tmpdir: str,
    token: str,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Return the environment for one command.

    ``base`` is usually ``os.environ``; only allowlisted, non-secret names survive.
    ``extra`` (the caller's additions) passes the secret filter too. ``HOME`` and
    ``TMPDIR`` point at the sandbox's private directories, and ``token`` tags every
    process of the run so stragglers can be found and killed afterwards.
    ``PYTHONDONTWRITEBYTECODE`` is always set: a test run leaves no ``__pycache__`` in the
    repository (one without a ``.gitignore`` for it showed ``?? pkg/__pycache__/`` after a
    failed run); the bytecode of installed packages is still read.
    """
    env = {k: v for k, v in base.items() if is_allowed(k, v) and not looks_secret(k, v)}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.setdefault("LANG", "C.UTF-8")
    for key, value in (extra or {}).items():
        if not looks_secret(key, value):
            env[key] = value
    env["HOME"] = home
    env["TMPDIR"] = tmpdir
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env[SANDBOX_TOKEN_VAR] = token
    return env
