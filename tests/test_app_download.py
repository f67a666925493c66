"""A file an app asks to save (``ui/download-file``): nothing is saved before Save, and what the
app sent is shown as text."""

import base64

import pytest

from nb_elicit._runtime.apps import MAX_DOWNLOAD, _saved_file
from nb_elicit._ui.download_card import DownloadCard, SavedFile


def embedded(**resource):
    return {"type": "resource", "resource": {"uri": "file:///report.csv", **resource}}


def test_an_embedded_text_file_is_read_with_its_name_and_type():
    saved = _saved_file(embedded(mimeType="text/csv", text="a,b\n1,2\n"))
    assert (saved.name, saved.mime, saved.data) == ("report.csv", "text/csv", b"a,b\n1,2\n")


def test_a_blob_is_decoded_and_a_bad_one_refused():
    blob = base64.b64encode(b"\x00\x01binary").decode()
    assert _saved_file(embedded(blob=blob)).data == b"\x00\x01binary"
    with pytest.raises(ValueError, match="not base64"):
        _saved_file(embedded(blob="@@not base64@@"))
    with pytest.raises(ValueError, match="neither text nor blob"):
        _saved_file(embedded())
    with pytest.raises(ValueError, match="embedded resource"):
        _saved_file({"type": "text", "text": "x"})


def test_a_file_over_the_limit_is_refused_before_it_is_decoded():
    too_big = "A" * (MAX_DOWNLOAD * 4 // 3 + 100)
    with pytest.raises(ValueError, match="MB"):
        _saved_file(embedded(blob=too_big))


def test_a_hostile_name_and_type_cannot_break_out_of_the_link():
    saved = SavedFile('x" onclick="alert(1)<b>.html', 'text/html" onload="x', b"<script>")
    assert saved.mime == "application/octet-stream"
    link = saved.link_html()
    assert 'onclick="alert' not in link and "<b>" not in link
    assert link.startswith('<a download="x&quot; onclick=&quot;alert(1)&lt;b&gt;.html"')


def test_nothing_is_offered_for_saving_before_save_is_pressed():
    card = DownloadCard("The app asks to save this file.", SavedFile("r.csv", "text/csv", b"1"),
                        server="demo")
    assert card.link.value == "" and card.link.layout.display == "none"
    card.save_button.click()
    assert card.answer.result().action == "accept"
    assert card.link.layout.display is None
    assert card.link.value.startswith('<a download="r.csv" href="data:text/csv;base64,MQ=="')


def test_decline_answers_decline_and_offers_nothing():
    card = DownloadCard("m", SavedFile("r.csv", "text/csv", b"1"), server="demo")
    card.decline_button.click()
    assert card.answer.result().action == "decline"
    assert card.link.value == ""


def test_a_reader_without_widgets_sees_what_a_prompt_asks_in_one_line():
    """Every prompt's text for a saved notebook or nbconvert comes from one hook, plain_text();
    the download card, which had no text of its own, showed ipywidgets' 'VBox(children=...)'."""
    from nb_elicit._ui.url_card import RetryPanel

    card = DownloadCard("The app sent this file.", SavedFile("r.csv", "text/csv", b"1"),
                        server="demo")
    panel = RetryPanel("Needs a page", [], server="demo", what="tool")
    for prompt, text in [(card, "[demo asks: The app sent this file.]"),
                         (panel, "[demo asks: Needs a page]")]:
        assert prompt._repr_mimebundle_()["text/plain"] == prompt.plain_text() == text
        prompt.close()
