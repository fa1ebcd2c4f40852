"""``<Choices>``: one label (binary, ordinal, nominal) or a set of labels (``choice="multiple"``) per item.

Its spec is built by the project's derivation (:mod:`backend.labelstudio.projectspec`), which also matches
the built-in specs; its review keeps its ``<Choice>`` children (:mod:`backend.labelstudio.expertview`).
"""

from backend.controls.control_type import ControlType

CONTROL_TYPES = (ControlType(
    tag="Choices", order=10, result_type="choices",
    families={"binary": "backend.families.single", "ordinal": "backend.families.single",
              "nominal": "backend.families.single", "multilabel": "backend.families.multilabel"},
),)
