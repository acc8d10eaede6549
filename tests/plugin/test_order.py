"""Under ``-n``, the workflow runs that took longest last time start first (pytest_order.py)."""

from __future__ import annotations

import json

import pytest

from pytest_reuseit.pytest_order import slowest_first

QUICK_WF = """\
name: Quick
task: Press a button
start_url: "{base_url}/ops.html"
steps:
  - action: Press the button
    do:
      - click: "#press"
    post:
      - expect: {visible: "#press"}
"""

SLOW_WF = QUICK_WF.replace("name: Quick", "name: Slow").replace(
    '      - click: "#press"\n', '      - click: "#press"\n      - wait: 1500\n'
)
# The same run without its wait: where the order follows a time already recorded (or none), the
# run need not take it again.
SLOW_WF_UNTIMED = SLOW_WF.replace("      - wait: 1500\n", "")

# Each xdist worker writes the order it collected (all workers must collect the same one).
ORDER_CONFTEST = """\
from pathlib import Path

def pytest_collection_finish(session):
    worker = getattr(session.config, "workerinput", None)
    if worker is not None:
        out = Path(__file__).parent / f"order-{worker['workerid']}.txt"
        out.write_text("\\n".join(item.nodeid for item in session.items), encoding="utf-8")
"""


class Fake:
    def __init__(self, nodeid: str, moves: bool = True) -> None:
        self.nodeid = nodeid
        self.moves = moves


def test_slowest_first_moves_workflow_runs_only_within_their_own_places() -> None:
    items = [Fake("a"), Fake("py", moves=False), Fake("b"), Fake("c"), Fake("new"), Fake("d")]
    durations = {"a": 0.5, "b": 3.0, "c": 0.5, "d": 1.0, "py": 99.0}
    slowest_first(items, durations, lambda item: item.moves)  # type: ignore[arg-type, attr-defined]
    # "new" has no duration: it goes first; "a" and "c" tie and keep their order; "py" stays put.
    assert [i.nodeid for i in items] == ["new", "py", "b", "d", "a", "c"]


def test_for_worksteal_the_longest_are_dealt_round_the_parts_each_longest_first() -> None:
    items = [Fake(name) for name in "abcdefg"]
    durations = {"a": 1, "b": 7, "c": 2, "d": 6, "e": 3, "f": 5, "g": 4}
    slowest_first(items, durations, lambda item: True, parts=2)  # type: ignore[arg-type]
    # worksteal gives the first worker the first 4, the second the last 3: 7+5+3+1 against 6+4+2
    assert [i.nodeid for i in items] == ["b", "f", "e", "a", "d", "g", "c"]


def _run(pytester: pytest.Pytester, site: str, *args: str) -> pytest.RunResult:
    # The cache stays on (no -p no:cacheprovider): it is where the durations are kept. The session
    # runs in this process (the plugin takes a thread of its own for Playwright beside the tests'
    # browser); under -n its xdist workers are processes of their own as ever, and the controller
    # that orders the runs and hands them out is this session's.
    return pytester.runpytest_inprocess("--reuseit-llm", "off", "--reuseit-trace", "off", "--base-url", site, *args)


def _orders(pytester: pytest.Pytester, workers: int = 2) -> list[list[str]]:
    files = sorted(pytester.path.glob("order-gw*.txt"))
    assert len(files) == workers, files
    orders = [f.read_text(encoding="utf-8").splitlines() for f in files]
    for f in files:
        f.unlink()
    return orders


def _record(pytester: pytest.Pytester, durations: dict[str, float]) -> None:
    """The durations the cache holds, as a session records them."""
    cache = pytester.path / ".pytest_cache/v/reuseit/durations"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(durations), encoding="utf-8")


@pytest.mark.slow
def test_under_xdist_the_longest_run_last_time_starts_first(pytester: pytest.Pytester, pages_url: str) -> None:
    (pytester.path / "a_quick.reuseit.yaml").write_text(QUICK_WF, encoding="utf-8")
    pytester.makepyfile(m_test="def test_plain():\n    pass\n")
    (pytester.path / "z_slow.reuseit.yaml").write_text(SLOW_WF, encoding="utf-8")
    pytester.makeconftest(ORDER_CONFTEST)

    first = _run(pytester, pages_url)
    first.assert_outcomes(passed=3)
    recorded = json.loads((pytester.path / ".pytest_cache/v/reuseit/durations").read_text(encoding="utf-8"))
    quick, slow = "a_quick.reuseit.yaml::a_quick[default]", "z_slow.reuseit.yaml::z_slow[default]"
    assert set(recorded) == {quick, slow}  # workflow runs only; the Python test is not timed
    # The slow run's 1.5 s wait is in its time. No comparison with the quick run: a loaded machine
    # gave it 1.6 s, and in CI 6.4 s (its worker's browser starting), against the slow run's 2.6 s;
    # a bound on it measures the machine, not the recording.
    assert recorded[slow] >= 1.5 and recorded[quick] > 0, recorded
    # Its time is in the cache now: the order below follows what was recorded, not what the run
    # takes tonight, so the later runs need not wait the 1.5 s again.
    (pytester.path / "z_slow.reuseit.yaml").write_text(SLOW_WF_UNTIMED, encoding="utf-8")
    # The times as a quiet machine records them: on a loaded one the quick run's browser start
    # (6.4 s in CI) made it the longer, and the order below would follow that.
    _record(pytester, {quick: 0.1, slow: 9.0})

    # A workflow run never timed goes first; the Python test keeps its place between them.
    (pytester.path / "b_new.reuseit.yaml").write_text(QUICK_WF.replace("Quick", "New"), encoding="utf-8")
    second = _run(pytester, pages_url, "-n", "2", "--dist", "load")
    second.assert_outcomes(passed=4)
    new = "b_new.reuseit.yaml::b_new[default]"
    assert _orders(pytester) == [[new, slow, "m_test.py::test_plain", quick]] * 2
    assert new in json.loads((pytester.path / ".pytest_cache/v/reuseit/durations").read_text(encoding="utf-8"))

    # Where the order stays the collection's, the controller sends its workers no durations: one
    # worker shows that as well as two, for a Python and a browser less per session. The times
    # recorded before each session would put the slow run first (in one worker as in two): the
    # collection's order is the option obeyed, not the chance order of the times the runs took.
    collected = [quick, new, "m_test.py::test_plain", slow]
    _record(pytester, {quick: 0.1, new: 0.2, slow: 9.0})
    third = _run(pytester, pages_url, "-n", "1", "--reuseit-order", "collected")
    third.assert_outcomes(passed=4)
    assert _orders(pytester, workers=1) == [collected]

    # An order asked for wins: failed first (nothing failed, so the collection's order stays).
    _record(pytester, {quick: 0.1, new: 0.2, slow: 9.0})
    fourth = _run(pytester, pages_url, "-n", "1", "--ff")
    fourth.assert_outcomes(passed=4)
    assert _orders(pytester, workers=1) == [collected]


@pytest.mark.slow
def test_without_a_cache_the_collection_order_stays(pytester: pytest.Pytester, pages_url: str) -> None:
    (pytester.path / "a_quick.reuseit.yaml").write_text(QUICK_WF, encoding="utf-8")
    (pytester.path / "z_slow.reuseit.yaml").write_text(SLOW_WF_UNTIMED, encoding="utf-8")
    pytester.makeconftest(ORDER_CONFTEST)
    quick, slow = "a_quick.reuseit.yaml::a_quick[default]", "z_slow.reuseit.yaml::z_slow[default]"
    # Times that, were they read, would put the slow run first (a run with none would go first).
    _record(pytester, {quick: 0.1, slow: 9.0})
    cache = pytester.path / ".pytest_cache/v/reuseit/durations"
    result = _run(pytester, pages_url, "-n", "1", "-p", "no:cacheprovider")  # one worker: see above
    result.assert_outcomes(passed=2)
    assert _orders(pytester, workers=1) == [[quick, slow]]
    assert json.loads(cache.read_text(encoding="utf-8")) == {quick: 0.1, slow: 9.0}


def test_an_unknown_order_is_a_usage_error(pytester: pytest.Pytester) -> None:
    # In this process: the session stops at its command line, before any browser starts.
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--reuseit-order", "random")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "invalid choice: 'random'" in result.stderr.str()
