"""How the hostile server's answers are read in the tests: as a
model reads them (NFKC, no control or format character, look-alikes folded),
and the fence of one answer checked. Shared by tests/e2e-python/test_hostile_remote.py
and tests/hosts/test_hostile_remote_claude.py.
"""

from __future__ import annotations

import re
import unicodedata

from hostile_mcp_server import SECRETS

# The look-alikes the hostile server uses, folded back (the test's own
# reading; Herald folds with the UTS #39 confusables).
LOOK_ALIKES = str.maketrans({"\u0455": "s", "\u0440": "p", "\u0430": "a", "\u043e": "o", "\u03bf": "o"})
FENCE = re.compile(r'<untrusted_remote_output id="([0-9a-f]{16})" server="hostile" tool="hostile__[a-z_]+">')


def read_as_a_model(text: str) -> str:
    """What a model reads in `text`: NFKC, no control or format character,
    look-alikes folded."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if c == "\n" or unicodedata.category(c) not in ("Cc", "Cf"))
    return text.translate(LOOK_ALIKES)


def hidden_or_control(text: str) -> list[str]:
    return [
        f"U+{ord(c):04X}"
        for c in text
        if c not in "\n\t" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")
    ]


def fenced_inner(text: str) -> str:
    """Checks the fence of one answer and returns what is inside it."""
    assert not hidden_or_control(text), (hidden_or_control(text), text)
    opens = FENCE.findall(text)
    assert len(opens) == 1, text
    fence_id = opens[0]
    closing = f'</untrusted_remote_output id="{fence_id}">'
    assert text.count(closing) == 1, text
    start = FENCE.search(text).end()
    end = text.index(closing)
    assert start < end, text
    inner = text[start:end]
    read = read_as_a_model(inner)
    # The fence's name (and the host's) nowhere inside, in any spelling.
    assert not re.search(r"untrusted[\s_\-.]*(remote|context)", read, re.I), inner
    assert re.sub(r"[\s_\-.]", "", read.lower()).count("untrustedremoteoutput") == 0, inner
    # Nothing after the closing tag but Herald's own next: line.
    tail = text[end + len(closing) :]
    assert tail == "" or re.fullmatch(r"\nnext: [^\n]*", tail), text
    return inner


def assert_no_secret(text: str) -> None:
    read = read_as_a_model(text)
    flat = read.replace("\n", "")
    for secret in SECRETS:
        assert secret not in read and secret not in flat, (secret, text)


