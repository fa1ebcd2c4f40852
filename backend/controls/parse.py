"""The one parser of a label config: defusedxml, for every reader (the Label Studio layer, the span auditor).

defusedxml refuses any entity declaration: expat's amplification limit let a 1 MB entity referenced 90
times (~90 MB expanded) through, and no Label Studio template declares entities. The parsed tree is the
stdlib's, so the rest of the code uses ``ElementTree``. It sits here, below every reader, so no reader
parses with another parser (``tests/backend/controls/test_registry.py`` keeps it the only one).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as safe_fromstring

__all__ = ["config_root", "parse_label_config"]


def parse_label_config(xml: str) -> ET.Element:
    """The config's element tree; ValueError when it is empty, not XML, or declares entities or a DTD."""
    if not xml or not xml.strip():
        raise ValueError("the label config is empty")
    try:
        return safe_fromstring(xml, forbid_dtd=True)
    except DefusedXmlException as exc:
        raise ValueError(f"the label config declares a DTD or entities, which are refused: {exc}") from exc
    except ET.ParseError as exc:
        raise ValueError(f"the label config is not well-formed XML: {exc}") from exc


def config_root(config: str | ET.Element) -> ET.Element:
    """A config's tree: the one a caller already parsed (read, never changed, by every reader), else ``config``
    parsed; so a caller that holds the tree (the review's source project) passes it down instead of the XML."""
    return config if isinstance(config, ET.Element) else parse_label_config(config)
