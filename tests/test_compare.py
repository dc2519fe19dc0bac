"""The generic JSON comparison (the wire normalizations have their own tests)."""

from harness.compare import compare, first_difference, mode_for


def test_key_order_never_matters_array_order_does():
    assert first_difference({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}) is None
    assert first_difference([1, 2], [2, 1]) == "/0: expected 1, got 2"


def test_true_is_not_one_but_one_is_one_point_zero():
    assert first_difference(1, 1.0) is None
    assert first_difference(True, 1) is not None
    assert first_difference({"x": 0}, {"x": False}) is not None


def test_missing_and_unexpected_members_are_named_by_pointer():
    assert first_difference({"a/b": 1}, {}) == "/a~1b: missing (expected 1)"
    assert first_difference({}, {"z": None}) == "/z: unexpected member null"


def test_an_extra_item_is_reported_as_such():
    diff = first_difference({"c": ["x", "y"]}, {"c": ["x", "r", "y"]})
    assert diff == ('/c: expected 2 items, got 3; first difference at /c/1: expected "y", '
                    'got "r"')
    assert "got nothing" in first_difference([1, 2], [1])


def test_default_modes_and_an_unnormalizable_output():
    assert mode_for("anthropic.serialize", None) == "anthropic-messages"
    assert mode_for("session.load", None) == "json"
    assert mode_for("anthropic.serialize", "json") == "json"
    assert compare({"messages": []}, "not a body", "anthropic-messages").startswith("/: output is")
