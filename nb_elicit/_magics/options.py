"""The flags of ``%mcp connect``, read with IPython's ``MagicArgumentParser`` (argparse
underneath), one for each option of :data:`~nb_elicit._core.connect_options.OPTIONS` that has a
flag: its placeholder, allowed values and help come from there. What they give is a checked
:class:`~nb_elicit._core.connect_options.ConnectOptions`.

Every mistake is a one-line :class:`UsageError` that says what to type: never argparse's usage
text, never a ``SystemExit``.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from IPython.core.error import UsageError
from IPython.core.magic_arguments import MagicArgumentParser

from .._core.connect_options import OPTIONS, SIGN_IN, ConnectOptions
from .._core.errors import NbElicitError

if TYPE_CHECKING:
    from .._core.limits import RateLimit

_COMMAND_USAGE = "%mcp connect NAME -- COMMAND [ARGS...]"


#: The transports each group of flags is for, and what is said when one is given elsewhere.
_ONLY_FOR = {
    ("stdio",): "--env and --cwd are for stdio commands (after --), not --url, --sse or a "
                "configured server",
    ("http", "sse"): "--header is for --url and --sse servers",
    ("config",): "--trust is for a server of the MCP config files: %mcp connect NAME --trust",
    ("http",): "--auth, --client-id and the other sign-in options are for --url servers",
}


def _parser() -> MagicArgumentParser:
    """The flags of %mcp connect NAME, one for each option that has one, before the
    ``-- COMMAND [ARGS...]`` tail (with neither a command nor a URL, NAME is a server of the MCP
    config files). Strict about spelling: ``--rate`` is not taken for ``--rate-limit``."""
    # (IPython's parser has no annotations)
    parser = MagicArgumentParser(  # type: ignore[no-untyped-call]
        "%mcp connect", description=_parser.__doc__)
    parser.allow_abbrev = False
    for known in OPTIONS:
        if not known.flag:
            continue
        if known.metavar is None:  # a switch: --trust, --no-apps
            parser.add_argument(known.flag, dest=known.name, help=known.help,
                                action="store_false" if known.default else "store_true")
        else:
            parser.add_argument(known.flag, dest=known.name, metavar=known.metavar,
                                help=known.help, action="append" if known.repeated else "store")
    return parser


PARSER = _parser()


def parse_connect(rest: str) -> ConnectOptions:
    """Read the words after ``%mcp connect``; a :class:`UsageError` names the first problem."""
    options, command = _split_command(rest)
    try:
        words = shlex.split(options)
    except ValueError as error:
        raise UsageError(f"cannot read the options: {error}") from None
    try:
        flags, extra = PARSER.parse_known_args(words)
    except UsageError as error:
        raise UsageError(_what_to_type(str(error))) from None
    if not extra or extra[0].startswith("-"):
        if extra:  # an unknown option, and no name
            raise UsageError(f"unknown option {extra[0].partition('=')[0]} for %mcp connect; "
                             "see %mcp help")
        raise UsageError(f"%mcp connect needs a name: {_COMMAND_USAGE}, %mcp connect NAME "
                         "--url URL, or %mcp connect NAME (a server of the MCP config files)")
    name, extra = extra[0], extra[1:]
    if extra:
        word = extra[0]
        if word.startswith("--"):
            raise UsageError(f"unknown option {word.partition('=')[0]} for %mcp connect; "
                             "see %mcp help")
        raise UsageError(f"unexpected {word!r}; put the server command after --: "
                         f"{_COMMAND_USAGE}")
    headers = dict(pair(h, ":", "--header 'Authorization: Bearer TOKEN'")
                   for h in flags.headers or [])
    env = dict(pair(e, "=", "--env KEY=VALUE") for e in flags.env or [])
    given = [what for what in (command, flags.url, flags.sse, flags.config) if what is not None]
    if len(given) > 1:
        raise UsageError(f"give one of a command, --url, --sse or --config: %mcp connect {name} "
                         f"-- COMMAND [ARGS...], %mcp connect {name} --url URL, or %mcp connect "
                         f"{name} (a server of the MCP config files)")
    transport = ("stdio" if command is not None else "http" if flags.url is not None
                 else "sse" if flags.sse is not None else "config")
    for known in OPTIONS:
        value = getattr(flags, known.name, None)
        if known.only_for and value not in (None, known.default) and (
                transport not in known.only_for):
            raise UsageError(_ONLY_FOR[known.only_for])
    sign_in = {key: getattr(flags, key) for key in SIGN_IN if getattr(flags, key) is not None}
    try:
        # (ConnectOptions takes the command as any list of words, and keeps it as a tuple)
        return ConnectOptions(
            name, command,  # type: ignore[arg-type]
            flags.url, flags.sse, flags.config, headers, env, flags.cwd,
            rate_limit=flags.rate_limit, secret_forms=flags.secret_forms or "warn",
            auth=flags.auth, trust=flags.trust, apps=flags.apps, sign_in=sign_in, as_flags=True)
    except NbElicitError as error:  # (a ConfigError, or the sign-in settings')
        raise UsageError(str(error)) from None


def rate_limit(text: str) -> RateLimit | None:
    """A :class:`RateLimit` (or None for ``off``) from text such as ``2/s burst 4``."""
    from .._core.limits import parse_rate_limit

    try:
        return parse_rate_limit(text)
    except NbElicitError as error:
        raise UsageError(str(error)) from None


def pair(text: str, sep: str, example: str) -> tuple[str, str]:
    """``K=V`` or ``K: V`` as a stripped pair; anything else says how to write it."""
    key, found, value = text.partition(sep)
    if not found or not key.strip():
        raise UsageError(f"cannot read {text!r}; write it like {example}")
    return key.strip(), value.strip()


def _split_command(rest: str) -> tuple[str, list[str] | None]:
    words = rest.split(" -- ", 1) if " -- " in f" {rest} " else [rest]
    if rest.strip().endswith(" --") or rest.strip() == "--":
        raise UsageError(f"nothing after --: {_COMMAND_USAGE}")
    if len(words) == 1:
        return rest, None
    try:
        command = shlex.split(words[1])
    except ValueError as error:
        raise UsageError(f"cannot read the command: {error}") from None
    return words[0], command


def _what_to_type(message: str) -> str:
    """argparse's complaint, said the way the other %mcp errors are."""
    missing = re.match(r"argument (\S+?)(?:/\S+)?: expected one argument", message)
    if missing:
        return f"{missing.group(1)} needs a value; see %mcp help"
    return f"{message.splitlines()[0] if message else 'cannot read the options'}; see %mcp help"
