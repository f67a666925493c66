"""The schema fixture files: the spec's examples and the table of rejected schemas."""

import json
from pathlib import Path

FIXTURES = Path(__file__).parent.parent / "fixtures"
SPEC_EXAMPLES = sorted((FIXTURES / "spec_examples").glob("*.json"))
REJECTED = json.loads((FIXTURES / "rejected_schemas.json").read_text(encoding="utf-8"))


def load_example(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
