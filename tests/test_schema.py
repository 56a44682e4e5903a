"""The schema documents itself: every property has a description (directly or on its $ref)."""

import json

import jsonschema

from conftest import REPO


def test_schema_is_valid_2020_12_with_an_id():
    schema = json.loads((REPO / "schemas/board.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] and schema["$schema"].endswith("2020-12/schema")


def test_every_property_is_described():
    schema = json.loads((REPO / "schemas/board.schema.json").read_text())
    defs = schema["$defs"]
    missing = []

    def described(prop):
        if "description" in prop:
            return True
        ref = prop.get("$ref", "")
        return ref.startswith("#/$defs/") and "description" in defs[ref.split("/")[-1]]

    def walk(node, path):
        if isinstance(node, dict):
            for name, prop in node.get("properties", {}).items():
                if not described(prop):
                    missing.append(f"{path}.{name}")
            for key, value in node.items():
                walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}[{i}]")

    walk(schema, "$")
    assert missing == []


def test_bundled_boards_point_at_the_schema():
    for path in (REPO / "boards").glob("*.json"):
        assert json.loads(path.read_text())["$schema"] == "../schemas/board.schema.json"
