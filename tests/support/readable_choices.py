"""An NLI label config's bare codes as readable values with the codes as alias: what the bare-codes warning asks for.

Why here: three surfaces of the warning (``score``, the audit summary, the report) each check that such a config
is not warned, from the same bare-code config.
"""

from __future__ import annotations

#: Each bare ``<Choice>`` of ``e`` / ``n`` / ``c`` and its readable form (the stored label stays the code).
READABLE = {'<Choice value="e"/>': '<Choice value="Entailment" alias="e"/>',
            '<Choice value="n"/>': '<Choice value="Neutral" alias="n"/>',
            '<Choice value="c"/>': '<Choice value="Contradiction" alias="c"/>'}


def readable(config: str) -> str:
    """``config`` with its bare ``e`` / ``n`` / ``c`` choices given readable values and the codes as alias."""
    for code, shown in READABLE.items():
        config = config.replace(code, shown)
    return config
