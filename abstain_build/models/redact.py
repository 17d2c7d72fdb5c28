"""Keeping API keys out of everything we write: messages, logs, records, cache rows.

Servers echo keys back in error bodies (whole, or cut short), and the SDKs put error bodies
into exception text, so every string that crosses from the SDK into our data goes through a
``Redactor`` first. A key can also sit in an endpoint URL (``http://host/v1?key=...``): a
URL is written with its query values and fragment masked (``masked_url``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from urllib.parse import unquote_plus, urlsplit, urlunsplit

#: Where each provider's key is read from (``resolve_api_key``); every value set is masked.
KEY_VARIABLES: dict[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

MASK = "[REDACTED]"
#: Any run of this many characters copied from a key is masked too (a key cut short in an
#: error message is still a secret); shorter runs are too likely to be ordinary text.
FRAGMENT = 12
#: Values shorter than this are not treated as secrets (masking "abc" everywhere would
#: garble messages, and no real key is that short).
MIN_SECRET = 6


class Redactor:
    """Masks given secrets, and runs of ``FRAGMENT`` characters taken from them."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = sorted({s for s in secrets if s and len(s) >= MIN_SECRET}, key=len)[::-1]
        self._windows = {
            s[i : i + FRAGMENT] for s in self.secrets for i in range(len(s) - FRAGMENT + 1)
        }

    @classmethod
    def for_environment(cls, *extra: str) -> Redactor:
        """The given keys plus every provider key variable that is set."""
        found = [os.environ.get(name, "") for name in KEY_VARIABLES.values()]
        return cls([*extra, *found])

    def __call__(self, text: str) -> str:
        if not self.secrets or not text:
            return text
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return self._mask_fragments(text) if self._windows else text

    def _mask_fragments(self, text: str) -> str:
        out: list[str] = []
        i = start = 0
        while i <= len(text) - FRAGMENT:
            if text[i : i + FRAGMENT] not in self._windows:
                i += 1
                continue
            end = i + FRAGMENT
            while end < len(text) and any(text[i : end + 1] in s for s in self.secrets):
                end += 1
            out.append(text[start:i])
            out.append(MASK)
            i = start = end
        out.append(text[start:])
        return "".join(out)


def masked_url(url: str) -> str:
    """``url`` with every query value and the fragment masked, names kept
    (``http://h/v1?key=[REDACTED]&v=[REDACTED]``): which parameter was sent still shows, and
    no value does, whatever its name (servers take keys as ``key``, ``api-key``, ``token``,
    ``sig``, ...)."""
    parts = urlsplit(url)
    query = "&".join(
        f"{field.split('=', 1)[0]}={MASK}" if "=" in field else MASK
        for field in parts.query.split("&")
        if field
    )
    fragment = MASK if parts.fragment else ""
    return urlunsplit(parts._replace(query=query, fragment=fragment))


def url_secrets(url: str) -> list[str]:
    """The values ``masked_url`` hides, for a ``Redactor`` (a server may echo the URL it was
    called at in an error body)."""
    parts = urlsplit(url)
    values = [field.split("=", 1)[-1] for field in parts.query.split("&") if field]
    found = [*values, parts.fragment]
    return list(dict.fromkeys(form for v in found if v for form in (v, unquote_plus(v))))
