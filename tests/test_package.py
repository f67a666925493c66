import subprocess
import sys

import nb_elicit


def test_public_names():
    assert sorted(nb_elicit.__all__) == [
        "Answer", "BooleanField", "ChoiceField", "ElicitationForm", "Field", "FormSpec",
        "MultiChoiceField", "NbElicitError", "NumberField", "Option", "SchemaError", "TextField",
        "parse_schema", "validate_content",
    ]
    for name in nb_elicit.__all__:
        assert getattr(nb_elicit, name) is not None


def test_schema_error_is_a_value_error_and_an_nb_elicit_error():
    assert issubclass(nb_elicit.SchemaError, ValueError)
    assert issubclass(nb_elicit.SchemaError, nb_elicit.NbElicitError)


def test_importing_the_package_does_not_import_ipywidgets():
    code = "import sys, nb_elicit; print('ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_unknown_attributes_raise_attribute_error():
    try:
        nb_elicit.no_such_thing  # noqa: B018
    except AttributeError as error:
        assert "no_such_thing" in str(error)
    else:
        raise AssertionError("expected AttributeError")
