import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SPEC_EXAMPLES = sorted((FIXTURES / "spec_examples").glob("*.json"))
REJECTED = json.loads((FIXTURES / "rejected_schemas.json").read_text(encoding="utf-8"))


def load_example(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def contact_schema() -> dict:
    """The seed's structured request: name and email required, age >= 18."""
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "你的全名"},
            "email": {"type": "string", "format": "email", "description": "你的电子邮件地址"},
            "age": {"type": "number", "minimum": 18, "description": "你的年龄"},
        },
        "required": ["name", "email"],
    }
