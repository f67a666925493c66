"""The official MCP conformance suite against a client built on nb_elicit's public API.

The suite (npm ``@modelcontextprotocol/conformance``, pinned below) starts each scenario's
server, runs ``tests/conformance/client.py <server-url>`` and checks what the client did. Each
case must end ``OVERALL: PASSED``, unless ``tests/conformance/expected-failures.json`` lists it
with its reason; then it must still fail (the suite calls a listed scenario that passes stale).
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.node import node, node_env, npm_package
from helpers.servers import REPO

# `once`: the suite checks what goes over the wire, which nb_elicit's and the SDK's code decide
# alike on every Python; the client's paths (connect, calls, elicitations, sign-in, SSE) run on
# 3.10 and 3.13 in-process against real SDK servers (test_connection, test_sign_in, test_sse,
# test_url_mode). Run once, the npm install into .cache/npm is also never shared by two runs.
pytestmark = [pytest.mark.timeout(900),  # the first run installs the suite from npm
              pytest.mark.once]

SUITE = ("@modelcontextprotocol/conformance", "0.1.16")
CLIENT = Path(__file__).parent / "conformance" / "client.py"
BASELINE = Path(__file__).parent / "conformance" / "expected-failures.json"
#: How long the suite gives the client (it kills it then), and how long we give the suite.
CLIENT_TIMEOUT_MS = 90_000
SUITE_TIMEOUT_S = 240

#: Each case: (scenario, who answers elicitations, how many checks the scenario makes).
CASES = {
    "initialize": ("initialize", "person", 1),
    "tools_call": ("tools_call", "person", 1),
    "elicitation-sep1034-client-defaults:person": (
        "elicitation-sep1034-client-defaults", "person", 5),
    "elicitation-sep1034-client-defaults:policy": (
        "elicitation-sep1034-client-defaults", "policy", 5),
    "sse-retry": ("sse-retry", "person", 3),
    # MCP authorization: the person clicks Sign in on the card; the client follows the link.
    **{f"auth/{name}": (f"auth/{name}", "person", checks) for name, checks in (
        ("metadata-default", 13), ("metadata-var1", 13), ("metadata-var2", 13),
        ("metadata-var3", 13), ("basic-cimd", 13), ("scope-from-www-authenticate", 14),
        ("scope-from-scopes-supported", 14), ("scope-omitted-when-undefined", 14),
        ("scope-step-up", 20), ("scope-retry-limit", 10), ("token-endpoint-auth-basic", 18),
        ("token-endpoint-auth-post", 18), ("token-endpoint-auth-none", 18),
        ("pre-registration", 13), ("2025-03-26-oauth-metadata-backcompat", 4),
        ("2025-03-26-oauth-endpoint-fallback", 7))},
    # The same sign-in, the address the browser landed on pasted into the card.
    "auth/metadata-default:paste": ("auth/metadata-default", "person", 13),
    # The draft scenarios: a protected resource metadata document naming another resource is
    # refused before any sign-in page; offline_access is asked for only where it is offered.
    **{f"auth/{name}": (f"auth/{name}", "person", checks) for name, checks in (
        ("resource-mismatch", 2), ("offline-access-scope", 13),
        ("offline-access-not-supported", 14))},
    # Headless runs (extension scenarios), no person, no card: client credentials with a
    # secret (SEP-1046), with a private key (private_key_jwt, RFC 7523), and enterprise-managed
    # authorization (SEP-990: the IdP's ID token exchanged for an ID-JAG, then a JWT-bearer
    # grant).
    "auth/client-credentials-basic": ("auth/client-credentials-basic", "person", 8),
    "auth/client-credentials-jwt": ("auth/client-credentials-jwt", "person", 8),
    "auth/cross-app-access-complete-flow": ("auth/cross-app-access-complete-flow", "person", 9),
}
#: Per case: checks that must be among those passed (not merely reported as INFO).
MUST_PASS = {
    "auth/resource-mismatch": ("resource-mismatch-rejected",),
    "auth/offline-access-scope": ("sep-2207-offline-access-requested",),
    "auth/offline-access-not-supported": ("sep-2207-offline-access-not-requested",),
    "auth/client-credentials-jwt": ("client-credentials-jwt-verified",),
    "auth/cross-app-access-complete-flow": ("complete-flow-token-exchange",
                                            "complete-flow-jwt-bearer"),
}

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def expected_failures() -> dict[str, str]:
    """The baseline: case -> why it is known to fail."""
    return json.loads(BASELINE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def suite() -> Path:
    return npm_package(*SUITE) / "dist" / "index.js"


def run_scenario(suite: Path, scenario: str, answer: str, listed: bool, tmp_path: Path,
                 deliver: str = "loopback"):
    """Run the suite on one scenario; returns (exit status, its output, its checks)."""
    command = f"exec {sys.executable} {CLIENT}"
    # The suite splits the command at spaces before it runs it through a shell.
    assert " " not in f"{sys.executable}{CLIENT}", f"a path has a space: {command}"
    baseline = tmp_path / "baseline.yml"
    baseline.write_text(f"client:\n  - {scenario}\n" if listed else "client: []\n")
    results = tmp_path / "results"
    env = {k: v for k, v in node_env().items() if not k.startswith("NB_ELICIT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["NB_ELICIT_CONFORMANCE_ANSWER"] = answer
    env["NB_ELICIT_CONFORMANCE_DELIVER"] = deliver
    env["NO_COLOR"] = "1"
    done = subprocess.run(
        [node(), str(suite), "client", "--command", command, "--scenario", scenario,
         "--timeout", str(CLIENT_TIMEOUT_MS), "--expected-failures", str(baseline),
         "--output-dir", str(results)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=SUITE_TIMEOUT_S)
    output = ANSI.sub("", done.stdout + done.stderr)
    (checks_file,) = results.rglob("checks.json")
    checks = json.loads(checks_file.read_text(encoding="utf-8"))
    return done.returncode, output, checks


@pytest.mark.parametrize("case", list(CASES))
def test_the_official_conformance_suite_passes(case, suite, tmp_path):
    scenario, answer, count = CASES[case]
    reason = expected_failures().get(case)
    deliver = "paste" if case.endswith(":paste") else "loopback"
    status, output, checks = run_scenario(suite, scenario, answer, reason is not None, tmp_path,
                                          deliver)
    scored = [c for c in checks if c["status"] in ("SUCCESS", "FAILURE", "WARNING")]
    passed = [c for c in scored if c["status"] == "SUCCESS"]
    summary = f"{case}: {len(passed)}/{len(scored)} checks passed\n{output}"
    if reason is not None:
        # A known failure (listed with its reason) must still fail; the suite exits 0 for it.
        assert "OVERALL: FAILED" in output, f"listed as failing ({reason}) but passed: {summary}"
        assert status == 0, summary
        return
    assert "OVERALL: PASSED" in output, summary
    assert status == 0, summary
    assert len(scored) == count and len(passed) == count, summary
    missing = set(MUST_PASS.get(case, ())) - {c["id"] for c in passed}
    assert not missing, f"{sorted(missing)} did not pass: {summary}"


def test_the_baseline_names_only_cases_that_exist_each_with_its_reason():
    baseline = expected_failures()
    assert isinstance(baseline, dict)
    assert set(baseline) <= set(CASES), f"unknown cases: {sorted(set(baseline) - set(CASES))}"
    assert all(isinstance(why, str) and why.strip() for why in baseline.values())


def test_the_client_refuses_a_scenario_it_does_not_know():
    env = {**os.environ, "MCP_CONFORMANCE_SCENARIO": "no-such-scenario",
           "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, str(CLIENT), "http://127.0.0.1:9/mcp"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "unknown scenario 'no-such-scenario'" in done.stderr
