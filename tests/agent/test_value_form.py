"""The forms of the strings a line builds: a format or a concatenation, as a pattern a value
fits or does not."""

from __future__ import annotations

from patchwright.agent.value_form import forms


def fits(line: str, value: str) -> bool:
    return any(form.fullmatch(value) for form in forms(line))


def test_a_format_fits_the_values_it_makes() -> None:
    go = 'return fmt.Sprintf("db%bd", decimal)'
    assert fits(go, "db1111d") and not fits(go, "db1111db")
    rust = 'format!("{} {}", res, x)'
    assert fits(rust, " x y z") and not fits(rust, "xyz")
    assert fits('return f"db{bin(n)[2:]}d"', "db0d")
    assert fits("return `db${n.toString(2)}d`;", "db0d")
    assert fits('return "%s%%" % share', "50%") and not fits('return "%s%%" % share', "50")
    assert fits('s = "{{{}}}".format(x)', "{a}") and not fits('s = "{{{}}}".format(x)', "a")


def test_a_concatenation_that_is_the_whole_expression_fits_its_values() -> None:
    line = 'return "db" + decimal.toString(2) + "d";'
    assert fits(line, "db0d") and not fits(line, "db0db")
    assert fits('return "db" + bin(decimal)[2:] + "d"', "db11d")
    assert fits('out = "<" + "b" + ">"', "<b>") is False  # literals alone: no value between


def test_no_form_where_nothing_is_known_of_the_value() -> None:
    assert forms('x = "{}{}".format(a, b)') == []  # no character of its own
    assert forms('msg = "done"') == []  # no verb
    assert forms('return prefix + "db" + x + "d"') == []  # something before the first literal
    assert forms('return "db" + x + "d" + suffix') == []
    assert forms('return "a\\n%s" % x') == []  # an escape: how a report prints it is not known
    assert forms('return "db" , x, "d"') == []  # not joined by +
