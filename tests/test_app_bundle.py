"""The committed front-end files: AppFrame's ``nb_elicit/_ui/static/app_host.js`` and the demo
server's app ``nb_elicit/demo/static/clock_app.html``, each built from the locked npm packages
(its header names them), recorded by hash, rebuilt byte for byte; and what the host bundle
exports (the policy it gives an app's frame, the limits on what reaches Python) run in Node.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess

import pytest
from helpers.node import node, node_env
from helpers.servers import REPO

from nb_elicit._core.apps import (
    NOTIFICATIONS,
    PERMISSIONS,
    REQUESTS,
    allow_attribute,
    app_csp,
    content_security_policy,
    granted_permissions,
)
from nb_elicit._ui.app_frame import BUNDLE, LOADER, AppFrame
from nb_elicit.demo.clock import APP_FILE as DEMO_APP

APP_HOST = REPO / "scripts" / "app-host"
BUILD_SCRIPT = REPO / "scripts" / "build_app_host.py"


def build_script():
    spec = importlib.util.spec_from_file_location("build_app_host", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def header_pins(header: str) -> dict[str, str]:
    return dict(re.findall(r"(@?[a-z][\w./-]*)@(\d+\.\d+\.\d+)", header))


def bundle_header() -> str:
    first = BUNDLE.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("/* nb_elicit app host") and first.endswith("*/")
    return first


def demo_app_header() -> str:
    doctype, second = DEMO_APP.read_text(encoding="utf-8").splitlines()[:2]
    assert doctype == "<!DOCTYPE html>"
    assert second.startswith("<!-- nb_elicit demo clock app") and second.endswith("-->")
    return second


@pytest.mark.parametrize("header", [bundle_header, demo_app_header], ids=["host", "demo-app"])
def test_the_header_names_the_versions_the_lock_file_pins(header):
    lock = json.loads((APP_HOST / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    pins = header_pins(header())
    assert pins["@modelcontextprotocol/ext-apps"] == "2.0.4"
    assert set(pins) == {"@modelcontextprotocol/ext-apps", "@modelcontextprotocol/client",
                         "@modelcontextprotocol/core", "zod", "esbuild"}
    assert pins == {name: lock[f"node_modules/{name}"]["version"] for name in pins}


def test_package_json_asks_for_exact_versions_only_and_the_lock_agrees():
    manifest = json.loads((APP_HOST / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((APP_HOST / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    wanted = {**manifest["dependencies"], **manifest["devDependencies"]}
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", version) for version in wanted.values()), wanted
    assert {name: lock[f"node_modules/{name}"]["version"] for name in wanted} == wanted
    assert lock[""]["dependencies"] == manifest["dependencies"]


def test_the_recorded_hashes_are_the_committed_files_s():
    recorded = [line.split() for line in
                (APP_HOST / "BUNDLE.sha256").read_text(encoding="utf-8").splitlines()]
    assert recorded == [
        [hashlib.sha256(BUNDLE.read_bytes()).hexdigest(), "nb_elicit/_ui/static/app_host.js"],
        [hashlib.sha256(DEMO_APP.read_bytes()).hexdigest(),
         "nb_elicit/demo/static/clock_app.html"]]


@pytest.mark.parametrize("path", [BUNDLE, LOADER, DEMO_APP], ids=["host", "loader", "demo-app"])
def test_the_wheel_takes_the_built_files_along(path):
    """Hatch packs every file of the package folder that git does not ignore."""
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'packages = ["nb_elicit"]' in pyproject
    ignored = subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=REPO)
    assert ignored.returncode == 1  # (not ignored)


def test_the_demo_app_is_one_file_that_needs_no_network():
    page = DEMO_APP.read_text(encoding="utf-8")
    assert page.count("<script") == 1 and page.count("</script>") == 1
    assert '<script type="module">' in page and "src=" not in page
    script = page.split('<script type="module">', 1)[1].split("</script>", 1)[0]
    assert 'from"' not in script and "import(" not in script  # (everything is bundled in)
    assert "<!--" not in script
    assert "nb-elicit-demo-clock" in script and "clock_now" in script  # (its own code is in)


@pytest.mark.parametrize(("script", "inline"), [
    ('a="</script>";b="</SCRIPT x"', 'a="<\\/script>";b="<\\/SCRIPT x"'),
    ("x = 1 < 2", "x = 1 < 2"),
])
def test_the_inline_script_cannot_end_its_element(script, inline):
    assert build_script().inline_script(script) == inline


def test_an_inline_script_with_an_html_comment_opener_is_refused():
    with pytest.raises(SystemExit, match="<!--"):
        build_script().inline_script('a = "<!--"')


@pytest.mark.once
def test_a_rebuild_from_the_lock_gives_the_same_bytes(tmp_path):
    rebuilt = build_script().build(tmp_path / "app_host.js")
    assert hashlib.sha256(rebuilt).hexdigest() == hashlib.sha256(BUNDLE.read_bytes()).hexdigest()
    assert rebuilt == BUNDLE.read_bytes()


@pytest.mark.once
def test_a_rebuild_of_the_demo_app_gives_the_same_bytes(tmp_path):
    rebuilt = build_script().build_demo_app(tmp_path / "clock_app.html")
    assert hashlib.sha256(rebuilt).hexdigest() == \
        hashlib.sha256(DEMO_APP.read_bytes()).hexdigest()
    assert rebuilt == DEMO_APP.read_bytes()


def run_bundle(code: str) -> object:
    """Run ``code`` (an async function body) in Node with the bundle imported as ``m``; returns
    what it returns, through JSON."""
    script = (f"const m = await import({json.dumps(BUNDLE.as_uri())});\n"
              f"const out = await (async () => {{ {code} }})();\n"
              "process.stdout.write(JSON.stringify(out));\n")
    done = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True,
                          text=True, env=node_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.once
def test_the_host_module_s_default_export_has_render_only():
    """The loader (AppFrame's ``_esm``) hands anywidget's ``render`` on, and only that: a host
    module with an ``initialize`` would need the loader to hand that on too."""
    assert run_bundle("return Object.keys(m.default);") == ["render"]


@pytest.mark.once
def test_the_front_end_forwards_exactly_the_methods_python_answers():
    lists = run_bundle("return [m.FORWARDED_REQUESTS, m.FORWARDED_NOTIFICATIONS, m.SANDBOX];")
    assert set(lists[0]) == REQUESTS
    assert set(lists[1]) == NOTIFICATIONS
    assert "allow-same-origin" not in lists[2].split()


@pytest.mark.once
def test_the_frame_writes_python_s_policy_as_it_is():
    """One policy: ``_core/apps.py`` builds it from what ``app_csp`` kept, the widget carries
    it as ``policy``, and the front end writes it first in the proxy's head, unchanged."""
    given = {"connectDomains": ["https://api.example.com", "https://a.com; script-src *"],
             "resourceDomains": ["https://*.cdn.example", "https://cdn.example/lib/"],
             "frameDomains": ["https://www.youtube.com"], "wasmUnsafeEval": True}
    frame = AppFrame(csp=given)
    checked, policy = frame.csp, frame.policy
    frame.close()
    assert checked == app_csp(given)
    assert policy == content_security_policy(given)
    found = run_bundle(f"""
        return [m.proxyDocument({json.dumps(policy)}, "app"), m.appliedCsp({json.dumps(checked)}),
                m.proxyDocument(undefined, "app")];""")
    document, told, closed = found
    head = document.split("<head>", 1)[1]
    assert head.startswith(f'<meta http-equiv="Content-Security-Policy" content="{policy}">')
    # (what the app is told it may reach: the same lists, the flag)
    assert told == {"connectDomains": [], "resourceDomains": [], "frameDomains": [],
                    "baseUriDomains": [], **checked}
    assert closed.split("<head>", 1)[1].startswith(
        """<meta http-equiv="Content-Security-Policy" content="default-src 'none'">""")


@pytest.mark.once
def test_the_proxy_document_starts_with_the_policy_and_keeps_its_script_whole():
    policy = content_security_policy({"connectDomains": ["https://x.example"]})
    found = run_bundle(f"""
        return m.proxyDocument({json.dumps(policy)}, "An app</script><!--<script>");""")
    head = found.split("<head>", 1)[1]
    assert head.startswith(f'<meta http-equiv="Content-Security-Policy" content="{policy}">')
    assert found.count("</script>") == 1  # (the title cannot end the proxy's script)
    assert "<!--" not in found and found.count("<script>") == 1
    assert "allow-same-origin" not in found


@pytest.mark.once
def test_the_gate_bounds_rate_size_and_requests_waiting():
    refused = run_bundle("""
        let now = 0;
        const gate = new m.Gate({...m.LIMITS, perSecond: 3, inFlight: 2, maxParamsBytes: 100},
                                () => now);
        const out = [];
        out.push(gate.refuse({a: 1}, true), gate.refuse({a: 1}, true));
        gate.waiting = 2;
        out.push(gate.refuse({a: 1}, true));             // two waiting already
        out.push(gate.refuse({a: 1}, false));            // a notification still goes
        out.push(gate.refuse({a: 1}, false));            // the fourth in one second
        now = 1500;
        gate.waiting = 0;
        out.push(gate.refuse({text: "é".repeat(60)}, true));   // 120 bytes of UTF-8
        out.push(gate.refuse({text: "e".repeat(60)}, true));
        return out;""")
    assert refused[0] is None and refused[1] is None
    assert refused[2] == {"code": -32000, "message": "Too many requests at once: at most 2"}
    assert refused[3] is None
    assert refused[4] == {"code": -32000, "message": "Too many requests: at most 3 a second"}
    assert refused[5] == {"code": -32602, "message": "Request too large: over 100 bytes"}
    assert refused[6] is None


@pytest.mark.once
def test_the_frames_allow_exactly_what_python_granted_and_nothing_by_default():
    """The front end maps permissions as Python does (``_core/apps.py``): only known keys with
    an object value, in one order; nothing granted is no ``allow`` attribute at all."""
    cases = [{}, None, {"microphone": {}}, {"clipboardWrite": {}, "camera": {}},
             {"usb": {}, "geolocation": {}}, {"geolocation": True, "clipboardWrite": "yes"}]
    found = run_bundle(f"""
        const cases = {json.dumps(cases)};
        return [m.PERMISSION_FEATURES, cases.map((c) => m.allowAttribute(c)),
                cases.map((c) => m.grantedPermissions(c))];""")
    features, allows, granted = found
    assert features == PERMISSIONS
    # (camera and microphone never: see _core/apps.py NOT_OFFERED)
    assert allows == ["", "", "", "clipboard-write", "geolocation", ""]
    assert allows[:5] == [allow_attribute(c) for c in cases[:5]]
    assert granted[:5] == [granted_permissions(c) for c in cases[:5]]
    document = run_bundle("""return m.proxyDocument("default-src 'none'", "app");""")
    # (the proxy sets its inner frame's allow from what the host sends it, and only then)
    assert re.search(r'(\w+)&&\w+\.setAttribute\("allow",\1\)', document)
    # (the proxy, its guard inside, is one script element: nothing in it closes it early)
    assert document.lower().count("</script") == 1
    assert AppFrame().permissions == {}


@pytest.mark.once
def test_the_frame_height_stays_within_its_bounds():
    heights = run_bundle("""return [m.clampHeight(10, 800), m.clampHeight(300.2, 800),
        m.clampHeight(5000, 800), m.clampHeight(NaN, 800), m.clampHeight(500, 1)];""")
    assert heights == [40, 301, 800, 40, 40]


@pytest.mark.once
def test_the_frame_takes_the_app_s_whole_height_and_its_box_shows_part_of_it():
    found = run_bundle("""return [
        [m.contentHeight(3000), m.contentHeight(10), m.contentHeight(1e9), m.contentHeight(NaN)],
        [m.visibleHeight(800, 1200), m.visibleHeight(800, 600), m.visibleHeight(800, 0),
         m.visibleHeight(300, 2000), m.visibleHeight(800, 10)],
        m.LIMITS.maxContentHeight, m.LIMITS.maxViewportShare];""")
    content, visible, most, share = found
    assert content == [3000, 40, 50_000, 40]  # (never cut to the box's height)
    assert (most, share) == (50_000, 0.8)
    assert visible == [800, 480, 800, 300, 40]  # (max_height, and 80% of the window)


@pytest.mark.once
def test_the_display_modes_honoured_are_inline_and_fullscreen():
    assert run_bundle("return m.DISPLAY_MODES;") == ["inline", "fullscreen"]
