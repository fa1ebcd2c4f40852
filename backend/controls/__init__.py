"""The control types: one module per Label Studio control tag, registered once, read by every layer.

Each module declares one :class:`backend.controls.control_type.ControlType` (what Label Studio calls the
control, its result type, the attributes kept, its family, how its spec is built, how the expert sees it,
what the report may show of it); :mod:`backend.controls.registry` finds them. The folder imports nothing
above :mod:`backend.common`, so the task model, the families, Label Studio I/O and the report all read it.
"""
