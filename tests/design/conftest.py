"""Shared by the ktune design tests: the environment a design run gets (its own plug-in cache, a test API key)."""
import os
import tempfile

import pytest


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e["KTUNE_PLUGIN_CACHE"] = str(tmp_path / "plugin-cache")
    # ktune's precompiled headers (built from its headers alone, ~5 s) shared by every test, as the C++ tests do.
    e.setdefault("KTUNE_PLUGIN_HEADERS_CACHE", os.path.join(tempfile.gettempdir(), "ktune-test-plugin-headers"))
    e["OPENAI_API_KEY"] = "test-key"
    return e
