"""Authoring mistakes found before a browser starts: `reuseit validate` and collection name the
file, line and column; hostile input (alias bombs, huge or deeply nested files) fails alone, fast."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
import yaml

from pytest_reuseit.cli import main
from pytest_reuseit.errors import WorkflowFormatError
from pytest_reuseit.workflow.loader import parse
from pytest_reuseit.workflow.yaml_reader import MAX_DEPTH, MAX_NODES, _within_limits_at_a_glance
from tests.support.paths import ROOT

ALIAS_BOMB = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""
# The same, its aliases written right after a quoted key's colon, with no space before them.
KEYED_BOMB = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"{b}: &{b} {{" + ", ".join(f'"{k}":*{a}' for k in range(9)) + "}\n"
    for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)
DEEP = "name: n\ntask: " + "[" * 600 + "]" * 600 + "\n"
UNCLOSED = "name: n\ntask: " + "[" * 200_000  # under the size limit; reading it whole took minutes
BIG = "name: n\ntask: t\nstart_url: u\nsteps: [{action: a, do: [{wait: 1}]}]\n" + "# padding\n" * 500_000
HEAD = 'name: n\ntask: t\nstart_url: "{base_url}/"\n'


def problems(text: str) -> list[str]:
    with pytest.raises(WorkflowFormatError) as info:
        parse(text, "w.reuseit.yaml")
    return info.value.problems


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            ALIAS_BOMB, "w.reuseit.yaml:5:20: the document expands to more than 50000 YAML nodes", id="alias-bomb"
        ),
        pytest.param(KEYED_BOMB, "w.reuseit.yaml:5:", id="alias-bomb-after-colons"),
        pytest.param(
            DEEP, f"w.reuseit.yaml:2:{MAX_DEPTH + 6}: nested more than {MAX_DEPTH} levels deep", id="600-deep"
        ),
        pytest.param(
            UNCLOSED,
            f"w.reuseit.yaml:2:{MAX_DEPTH + 6}: nested more than {MAX_DEPTH} levels deep",
            id="200k-unclosed",
            marks=pytest.mark.slow,  # a second of work on an idle machine
        ),
        pytest.param(BIG, "w.reuseit.yaml:1: the file is larger than 256 KiB", id="5MB"),
    ],
)
def test_hostile_input_is_one_clear_error_and_fast(text: str, expected: str) -> None:
    # The work it costs, not the wall clock: a machine that other programs keep busy stretches the
    # wall time of bounded work as well.
    started = time.process_time()
    found = problems(text)
    assert time.process_time() - started < 2
    assert len(found) == 1 and found[0].startswith(expected), found


def _nested_keys(depth: int) -> str:
    """``depth`` mappings, one more space of indentation each (the narrowest block nesting)."""
    return "".join(" " * i + f"k{i}:\n" for i in range(depth - 1)) + " " * (depth - 1) + "k: v\n"


def _keys_over_sequences(depth: int) -> str:
    """A sequence under a key at the key's own column, then a mapping in it: two levels per step."""
    lines, col = [], 0
    for i in range(depth // 2):
        lines.append(" " * col + f"k{i}:")
        lines.append(" " * col + "- x: 1")
        col += 2
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(_nested_keys(MAX_DEPTH + 2), id="indented-keys"),
        pytest.param(_keys_over_sequences(MAX_DEPTH + 4), id="sequences-at-the-key-column"),
        pytest.param("- " * (MAX_DEPTH + 2) + "x\n", id="compact-sequences"),
        pytest.param("t: " + "[" * 12_000, id="unclosed-under-the-glance-size", marks=pytest.mark.slow),
        # Quoted closing brackets close nothing: 100 levels that count as none if they were trusted.
        pytest.param("t: " + '[ "]", ' * 100 + "x" + " ]" * 100 + "\n", id="quoted-closers"),
        pytest.param(
            "a:\n" + "  - " * (MAX_DEPTH // 2) + "[" * (MAX_DEPTH // 2 + 2) + "]" * (MAX_DEPTH // 2 + 2) + "\n",
            id="block-then-flow",
        ),
        pytest.param(
            "t: " + "{a: [" * (MAX_DEPTH // 2 + 1) + "1" + "]}" * (MAX_DEPTH // 2 + 1) + "\n", id="flow-maps-and-lists"
        ),
        # Where a bracket opens a collection though no indicator stands before it on its line.
        pytest.param(
            "t: # c\n" + " [ # c\n" * (MAX_DEPTH + 2) + " x" + "]" * (MAX_DEPTH + 2) + "\n", id="after-comments"
        ),
        pytest.param("t: " + "!!seq [" * (MAX_DEPTH + 2) + "x" + "]" * (MAX_DEPTH + 2) + "\n", id="after-tags"),
        pytest.param(
            "t: " + "".join(f"&a{i} [" for i in range(MAX_DEPTH + 2)) + "x" + "]" * (MAX_DEPTH + 2) + "\n",
            id="after-anchors",
        ),
        pytest.param("t: x\n--- # c\n" + "[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2) + "\n", id="second-document"),
    ],
)
def test_too_deep_in_any_style_is_refused(text: str) -> None:
    assert not _within_limits_at_a_glance(text)  # the glance sends it on to the full walk
    (found,) = problems(text)
    assert f"nested more than {MAX_DEPTH} levels deep" in found


def _depth_and_nodes(text: str) -> tuple[int, int]:
    depth = deepest = nodes = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        nodes += isinstance(event, (yaml.CollectionStartEvent, yaml.ScalarEvent))
    return deepest, nodes


def _random_data(rng: random.Random, depth: int) -> object:
    """Collections nested ``depth`` deep along one branch, with scalars and shallow siblings beside it."""
    leaf = rng.choice(["x", 1, "a: b", "- not a list", "[not, flow]", "{s}", "", None, "& not an anchor"])
    if depth == 0:
        return leaf
    deeper = _random_data(rng, depth - 1)
    siblings = [leaf, [leaf], {"s": leaf}][: rng.randint(0, 3)]
    items = [*siblings, deeper]
    rng.shuffle(items)
    if rng.random() < 0.5:
        return items
    return {f"k{i}": item for i, item in enumerate(items)}


@pytest.mark.slow
def test_the_glance_never_passes_a_file_past_a_limit() -> None:
    """Documents of every shape and depth around the limit, dumped in block, flow and mixed
    styles at several indentations: whatever the glance lets through is within both limits."""
    rng = random.Random(1234)
    passed = 0
    for n in range(300):
        data = _random_data(rng, rng.randint(1, MAX_DEPTH + 8))
        style = {"default_flow_style": rng.choice([False, True, None]), "indent": rng.randint(2, 4)}
        text = yaml.dump(data, Dumper=yaml.CSafeDumper, width=rng.randint(20, 200), **style)
        if _within_limits_at_a_glance(text):
            passed += 1
            depth, nodes = _depth_and_nodes(text)
            assert depth <= MAX_DEPTH and nodes <= MAX_NODES, (n, depth, nodes, text[:300])
    assert passed > 30  # shallow documents are recognised as such


def test_most_shipped_workflows_are_within_the_limits_at_a_glance() -> None:
    """The point of the glance: real workflow files skip the event walk (the collection benchmark's
    file among them, with its ten variations); brackets in selectors and texts do not count."""
    shipped = sorted(ROOT.glob("workflows/**/*.reuseit.yaml"))
    assert len(shipped) > 20
    at_a_glance = [p for p in shipped if _within_limits_at_a_glance(p.read_text(encoding="utf-8"))]
    assert len(at_a_glance) >= len(shipped) - 2, sorted(set(shipped) - set(at_a_glance))
    bench = (ROOT / "benchmarks" / "workflows" / "bench.reuseit.yaml").read_text()
    assert _within_limits_at_a_glance(bench)
    variations = "".join(
        f'  - id: v{i}\n    kind: attribute\n    params: {{product: "product {i}"}}\n' for i in range(10)
    )
    assert _within_limits_at_a_glance(
        bench.replace("tags: [benchmark]\n", "tags: [benchmark]\nvariations:\n" + variations)
    )


def test_yaml_errors_name_line_and_column() -> None:
    assert problems(HEAD + "steps: [{action: a, do: [{click: '#x'}]}\n") == [
        "w.reuseit.yaml:5:1: invalid YAML: expected ',' or ']', but got '<stream end>'"
    ]


def test_role_typo_is_caught_with_did_you_mean() -> None:
    found = problems(HEAD + "steps:\n  - action: a\n    do: [{click: {role: buton, name: Go}}]\n")
    assert found == [
        "w.reuseit.yaml:6: steps[0].do[0].click.role: 'buton' is not an ARIA role (did you mean 'button'?)"
    ]


def test_placeholder_loop_names_the_circle() -> None:
    found = problems(HEAD + 'params: {a: "x{b}", b: "{a}y"}\nsteps: [{action: "{a}", do: [{wait: 1}]}]\n')
    assert found == ["w.reuseit.yaml:4: params.a: placeholders refer to each other in a loop: {a} -> {b} -> {a}"]


def test_extracted_value_used_before_the_step_that_extracts_it() -> None:
    found = problems(
        HEAD
        + """steps:
  - action: Type {price}
    do: [{fill: {css: "#q", value: "{price}"}}]
  - action: Read the price
    do: [{wait: 1}]
    extract: {into: price, text: {css: ".price"}}
  - action: Use it now
    do: [{fill: {css: "#q", value: "{price}"}}]
"""
    )
    assert found == [
        "w.reuseit.yaml:5: steps[0].action: {price} is used before it is extracted (step 2 extracts it)",
        "w.reuseit.yaml:6: steps[0].do[0].fill.value: {price} is used before it is extracted (step 2 extracts it)",
    ]


@pytest.mark.parametrize(
    "step",
    [
        "post: ['The token {secret.TOKEN} is shown']",
        "post: [{check: 'The token {tok} is shown'}]",
        "fallback: ['Type {secret.TOKEN} again']",
        "extract: {into: x, query: 'the row for {tok}'}",
    ],
)
def test_a_secret_in_words_for_the_model_is_a_load_error(step: str) -> None:
    found = problems(
        HEAD + f'params: {{tok: "{{secret.TOKEN}}"}}\nsteps:\n  - action: a\n    do: [{{wait: 1}}]\n    {step}\n'
    )
    assert len(found) == 1 and "{secret.TOKEN} would be sent to the model" in found[0], found


def test_validate_lists_unset_variables_and_invalid_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VERDICT_NOT_SET", raising=False)
    monkeypatch.setenv("VERDICT_SHORT", "ab")
    (tmp_path / "env.reuseit.yaml").write_text(
        HEAD
        + 'steps:\n  - action: a\n    do: [{fill: {css: "#q", value: "{secret.VERDICT_NOT_SET}{env.VERDICT_SHORT}"}}]\n'
        '  - action: b\n    do: [{fill: {css: "#q", value: "{secret.VERDICT_SHORT}"}}]\n'
    )
    (tmp_path / "bomb.reuseit.yaml").write_text(ALIAS_BOMB)
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"INVALID {tmp_path / 'bomb.reuseit.yaml'}\n  " in out
    assert (
        f"{tmp_path / 'env.reuseit.yaml'}:6: steps[0].do[0].fill.value: secret 'VERDICT_NOT_SET' "
        "(used as {secret.VERDICT_NOT_SET}) is not set: export VERDICT_NOT_SET=..." in out
    )
    assert "secret 'VERDICT_SHORT' is shorter than 4 characters" in out
    assert "env.VERDICT_SHORT" not in out  # set, and an env variable may be short
    assert out.rstrip().endswith("0 valid, 2 invalid")


def test_invalid_files_fail_alone_and_the_summary_lists_them(pytester: pytest.Pytester) -> None:
    (pytester.path / "bomb.reuseit.yaml").write_text(ALIAS_BOMB)
    (pytester.path / "deep.reuseit.yaml").write_text(DEEP)
    (pytester.path / "big.reuseit.yaml").write_text(BIG)
    (pytester.path / "role.reuseit.yaml").write_text(HEAD + "steps:\n  - action: a\n    do: [{click: {role: buton}}]\n")
    (pytester.path / "test_other.py").write_text("def test_still_runs():\n    assert True\n")
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert time.monotonic() - started < 30
    result.assert_outcomes(failed=4, passed=1)
    out = result.stdout.str()
    assert "RecursionError" not in out and "Traceback" not in out
    assert "4 invalid workflow file(s):" in out
    assert (
        "INVALID role.reuseit.yaml: role.reuseit.yaml:6: steps[0].do[0].click.role: 'buton' is not an ARIA role" in out
    )
    for name in ("bomb", "deep", "big"):
        assert f"INVALID {name}.reuseit.yaml: {name}.reuseit.yaml:" in out


@pytest.mark.parametrize(
    ("op", "expected"),
    [
        (
            "{switch_page: popup}",
            "steps[0].do[0].switch_page: expected one of the accepted forms: input should be 'main'",
        ),
        ("{upload: {css: '#f', files: [nope.txt]}}", "upload file 'nope.txt' does not exist"),
    ],
)
def test_unknown_page_names_and_missing_upload_files_are_load_errors(op: str, expected: str) -> None:
    found = problems(HEAD + f"steps:\n  - action: a\n    do: [{op}]\n")
    assert len(found) == 1 and expected in found[0], found
