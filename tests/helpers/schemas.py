"""The schema fixture files: the spec's examples, the table of rejected schemas, and the
"everything" server's form."""

import json
from pathlib import Path

FIXTURES = Path(__file__).parent.parent / "fixtures"
SPEC_EXAMPLES = sorted((FIXTURES / "spec_examples").glob("*.json"))
REJECTED = json.loads((FIXTURES / "rejected_schemas.json").read_text(encoding="utf-8"))
#: The official "everything" server's 13-field form (trigger-elicitation-request), verbatim.
EVERYTHING = json.loads((FIXTURES / "everything_elicitation.json").read_text(encoding="utf-8"))


def load_example(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
