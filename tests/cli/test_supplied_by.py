"""Library errors name the value; the CLI names the option that carried it, once (`supplied_by`)."""

from __future__ import annotations

import pytest

from blockfit.cli.common import supplied_by
from blockfit.errors import InputError, ValueProblem


def test_the_option_is_named_once_by_the_innermost_edge() -> None:
    with pytest.raises(ValueProblem) as caught, supplied_by("--outer"), supplied_by("--from"):
        raise ValueProblem("'x.csv' line 3: expected a number")
    assert str(caught.value) == "--from 'x.csv' line 3: expected a number"
    assert caught.value.option == "--from" and caught.value.bare == "'x.csv' line 3: expected a number"


def test_other_errors_pass_unchanged() -> None:
    with pytest.raises(InputError) as caught, supplied_by("--from"):
        raise InputError("--catalog x.toml: not TOML")
    assert str(caught.value) == "--catalog x.toml: not TOML"
    with pytest.raises(KeyError), supplied_by("--from"):
        raise KeyError("k")


def test_a_problem_outside_the_cli_still_names_its_value() -> None:
    problem = ValueProblem("'4.5Q': expected SIZE+GROWTH")
    assert isinstance(problem, InputError) and problem.exit_code == 2
    assert str(problem) == "'4.5Q': expected SIZE+GROWTH" and problem.option is None
