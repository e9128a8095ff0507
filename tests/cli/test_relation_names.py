"""Relation, perspective and atom names have one grammar (engine.lexer.NAME): every command line input that takes
a name (--collect, --load-as, export RELATION[PERSPECTIVE]) accepts exactly what the lexer reads as one name."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rofl.engine.base.errors import RoflError
from rofl.engine.lexer import ATOM, is_name, tokenize

from tests.conftest import EXAMPLES

# the `rofl` fixture is a stateless function: sharing it between examples is safe
_CLI = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# names and near misses: ASCII letters, digits, _ and a few characters a name may not hold
_TEXT = st.text(alphabet="abzAZ09_$-. \u00e9", min_size=0, max_size=6)


def _lexer_reads_one_name(text: str) -> bool:
    try:
        tokens = tokenize(text)
    except RoflError:
        return False
    return len(tokens) == 2 and tokens[0].kind == ATOM and tokens[0].text == text  # the name, then end of input


@settings(max_examples=200, deadline=None)
@given(_TEXT)
@example("a")
@example("aB_9")
@example("_a")
@example("A")
@example("caf\u00e9")
def test_is_name_agrees_with_the_lexer(text):
    assert is_name(text) == _lexer_reads_one_name(text)


@_CLI
@given(_TEXT)
@example("sensor_net")
@example("Sensor")
@example("kernel")
def test_load_as_accepts_exactly_the_names(rofl, text):
    code, _, err = rofl(
        "ask", "reading(S, V)", EXAMPLES / "sensors.rofl", "--load-as", text, EXAMPLES / "sensor_readings.rofl"
    )
    if is_name(text):
        assert "is not an atom" not in err
    else:
        assert code == 2 and "is not an atom" in err, (text, code, err)


@_CLI
@given(_TEXT)
@example("count")
@example("Count")
def test_collect_accepts_exactly_the_names(rofl, text):
    code, _, err = rofl("run", EXAMPLES / "counter.rofl", "--ticks", "1", "--collect", text)
    assert ("not a relation name" in err) == (not is_name(text)), (text, code, err)


@settings(max_examples=30, deadline=None)
@given(_TEXT, _TEXT)
@example("dependency", "code")
@example("dependency", "Code")
def test_export_relation_and_perspective_are_names(rel, persp):
    from rofl.questions.graph_documents import parse_relation

    text = f"{rel}[{persp}]"
    if is_name(rel) and is_name(persp):
        assert parse_relation(text) == (rel, persp)
    else:
        try:
            parse_relation(text)
        except RoflError as err:
            assert "not a relation name" in str(err)
        else:
            raise AssertionError(f"{text!r} was taken for a relation")
