"""Shared by the ktune design tests: the environment a design run gets (its own plug-in cache, a test API key)."""
import os

import pytest


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e["KTUNE_PLUGIN_CACHE"] = str(tmp_path / "plugin-cache")
    e["OPENAI_API_KEY"] = "test-key"
    return e
