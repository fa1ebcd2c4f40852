"""The word list behind the random-word passages (RandP) of the gullibility probes.

Seed 003 (§3.2.1) samples random words from the Brown corpus. We ship our own list of ~3,000
common English words (``backend/data/wordlist.txt``, written for this project, no third-party
source) so a probe run needs no download and gives the same passages on every machine.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

WORDLIST_RESOURCE = ("data", "wordlist.txt")


def parse_wordlist(text: str) -> tuple[str, ...]:
    """Words of a word-list file: one per line, ``#`` comments and blank lines skipped, deduplicated.

    Order is kept (first occurrence wins) so sampling with a seed is stable. Raises ValueError when
    no word is left or a line holds more than one token.
    """
    words: list[str] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if len(line.split()) != 1:
            raise ValueError(f"word list line {number}: one word per line, got {line!r}")
        if line not in seen:
            seen.add(line)
            words.append(line)
    if not words:
        raise ValueError("the word list holds no word")
    return tuple(words)


@lru_cache(maxsize=1)
def load_wordlist() -> tuple[str, ...]:
    """The shipped word list (cached: it is read once per process)."""
    raw = resources.files("backend").joinpath(*WORDLIST_RESOURCE).read_text("utf-8")
    return parse_wordlist(raw)
