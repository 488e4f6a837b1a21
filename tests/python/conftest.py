"""Shared fixtures: where the test data and the command-line tool are (set by ctest)."""
import json
import os
import subprocess

import pytest

TESTDATA = os.environ.get("NAPISCOPE_TESTDATA", os.path.join(os.path.dirname(__file__), "../../testdata"))
CLI = os.environ.get("NAPISCOPE_CLI", "napiscope")


def data_path(relative: str) -> str:
    """Path of a file under testdata/."""
    return os.path.join(TESTDATA, relative)


def cli_json(*args: str) -> dict:
    """Runs the command-line tool and parses what it prints as JSON."""
    result = subprocess.run([CLI, *args], capture_output=True, text=True, check=False)
    assert result.returncode in (0, 2), result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="session")
def cli():
    return CLI
