"""The last run per workflow as Prometheus figures: metrics.prom read back with prometheus_client's
own parser, and a push to a real Pushgateway (Debian's prometheus-pushgateway) on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from pytest_reuseit.report import metrics

PUSHGATEWAY = "/usr/bin/prometheus-pushgateway"


def record(workflow: str, variation: str, status: str, **extra: Any) -> dict[str, Any]:
    return {
        "format": 1,
        "test": f"{workflow}::w[{variation}]" if variation else f"{workflow}::w",
        "workflow": workflow,
        "variation": variation,
        "name": "w",
        "status": status,
        "started": 1714616580.0,
        "duration": 12.5,
        "recovered": [],
        "usage": {"calls": 0, "cache_hits": 0, "tokens": 0, "cost": 0.0},
        "steps": [],
        "changed": None,
    } | extra


RECORDS = [
    record("shop/cart.reuseit.yaml", "guest", "failed", duration=30.25),
    record(
        "shop/cart.reuseit.yaml",
        "member",
        "recovered",
        recovered=[{"step": 2, "action": "close the overlay", "fallback": "press Escape"}],
        usage={"calls": 3, "cache_hits": 1, "tokens": 2400, "cost": 0.0125},
    ),
    record("shop/login.reuseit.yaml", "", "passed", duration=4.0),
]


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def wv(workflow: str, variation: str, **more: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted({"workflow": workflow, "variation": variation, **more}.items()))


CART = "shop/cart.reuseit.yaml"


def check_figures(found: dict[tuple[str, tuple[tuple[str, str], ...]], float]) -> None:
    assert found[("reuseit_run_status", wv(CART, "guest", status="failed"))] == 1
    assert found[("reuseit_run_status", wv(CART, "guest", status="passed"))] == 0
    assert found[("reuseit_run_status", wv(CART, "member", status="recovered"))] == 1
    assert found[("reuseit_run_duration_seconds", wv(CART, "guest"))] == 30.25
    assert found[("reuseit_run_recovered", wv(CART, "member"))] == 1
    assert found[("reuseit_run_recovered", wv(CART, "guest"))] == 0
    assert found[("reuseit_run_recovered_steps", wv(CART, "member"))] == 1
    assert found[("reuseit_model_calls", wv(CART, "member"))] == 3
    assert found[("reuseit_model_cost_usd", wv(CART, "member"))] == 0.0125
    assert found[("reuseit_run_status", wv("shop/login.reuseit.yaml", "", status="passed"))] == 1
    assert found[("reuseit_suite_runs", (("status", "failed"),))] == 1
    assert found[("reuseit_suite_runs", (("status", "passed"),))] == 1
    assert found[("reuseit_suite_runs", (("status", "broken"),))] == 0
    assert found[("reuseit_suite_duration_seconds", ())] == 30.25 + 12.5 + 4.0
    assert found[("reuseit_suite_model_cost_usd", ())] == 0.0125


def test_textfile_reads_back_per_workflow_and_variation(tmp_path: Path) -> None:
    before = time.time()
    path = metrics.write_textfile(tmp_path / "report" / metrics.FILE, RECORDS)
    text = path.read_text(encoding="utf-8")
    found = samples(text)
    check_figures(found)
    assert before <= found[("reuseit_report_timestamp_seconds", ())] <= time.time()
    assert all(name.startswith("reuseit_") for name, _ in found)
    # Every status of every run is written (0 or 1): 3 runs x 6 statuses.
    assert sum(1 for name, _ in found if name == "reuseit_run_status") == 18
    assert [p.name for p in path.parent.iterdir()] == [metrics.FILE]  # no temporary file left behind


def test_textfile_of_odd_records_and_of_none(tmp_path: Path) -> None:
    odd = [{"workflow": 'a "quoted"\\path\nx.yaml', "status": "passed", "duration": "n/a", "usage": None}]
    found = samples(metrics.write_textfile(tmp_path / "m.prom", odd).read_text(encoding="utf-8"))
    assert found[("reuseit_run_status", wv('a "quoted"\\path\nx.yaml', "", status="passed"))] == 1
    assert found[("reuseit_run_duration_seconds", wv('a "quoted"\\path\nx.yaml', ""))] == 0
    empty = samples(metrics.write_textfile(tmp_path / "empty.prom", []).read_text(encoding="utf-8"))
    assert empty[("reuseit_suite_runs", (("status", "failed"),))] == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def pushgateway(tmp_path: Path) -> Iterator[str]:
    if not os.access(PUSHGATEWAY, os.X_OK):
        pytest.skip(f"{PUSHGATEWAY} is not installed: apt-get install prometheus-pushgateway (ci/install.sh)")
    port = _free_port()
    proc = subprocess.Popen(
        [PUSHGATEWAY, f"--web.listen-address=127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "pushgateway.log").open("wb"),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"{url}/-/ready", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert proc.poll() is None, (tmp_path / "pushgateway.log").read_text()
            assert time.monotonic() < deadline, "the Pushgateway did not get ready in 10 s"
            time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _gateway_samples(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"{url}/metrics", timeout=5) as answer:
        text = answer.read().decode("utf-8")
    # The gateway adds job and instance labels to what was pushed: drop them to compare.
    out = {}
    for (name, labels), value in samples(text).items():
        if name.startswith("reuseit_") and ("job", "nightly") in labels:
            out[(name, tuple(kv for kv in labels if kv[0] not in ("job", "instance")))] = value
    return out


@pytest.mark.slow
def test_push_to_a_real_pushgateway_replaces_the_last_push(pushgateway: str) -> None:
    assert metrics.push(pushgateway, RECORDS, job="nightly") is None
    found = _gateway_samples(pushgateway)
    check_figures(found)
    # The next night without the login workflow (deleted): its figures leave with the push.
    assert metrics.push(pushgateway, RECORDS[:2], job="nightly") is None
    again = _gateway_samples(pushgateway)
    assert ("reuseit_run_status", wv("shop/login.reuseit.yaml", "", status="passed")) not in again
    assert again[("reuseit_run_status", wv(CART, "guest", status="failed"))] == 1


@pytest.mark.slow
def test_push_to_a_pushgateway_that_is_down() -> None:
    start = time.monotonic()
    error = metrics.push(f"http://user:hunter2@127.0.0.1:{_free_port()}", RECORDS)
    elapsed = time.monotonic() - start
    assert error is not None and error.startswith("pushgateway http://127.0.0.1:")
    assert "connection refused" in error and "3 attempts" in error and "\n" not in error
    assert "hunter2" not in error
    assert elapsed < 3.0  # 0.5 s + 1 s of backoff


@pytest.fixture
def pushgateway_less_site(pages_url: str) -> str:
    return pages_url  # the tests' static site: it cannot take a PUT, and never will


def test_push_to_what_is_not_a_pushgateway(pushgateway_less_site: str) -> None:
    error = metrics.push(pushgateway_less_site, RECORDS)
    assert error is not None and "answered 501" in error and "1 attempt," in error  # not retried
