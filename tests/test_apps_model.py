"""MCP Apps, the pure model (``_core/apps.py``): which tools come with an app, who may call
them, what an app's resource must be before it is shown, and the CSP domains it may name."""

from __future__ import annotations

import base64

import pytest

from nb_elicit._core.apps import (
    APP_MIME,
    MAX_APP_BYTES,
    AppRefused,
    AppResource,
    app_only,
    app_resource,
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
    assert found == AppResource(URI, "<p>hi</p>", {"connectDomains": ("https://api.example.com",)},
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
    "'unsafe-eval'", "'unsafe-inline'", "'self'", "*", "https:", "https://*",
    "https://a.com; script-src *", "https://a.com 'unsafe-eval'", "https://a.com\tb.com",
    'https://a.com"', "https://a.com'", "https://a.com/path/more", "javascript:alert(1)",
    "data:", "blob:", "ftp://a.com", " https://a.com", "https://a.com ", "https://a.com:99999x",
    7, None, ["https://a.com"],
])
def test_anything_but_a_plain_origin_is_left_out(value):
    assert csp_domains({"connectDomains": [value], "resourceDomains": [value]}) == {}
    kept = csp_domains({"connectDomains": [value, "https://ok.example"]})
    assert kept == {"connectDomains": ("https://ok.example",)}


@pytest.mark.parametrize("csp", [None, "https://a.com", ["https://a.com"], 7,
                                 {"connectDomains": "https://a.com"}])
def test_a_csp_that_is_not_lists_in_an_object_names_nothing(csp):
    assert csp_domains(csp) == {}


def test_at_most_32_domains_a_list():
    many = [f"https://d{i}.example" for i in range(40)]
    assert len(csp_domains({"connectDomains": many})["connectDomains"]) == 32
