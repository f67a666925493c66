"""nb_elicit's own texts in English and Chinese, chosen by setting, environment or locale."""

import pytest
from helpers.schemas import SPEC_EXAMPLES, load_example

from nb_elicit import ElicitationForm, set_language
from nb_elicit._core.i18n import ENV_LANG, language, t

LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE", ENV_LANG)


@pytest.fixture
def env(monkeypatch):
    for name in LOCALE_VARS:
        monkeypatch.delenv(name, raising=False)
    set_language(None)
    yield monkeypatch
    set_language(None)


def test_english_by_default_chinese_from_a_chinese_locale(env):
    assert language() == "en"
    env.setenv("LANG", "zh_CN.UTF-8")
    assert language() == "zh"
    env.setenv("LC_ALL", "en_GB.UTF-8")  # LC_ALL wins over LANG
    assert language() == "en"


def test_the_environment_variable_and_the_setting_win(env):
    env.setenv("LANG", "zh_CN.UTF-8")
    env.setenv(ENV_LANG, "en")
    assert language() == "en"
    assert set_language("zh") == "zh"
    assert language() == "zh"
    assert set_language("auto") == "en"  # back to NB_ELICIT_LANG
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        set_language("fr")


SEED = next(p for p in SPEC_EXAMPLES if p.name == "seed-02-structured-data-request.json")


def test_a_chinese_form_from_the_seed_example(env):
    set_language("zh")
    example = load_example(SEED)
    schema = example.get("requestedSchema", example.get("params", {}).get("requestedSchema"))
    message = example.get("message", example.get("params", {}).get("message"))
    form = ElicitationForm(message, schema, server="示例服务器")
    assert form.submit_button.description == "提交"
    assert form.decline_button.description == "拒绝"
    assert form.dismiss_button.tooltip == "关闭"
    assert "示例服务器 请求：" in form.message_line.value
    assert message in form.message_line.value  # the server's Chinese, unchanged
    labels = "".join(c.widget.description for c in form.controls.values())
    assert "你的全名" in labels  # a hint, in its field's label
    assert "（必填）" in form.controls["name"].widget.description
    form.submit_button.click()
    assert "请修正 2 个字段；尚未发送任何内容。" in form.status.value
    assert "此字段为必填项。" in (form.controls["name"].error_text or "")
    form.controls["name"].widget.value = "张三"
    form.controls["email"].widget.value = "zhangsan@example.com"
    form.submit_button.click()
    assert form.answer.result().content == {"name": "张三", "email": "zhangsan@example.com"}
    assert "已提交。" in form.status.value


def test_english_texts_stay_as_they_were(env):
    form = ElicitationForm("Hi", {"type": "object", "properties": {
        "age": {"type": "integer", "minimum": 18}}, "required": ["age"]}, server="demo")
    assert form.submit_button.description == "Submit"
    assert form.controls["age"].widget.placeholder == "whole number, at least 18"
    assert t("fix_fields", n=2, s="s") == "Please fix 2 fields; nothing was sent."


def test_the_notices_about_requests_follow_the_language(env):
    """What a call's cell says about a request (refused, answered for the person) is in the
    person's language, like the forms; the server's own text is not translated."""
    import asyncio

    from nb_elicit._core.types import ElicitationRequest
    from nb_elicit._runtime import asking
    from nb_elicit._ui.call_view import CallView

    set_language("zh")
    assert asking._no_frontend("demo").counted.text(3).startswith("没有连接小部件前端")
    assert "3 个请求" in asking._no_frontend("demo").counted.text(3)
    view = CallView("demo", "tool", show_waiting=False)
    request = ElicitationRequest(mode="form", message="Address?", requested_schema={
        "type": "object", "properties": {"x": {"type": "object"}}})

    async def run():
        with pytest.raises(Exception):  # noqa: B017 - the schema's error, sent to the server
            await asking.ask(asking.RequestContext("demo", view), request)

    asyncio.run(run())
    (line,) = view.lines
    assert line.startswith("demo 发送了 nb_elicit 无法显示的表单"), line
    set_language("en")
    assert asking._no_frontend("demo").counted.text(1).startswith(
        "No widget frontend is attached") and "1 request " in asking._no_frontend(
        "demo").counted.text(1)
