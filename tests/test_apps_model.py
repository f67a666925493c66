"""MCP Apps, the pure model (``_core/apps.py``): which tools come with an app, who may call
them, what an app's resource must be before it is shown, the CSP domains it may name and the
policy its frame gets."""

from __future__ import annotations

import base64

import pytest

from nb_elicit._core.apps import (
    APP_MIME,
    MAX_APP_BYTES,
    AppRefused,
    AppResource,
    app_csp,
    app_only,
    app_resource,
    content_security_policy,
    csp_domains,
    resource_uri,
    visibility,
)

URI = "ui://demo/clock.html"


def tool(**ui) -> dict:
    return {"name": "t", "_meta": {"ui": ui}}


def read(**item) -> dict:
    return {"contents": [{"uri": URI, "mimeType": APP_MIME, **item}]}


# -- which tools come with an app --------------------------------------------------------------

def test_the_resource_uri_is_read_from_both_keys():
    assert resource_uri(tool(resourceUri=URI)) == URI
    assert resource_uri({"name": "t", "_meta": {"ui/resourceUri": URI}}) == URI  # (older)
    both = {"name": "t", "_meta": {"ui": {"resourceUri": URI}, "ui/resourceUri": "ui://x/y"}}
    assert resource_uri(both) == URI  # (the nested key wins)


@pytest.mark.parametrize("uri", [
    "https://example.com/app.html", "http://127.0.0.1/app", "javascript:alert(1)",
    "data:text/html,<script>1</script>", "file:///etc/passwd", "ui:", "", 7, None,
    ["ui://demo/x"], "ui://" + "a" * 3000,
])
def test_a_resource_uri_that_is_not_ui_is_refused(uri):
    assert resource_uri(tool(resourceUri=uri)) is None
    assert resource_uri({"name": "t", "_meta": {"ui/resourceUri": uri}}) is None


@pytest.mark.parametrize("listed", [
    {"name": "t"}, {"name": "t", "_meta": None}, {"name": "t", "_meta": {"ui": None}},
    {"name": "t", "_meta": {"ui": "ui://demo/x"}}, {"name": "t", "_meta": []},
    {"name": "t", "_meta": {"other": {"resourceUri": URI}}},
])
def test_a_tool_without_ui_meta_has_no_app(listed):
    assert resource_uri(listed) is None
    assert visibility(listed) == ("model", "app") and not app_only(listed)


@pytest.mark.parametrize(("given", "expected"), [
    (None, ("model", "app")),
    ("app", ("model",)),  # (not a list: fails closed, for the person only)
    ("model", ("model",)),
    (["app", 1], ("model",)),  # (not a list of strings)
    ({"app": True}, ("model",)),
    (["model", "app"], ("model", "app")),
    (["app"], ("app",)),
    (["model"], ("model",)),
    (["app", "elsewhere"], ("app",)),  # (unknown audiences are left out)
    ([], ()),
    (["elsewhere"], ()),
])
def test_visibility_defaults_to_both_and_keeps_only_known_audiences(given, expected):
    listed = tool() if given is None else tool(visibility=given)
    assert visibility(listed) == expected
    assert app_only(listed) == (expected == ("app",))


# -- the resource ------------------------------------------------------------------------------

def test_an_app_resource_as_text_is_taken_with_its_csp_and_border():
    found = app_resource(URI, read(text="<p>hi</p>", _meta={"ui": {
        "csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": False}}))
    assert found == AppResource(URI, "<p>hi</p>", {"connectDomains": ["https://api.example.com"]},
                                False)


def test_an_app_resource_as_blob_is_decoded():
    html = "<p>café</p>"
    blob = base64.b64encode(html.encode("utf-8")).decode("ascii")
    assert app_resource(URI, read(blob=blob)).html == html


@pytest.mark.parametrize("mime", [
    "text/html", "text/plain", "application/javascript", "text/html;profile=mcp-apps",
    "image/svg+xml", None, 7,
])
def test_another_mime_type_is_refused_in_one_line(mime):
    with pytest.raises(AppRefused) as refused:
        app_resource(URI, {"contents": [{"uri": URI, "mimeType": mime, "text": "<p>"}]})
    assert f"not {APP_MIME}: it is not shown" in str(refused.value)
    assert "\n" not in str(refused.value)


def test_the_mime_type_is_compared_without_case_or_spaces():
    found = app_resource(URI, {"contents": [{"uri": URI, "mimeType": "Text/HTML; Profile=MCP-App",
                                             "text": "<p>"}]})
    assert found.html == "<p>"


def test_a_resource_over_the_limit_is_refused_as_text_and_as_blob():
    with pytest.raises(AppRefused, match=r"is 0\.0 MB; nb_elicit shows apps up to 0 MB"):
        app_resource(URI, read(text="x" * 101), limit=100)
    assert app_resource(URI, read(text="x" * 100), limit=100).html == "x" * 100
    blob = base64.b64encode(b"x" * 101).decode("ascii")
    with pytest.raises(AppRefused, match="nb_elicit shows apps up to"):
        app_resource(URI, read(blob=blob), limit=100)
    huge = "A" * (MAX_APP_BYTES * 4 // 3 + 100)  # (refused before it is decoded)
    with pytest.raises(AppRefused, match=r"is 8\.4 MB; nb_elicit shows apps up to 8 MB"):
        app_resource(URI, read(blob=huge))


def test_the_size_counts_utf8_bytes():
    with pytest.raises(AppRefused):
        app_resource(URI, read(text="é" * 51), limit=100)  # (102 bytes)


@pytest.mark.parametrize("blob", ["not base64!", base64.b64encode(b"\xff\xfe\x00").decode()])
def test_a_blob_that_is_not_utf8_html_is_refused(blob):
    with pytest.raises(AppRefused, match="is not UTF-8 HTML"):
        app_resource(URI, read(blob=blob))


@pytest.mark.parametrize("answer", [
    {}, {"contents": []}, {"contents": "x"}, None, [],
])
def test_an_empty_answer_is_refused(answer):
    with pytest.raises(AppRefused, match="sent no content"):
        app_resource(URI, answer)


def test_neither_text_nor_blob_is_refused():
    with pytest.raises(AppRefused, match="neither text nor blob"):
        app_resource(URI, read())


def test_the_item_of_the_uri_asked_for_is_taken():
    answer = {"contents": [{"uri": "ui://demo/other", "mimeType": "text/plain", "text": "no"},
                           {"uri": URI, "mimeType": APP_MIME, "text": "<p>yes</p>"}]}
    assert app_resource(URI, answer).html == "<p>yes</p>"


# -- CSP domains -------------------------------------------------------------------------------

def test_plain_origins_are_kept_in_their_lists():
    assert csp_domains({
        "connectDomains": ["https://api.example.com", "wss://live.example.com:8443"],
        "resourceDomains": ["https://*.cdn.example", "https://cdn.example/"],
        "frameDomains": ["https://www.youtube.com"],
        "baseUriDomains": ["http://localhost:8000"],
        "unknownDomains": ["https://x.example"],
    }) == {
        "connectDomains": ("https://api.example.com", "wss://live.example.com:8443"),
        "resourceDomains": ("https://*.cdn.example", "https://cdn.example/"),
        "frameDomains": ("https://www.youtube.com",),
        "baseUriDomains": ("http://localhost:8000",),
    }


@pytest.mark.parametrize("value", [
    "'unsafe-eval'", "'unsafe-inline'", "'self'", "'wasm-unsafe-eval'",
    "https://a.com; script-src *", "https://a.com;", "https://a.com 'unsafe-eval'",
    "https://a.com b.com", "https://a.com\tb.com", "https://a.com\nscript-src *",
    "https://a.com\r\nx", 'https://a.com"', "https://a.com'", " https://a.com", "https://a.com ",
    "https://a.com, script-src *", "https://a.com\x00", "https://a.com\x0cb", "",
    "https://" + "a" * 600, 7, None, ["https://a.com"], {"https://a.com": 1},
])
def test_a_domain_that_could_add_a_source_or_a_directive_is_left_out(value):
    """As the reference host: no ``;``, quote, space or line break; beyond it no other
    whitespace or control character, no ``,``, nothing empty or over 512 characters."""
    assert csp_domains({"connectDomains": [value], "resourceDomains": [value]}) == {}
    kept = csp_domains({"connectDomains": [value, "https://ok.example"]})
    assert kept == {"connectDomains": ("https://ok.example",)}


@pytest.mark.parametrize("value", [
    "https://cdn.example/lib/", "https://*.example.com", "http://localhost:5173", "wss://a.b:8443",
    "https:", "*", "data:", "blob:",
])
def test_what_the_reference_host_takes_is_taken(value):
    """A declared source that adds nothing but itself is the server's to declare (the
    reference host takes it too): it is opened because the server asked."""
    assert csp_domains({"resourceDomains": [value]}) == {"resourceDomains": (value,)}


@pytest.mark.parametrize("csp", [None, "https://a.com", ["https://a.com"], 7,
                                 {"connectDomains": "https://a.com"}])
def test_a_csp_that_is_not_lists_in_an_object_names_nothing(csp):
    assert csp_domains(csp) == {}


def test_at_most_32_domains_a_list():
    many = [f"https://d{i}.example" for i in range(40)]
    assert len(csp_domains({"connectDomains": many})["connectDomains"]) == 32


# -- the policy --------------------------------------------------------------------------------

def directives(policy: str) -> dict[str, list[str]]:
    parsed = {}
    for part in policy.split("; "):
        name, *sources = part.split(" ")
        assert name not in parsed, policy
        parsed[name] = sources
    return parsed


def test_without_declared_domains_an_app_runs_workers_and_reaches_no_network():
    assert directives(content_security_policy({})) == {
        "default-src": ["'none'"],
        "script-src": ["'self'", "'unsafe-inline'", "'unsafe-eval'", "blob:", "data:"],
        "style-src": ["'unsafe-inline'", "blob:", "data:"],
        "img-src": ["data:", "blob:"],
        "font-src": ["data:", "blob:"],
        "media-src": ["data:", "blob:"],
        "connect-src": ["'none'"],
        "worker-src": ["'self'", "blob:"],
        "frame-src": ["'none'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'none'"],
    }
    assert content_security_policy(None) == content_security_policy({})
    assert content_security_policy("https://a.com") == content_security_policy({})


def test_each_declared_list_goes_to_its_directives():
    policy = directives(content_security_policy({
        "connectDomains": ["https://api.example.com", "wss://live.example.com:8443"],
        "resourceDomains": ["https://cdn.example", "https://*.tiles.example"],
        "frameDomains": ["https://www.youtube.com"],
        "baseUriDomains": ["https://base.example"],
    }))
    resource = ["https://cdn.example", "https://*.tiles.example"]
    assert policy["script-src"] == ["'self'", "'unsafe-inline'", "'unsafe-eval'", "blob:",
                                    "data:", *resource]
    assert policy["style-src"] == ["'unsafe-inline'", "blob:", "data:", *resource]
    for name in ("img-src", "font-src", "media-src"):
        assert policy[name] == ["data:", "blob:", *resource]
    assert policy["worker-src"] == ["'self'", "blob:", *resource]
    assert policy["connect-src"] == ["https://api.example.com", "wss://live.example.com:8443"]
    assert policy["frame-src"] == ["https://www.youtube.com"]
    assert policy["base-uri"] == ["https://base.example"]
    assert policy["object-src"] == ["'none'"] and policy["default-src"] == ["'none'"]
    assert policy["form-action"] == ["'none'"]


def test_connect_domains_open_the_network_and_nothing_else():
    policy = directives(content_security_policy({"connectDomains": ["https://api.example.com"]}))
    assert policy["connect-src"] == ["https://api.example.com"]
    assert not any("https://api.example.com" in sources
                   for name, sources in policy.items() if name != "connect-src")


@pytest.mark.parametrize("flag, granted", [(True, True), (False, False), ("true", False),
                                           (1, False), (None, False)])
def test_wasm_unsafe_eval_only_when_the_resource_asks_for_it(flag, granted):
    csp = {"wasmUnsafeEval": flag, "resourceDomains": ["https://cdn.example"]}
    policy = directives(content_security_policy(csp))
    assert ("'wasm-unsafe-eval'" in policy["script-src"]) is granted
    assert policy["script-src"][-1] == "https://cdn.example"
    assert sum("'wasm-unsafe-eval'" in sources for sources in policy.values()) == int(granted)
    assert ("wasmUnsafeEval" in app_csp(csp)) is granted


def test_a_refused_domain_never_reaches_the_policy():
    policy = content_security_policy({
        "connectDomains": ["https://a.com; script-src *", "https://ok.example"],
        "resourceDomains": ["https://b.com 'unsafe-hashes'"],
        "frameDomains": ["'self'"], "baseUriDomains": ["https://c.com\nbase-uri *"]})
    parsed = directives(policy)
    assert parsed["connect-src"] == ["https://ok.example"]
    assert parsed["frame-src"] == ["'none'"] and parsed["base-uri"] == ["'none'"]
    assert "a.com" not in policy and "b.com" not in policy and "c.com" not in policy
    assert policy.count("script-src") == 1 and "\n" not in policy


def test_app_csp_keeps_the_checked_lists_and_the_flag():
    assert app_csp({"connectDomains": ["https://a.example", "'self'"], "wasmUnsafeEval": True,
                    "other": ["https://x.example"]}) == {
        "connectDomains": ["https://a.example"], "wasmUnsafeEval": True}
    assert app_csp(None) == {}
