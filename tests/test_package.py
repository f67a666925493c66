import subprocess
import sys

import nb_elicit


def test_public_names():
    assert sorted(nb_elicit.__all__) == [
        "Answer", "ArgumentTypeError", "BlockingNotSupported", "BooleanField", "ChoiceField",
        "ConfigError", "ConnectError", "Connection", "ElicitationForm", "Field", "FormSpec",
        "InvalidArgument", "InvalidRequest",
        "MultiChoiceField", "NbElicitError", "NumberField", "Option", "RateLimit", "SchemaError",
        "ServerDisconnected", "ServerError", "SignInError", "TaskCancelled", "TaskDetached",
        "TextField", "ToolCall", "ToolResult",
        "UrlElicitationRequired", "answer_every_session", "answer_interrupt", "claude_hooks",
        "configured_servers",
        "connect", "connections",
        "elicitation_callback", "elicitation_handler", "logout",
        "parse_schema", "record", "replay", "respond", "set_language", "show_app",
        "validate_content",
    ]
    for name in nb_elicit.__all__:
        assert getattr(nb_elicit, name) is not None


def test_schema_error_is_a_value_error_and_an_nb_elicit_error():
    assert issubclass(nb_elicit.SchemaError, ValueError)
    assert issubclass(nb_elicit.SchemaError, nb_elicit.NbElicitError)


def test_importing_the_package_imports_neither_ipywidgets_nor_the_sdk():
    code = "import sys, nb_elicit; print(sorted({'ipywidgets', 'mcp'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_unknown_attributes_raise_attribute_error():
    try:
        nb_elicit.no_such_thing  # noqa: B018
    except AttributeError as error:
        assert "no_such_thing" in str(error)
    else:
        raise AssertionError("expected AttributeError")


def test_the_errors_tree_names_every_error_and_the_errors_module_exports_its_own():
    import importlib
    import pkgutil
    import re

    from nb_elicit._core import errors

    for module in pkgutil.walk_packages(nb_elicit.__path__, "nb_elicit."):
        if ".demo" not in module.name:
            importlib.import_module(module.name)

    def below(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from below(sub)

    every = {cls for cls in below(errors.NbElicitError) if cls.__module__.startswith("nb_elicit.")}
    assert len(every) >= 12
    tree = set(re.findall(r"[├└]── (\w+)", errors.__doc__))
    assert tree == {cls.__name__ for cls in every}
    own = {cls.__name__ for cls in every if cls.__module__ == errors.__name__}
    assert own <= set(errors.__all__)
