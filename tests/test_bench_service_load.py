"""bench/service_load.py's pieces: the figures it reports (percentiles, summaries), the learners' schedule, and the
roster that puts every learner of the run on the page's numbers. It times nothing here (speed is bench's)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from grader.lessons import load_lesson
from grader.params import default_params, draw
from tests.conftest import bench_script

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(scope="module")
def load() -> Iterator[ModuleType]:
    with bench_script("service_load") as module:
        yield module


def test_percentiles_are_nearest_rank_values_someone_waited(load: ModuleType) -> None:
    values = [float(v) for v in range(1, 201)]  # 1 .. 200, shuffled order must not matter
    shuffled = values[::2] + values[1::2]
    assert load.percentile(shuffled, 50) == 100.0
    assert load.percentile(shuffled, 99) == 198.0
    assert load.percentile(shuffled, 100) == 200.0
    assert load.percentile([0.3], 99) == 0.3
    assert load.percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0
    assert math.isnan(load.percentile([], 50))


def test_summary_of_known_latencies(load: ModuleType) -> None:
    found = load.summary([0.1, 0.2, 0.3, 0.4, 1.0])
    assert found == {"n": 5, "p50_s": 0.3, "p99_s": 1.0, "mean_s": pytest.approx(0.4), "max_s": 1.0}
    assert load.summary([])["n"] == 0


def test_each_learner_checks_every_period_from_its_own_phase_and_the_hand_ins_fill_the_last_seconds(
    load: ModuleType,
) -> None:
    plans = load.check_times(100, 10.0, 300.0, seed=1)
    assert len(plans) == 100
    for times in plans:
        assert 0 <= times[0] < 10 and times[-1] < 300
        assert all(b - a == pytest.approx(10.0) for a, b in zip(times, times[1:], strict=False))
        assert len(times) in (29, 30)
    assert len({round(t[0], 6) for t in plans}) == 100  # the phases are spread, not all at once
    assert plans == load.check_times(100, 10.0, 300.0, seed=1)  # seeded
    burst = load.burst_times(100, 300.0, 10.0)
    assert len(burst) == 100 and burst[0] == 290.0 and max(burst) < 300.0
    assert all(b > a for a, b in zip(burst, burst[1:], strict=False))


def test_the_roster_puts_every_learner_on_the_page_numbers(load: ModuleType, tmp_path: Path) -> None:
    roster = load.write_roster(tmp_path / "roster.csv", ["learner0001", "together00"])
    lines = roster.read_text().splitlines()
    assert lines[0] == "learner,identity" and [x.split(",")[0] for x in lines[1:]] == ["learner0001", "together00"]
    identity = lines[1].split(",")[1]
    lesson = load_lesson(load.LESSON, BENCH.parent / "exercises")
    assert draw(lesson, identity, load.SECRET.encode()) == default_params(lesson)
    assert draw(lesson, "learner0001", load.SECRET.encode()) != default_params(lesson)  # the roster matters


def test_a_tally_keeps_latencies_of_answers_only_and_counts_every_status(load: ModuleType) -> None:
    tally = load.Tally()
    for status, seconds in [(200, 0.1), (503, 0.01), (200, 0.3), (429, 0.01), (0, 180.0), (201, 0.05)]:
        tally.add("check" if status != 201 else "submit", status, seconds)
    check = tally.of("check")
    assert check["n"] == 2 and check["p50_s"] == 0.1 and check["max_s"] == 0.3
    assert check["statuses"] == {"0": 1, "200": 2, "429": 1, "503": 1}
    assert tally.of("submit")["statuses"] == {"201": 1}


@pytest.mark.slow
def test_a_tiny_run_against_a_real_service_answers_every_check_and_stores_every_hand_in(tmp_path: Path) -> None:
    """The script end to end, as small as it goes: a real ``grade serve`` on loopback, three learners, a few
    seconds. What is checked is what it counted, never how fast."""
    out = tmp_path / "load.json"
    tiny = ["--learners", "3", "--concurrent", "2", "--rounds", "1", "--every", "2", "--duration", "4"]
    tiny += ["--burst", "3", "--burst-seconds", "2", "--skip", "local", "--out", str(out)]
    done = subprocess.run([sys.executable, str(BENCH / "service_load.py"), *tiny], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(out.read_text())
    assert found["alone"]["statuses"] == {"200": 2} and found["concurrent"]["statuses"] == {"200": 2}
    checks, hand_ins = found["load"]["checks"], found["load"]["submits"]
    assert checks["statuses"] == {"200": checks["sent"]} and checks["sent"] >= 3  # each learner at least once
    assert hand_ins["statuses"] == {"201": 3}
    assert found["load"]["peak_rss_mib"] > 0 and len(found["load_average"]) == 2
    assert "| service: 3 learners, a check every 2 s for 4 s |" in done.stdout
