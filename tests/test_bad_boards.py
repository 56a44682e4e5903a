"""Bad-board fixtures: one file per problem code, each with the exact expected CLI output.

To add one: write tests/bad_boards/<code>.json, check `mapkit validate` by eye, then save its
output as <code>.expected.
"""

import pytest

from conftest import BAD

CASES = sorted(p for p in BAD.iterdir() if p.suffix in (".json", ".yaml"))
# the problem code each fixture is about, when its file name is not the code itself
CODE_OF = {
    "yaml": "json-syntax", "huge-number": "json-syntax", "infinite-number": "schema",
    "not-utf8": "not-json", "not-an-object": "schema", "schema-version": "schema", "schema-rules": "schema",
}
# codes about the file itself rather than its content, pinned by tests/test_validate_cli.py and
# tests/test_inputs_limits.py instead (a fixture cannot be a directory, missing or 20 MiB)
ABOUT_THE_FILE = {"not-a-file", "not-found", "unreadable", "too-large"}


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_fixture_output_is_exact(path, cli, in_repo):
    expected = path.with_suffix(".expected").read_text()
    result = cli("validate", path.relative_to(in_repo))
    assert result.output == expected
    assert result.exit_code == (1 if "invalid (" in expected.splitlines()[-1] else 0)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_fixture_reports_its_code(path, cli, in_repo):
    code = CODE_OF.get(path.stem, path.stem)
    result = cli("validate", "--format", "json", path.relative_to(in_repo))
    import json

    report = json.loads(result.output)
    assert code in {p["code"] for p in report["problems"]}
    for p in report["problems"]:
        assert set(p) == {"severity", "code", "json_path", "subject", "message"}
        assert p["severity"] in ("error", "warning")
        assert p["message"] and not p["message"][0].isupper()  # messages are lowercase


def test_every_check_code_has_a_fixture():
    """Each code the gates and checks can emit is pinned by a fixture (so its wording is reviewed)."""
    import re
    from pathlib import Path

    import mapkit.boardfile as boardfile
    import mapkit.checks as checks

    codes = set()
    import mapkit.cards as cards

    for module in (checks, boardfile, cards):
        source = Path(module.__file__).read_text()
        codes |= set(re.findall(r'(?:ERROR|WARNING|severity), "([a-z-]+)"', source))
        codes |= set(re.findall(r'problem\("([a-z-]+)"', source))
        codes |= set(re.findall(r'DeckWarning\("([a-z-]+)"', source))   # the deck's warnings (check_deck_play)
    assert {"json-syntax", "bad-text", "unclaimable", "schema", "starved-color", "no-drawing"} <= codes  # the patterns still find codes
    pinned = {CODE_OF.get(p.stem, p.stem) for p in CASES}
    assert codes - pinned - ABOUT_THE_FILE == set()


def test_warnings_fail_only_with_strict(cli, in_repo):
    path = "tests/bad_boards/unused-color.json"
    assert cli("validate", path).exit_code == 0
    assert cli("validate", "--strict", path).exit_code == 1
