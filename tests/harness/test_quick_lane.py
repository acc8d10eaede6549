"""The quick-lane check (tests/support/quick_lane.py) fails a session whose unmarked test is slow,
and only then: run on small sessions in this process with a tiny limit."""

from __future__ import annotations

import pytest

from tests.support.quick_lane import QuickLane, is_quick_lane, limit_from_env

SOURCE = """
import time
import pytest

def test_quick():
    pass

{mark}
def test_sleepy():
    time.sleep(0.25)
"""


def run(pytester: pytest.Pytester, mark: str) -> pytest.RunResult:
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow")
    pytester.makepyfile(SOURCE.format(mark=mark))
    return pytester.runpytest("-p", "no:cacheprovider", plugins=[QuickLane(0.2, load=lambda: 1.0)])


def test_an_unmarked_slow_test_fails_the_session_and_is_named(pytester: pytest.Pytester) -> None:
    result = run(pytester, "")
    result.assert_outcomes(passed=2)  # the tests themselves passed: the session did not
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*quick lane: tests not marked slow took too long*", "*::test_sleepy (call): 0.*s >= 0.2s"]
    )
    assert "test_quick" not in result.stdout.str().split("quick lane:")[1]


def test_a_slow_test_marked_slow_passes(pytester: pytest.Pytester) -> None:
    result = run(pytester, "@pytest.mark.slow")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK
    assert "quick lane" not in result.stdout.str()


SETUPS = """
import time
import pytest

@pytest.fixture(scope="module")
def shared():
    time.sleep(0.25)

@pytest.fixture
def own():
    time.sleep({own})

def test_first(shared, own):
    pass

def test_second(shared, own):
    pass
"""


@pytest.mark.parametrize(("own", "too_slow"), [(0, False), (0.25, True)])
def test_a_modules_shared_setup_is_not_its_first_tests_but_a_setup_per_test_is(
    pytester: pytest.Pytester, own: float, too_slow: bool
) -> None:
    pytester.makepyfile(SETUPS.format(own=own))
    result = pytester.runpytest("-p", "no:cacheprovider", plugins=[QuickLane(0.2, load=lambda: 1.0)])
    result.assert_outcomes(passed=2)
    assert (result.ret == pytest.ExitCode.TESTS_FAILED) == too_slow
    if too_slow:  # the first test's setup also started the shared fixture: only the second is named
        result.stdout.fnmatch_lines(["*::test_second (setup): 0.*s >= 0.2s"])
        assert "test_first (setup)" not in result.stdout.str()


def test_the_quick_lane_has_the_tighter_limit_and_the_environment_sets_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert is_quick_lane("not slow") and is_quick_lane(" not  slow ")
    assert not is_quick_lane("") and not is_quick_lane("slow") and not is_quick_lane("not slow and browser")
    monkeypatch.delenv("REUSEIT_QUICK_LIMIT", raising=False)
    assert (limit_from_env(quick_lane=True), limit_from_env(quick_lane=False)) == (2.0, 8.0)
    monkeypatch.setenv("REUSEIT_QUICK_LIMIT", "0")
    assert limit_from_env(quick_lane=True) == limit_from_env(quick_lane=False) == 0.0
    monkeypatch.setenv("REUSEIT_QUICK_LIMIT", "two")
    with pytest.raises(pytest.UsageError, match="REUSEIT_QUICK_LIMIT='two': write a number of seconds"):
        limit_from_env(quick_lane=True)


def test_on_a_loaded_machine_the_limit_stretches_with_the_load(pytester: pytest.Pytester) -> None:
    """A 0.25 s test against a 0.2 s limit: at a load of 10 per core it gets 2 s and passes; at a
    load of 1.1 it gets 0.22 s and still fails, named, with the stretch said."""
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow")
    pytester.makepyfile(SOURCE.format(mark=""))
    loaded = pytester.runpytest("-p", "no:cacheprovider", plugins=[QuickLane(0.2, load=lambda: 10.0)])
    assert loaded.ret == pytest.ExitCode.OK and "quick lane" not in loaded.stdout.str()
    busy = pytester.runpytest("-p", "no:cacheprovider", plugins=[QuickLane(0.2, load=lambda: 1.1)])
    assert busy.ret == pytest.ExitCode.TESTS_FAILED
    busy.stdout.fnmatch_lines(["*::test_sleepy (call): 0.*s >= 0.2s", "*stretched up to 1.1x*"])


def test_the_load_is_per_core_and_never_below_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support import quick_lane

    monkeypatch.setattr(quick_lane.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(quick_lane.os, "getloadavg", lambda: (8.0, 0.0, 0.0))
    assert quick_lane.machine_load() == 4.0
    monkeypatch.setattr(quick_lane.os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    assert quick_lane.machine_load() == 1.0
