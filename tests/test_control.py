"""Long work stays under the user's control, and forked processes keep working.

Each scenario runs in a fresh interpreter (a subprocess), as a user's session would: a fit or
a prediction interrupted by SIGINT raises KeyboardInterrupt promptly and leaves the
estimator as it was; a fit that the machine cannot give memory raises MemoryError instead of
aborting the interpreter; a child forked after the parent used the thread pool predicts and
fits (os.fork, multiprocessing's fork start method, a preload-style server).

The latencies asserted here are loose bounds (`PROMPT`, far below the tens of seconds the
interrupted work would take), so that a busy machine cannot fail them; the sub-second figures
are measured by bench/interrupt_latency.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

# Seconds within which an interrupt must stop the work, however busy the machine.
PROMPT = 5.0

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="SIGINT, fork and RLIMIT_AS are POSIX"
)


def run(script: str, *args: str, timeout: float = 120, env: dict[str, str] | None = None) -> str:
    """Runs `script` in a fresh interpreter (with `env` added to the environment); returns
    its stdout, failing on a non-zero exit."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


# Sends SIGINT to the process `delay` seconds after `start()`, and records when.
SIGNALLER = """
import os, signal, threading, time
sent = []
def start(delay):
    def fire():
        time.sleep(delay)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=fire, daemon=True).start()
"""

INTERRUPTED_FIT = (
    SIGNALLER
    + """
import sys, time
import numpy as np
from quercus import DecisionTreeClassifier

splitter, n_jobs = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
X = rng.random((1_000_000, 20))
y = rng.integers(0, 2, len(X))  # noise: a full tree takes tens of seconds to grow
model = DecisionTreeClassifier(max_depth=4).fit(X[:2000], y[:2000])
before = model.predict_proba(X[:2000])
start(1.0)
t0 = time.perf_counter()
try:
    model.set_params(max_depth=None, splitter=splitter, n_jobs=n_jobs).fit(X, y)
except KeyboardInterrupt:
    latency = time.perf_counter() - sent[0]
else:
    raise SystemExit(f"the fit ended without an interrupt after {time.perf_counter() - t0} s")
# The estimator is exactly as it was before the interrupted call.
assert (model.predict_proba(X[:2000]) == before).all()
assert model.depth_ <= 4
print(latency)
"""
)


@pytest.mark.parametrize("splitter", ["exact", "hist"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_ctrl_c_stops_a_fit_promptly(splitter, n_jobs):
    latency = float(run(INTERRUPTED_FIT, splitter, str(n_jobs)))
    assert 0 <= latency < PROMPT


def test_ctrl_c_stops_a_long_prediction():
    script = (
        SIGNALLER
        + """
import time
import numpy as np
from quercus import DecisionTreeClassifier

rng = np.random.default_rng(0)
X = rng.random((20_000, 2), dtype=np.float32)
X[rng.random(X.shape) < 0.2] = np.nan  # rows that follow several branches: a slow walk
model = DecisionTreeClassifier().fit(X, rng.integers(0, 2, len(X)))
rows = np.repeat(X, 2_500, axis=0)  # 50M rows, read in place
start(0.3)
t0 = time.perf_counter()
try:
    model.predict_proba(rows)
except KeyboardInterrupt:
    print(time.perf_counter() - sent[0])
else:
    raise SystemExit(f"predicted without an interrupt in {time.perf_counter() - t0} s")
"""
    )
    assert float(run(script, timeout=300)) < PROMPT


def test_a_fit_without_memory_raises_memory_error():
    # The address space is capped a little above what the interpreter holds, so the fit's
    # own buffers (rows, sorted lists, scans, the tree) cannot all be had. Rust aborts the
    # process on a failed allocation unless the buffer was reserved fallibly: every cap
    # must give MemoryError (or a fit that fits), never a dead interpreter.
    script = """
import resource, sys
import numpy as np
from quercus import DecisionTreeClassifier

rng = np.random.default_rng(0)
X = np.asfortranarray(rng.random((4_000_000, 4)))
y = rng.integers(0, 2, len(X))
model = DecisionTreeClassifier(max_depth=2).fit(X[:1000], y[:1000])
before = model.predict(X[:1000])
vm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (vm + (int(sys.argv[2]) << 20), resource.RLIM_INFINITY))
try:
    model.set_params(max_depth=None, splitter=sys.argv[1]).fit(X, y)
    print("fitted")
except MemoryError as e:
    print("core" if "could not be allocated" in str(e) else "numpy")
    assert (model.predict(X[:1000]) == before).all()
"""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("reads the address-space size from /proc")
    # Caps that fail within seconds (a larger one lets the tree grow for minutes first). The
    # extension's allocator (mimalloc) reserves address space a GiB at a time, which the
    # warm-up fit above already holds: the cap would then leave the fit that much room
    # (a minute of growth before it fails, over two under load). A small reserve keeps the
    # address space close to what is in use.
    outcomes = [
        run(script, splitter, str(megabytes), env={"MIMALLOC_ARENA_RESERVE": "16MiB"}).strip()
        for splitter, megabytes in (("exact", 150), ("exact", 300), ("hist", 150))
    ]
    assert "core" in outcomes, outcomes


FORK_DATA = """
import numpy as np
from quercus import DecisionTreeClassifier

rng = np.random.default_rng(0)
X = rng.random((200_000, 5))
y = (X[:, 0] + rng.random(len(X)) > 1).astype(int)
model = DecisionTreeClassifier(max_depth=6).fit(X, y)
expected = model.predict(X)  # the parent's thread pool is running from here on
"""


def test_os_fork_child_predicts_and_fits():
    script = (
        FORK_DATA
        + """
import os
pid = os.fork()
if pid == 0:
    ok = (model.predict(X[:10]) == expected[:10]).all() and (model.predict(X) == expected).all()
    again = DecisionTreeClassifier(max_depth=6).fit(X, y)
    os._exit(0 if ok and (again.predict(X) == expected).all() else 1)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0
"""
    )
    run(script, timeout=60)


def test_multiprocessing_fork_pool_predicts_and_fits():
    script = (
        FORK_DATA
        + """
import multiprocessing as mp

def work(seed):
    part = np.random.default_rng(seed).integers(0, len(X), 50_000)
    fitted = DecisionTreeClassifier(max_depth=6).fit(X, y)
    return bool((model.predict(X[part]) == expected[part]).all()
                and (fitted.predict(X) == expected).all())

with mp.get_context("fork").Pool(2) as pool:
    assert all(pool.map(work, range(4)))
"""
    )
    run(script, timeout=60)


def test_preload_style_server_workers_predict_concurrently():
    # gunicorn --preload: the parent loads the model and serves once, then forks workers
    # that each answer requests from several threads at once.
    script = (
        FORK_DATA
        + """
import os
from concurrent.futures import ThreadPoolExecutor

def serve():
    with ThreadPoolExecutor(4) as threads:
        parts = [np.arange(k, len(X), 7) for k in range(8)]
        answers = list(threads.map(lambda p: (model.predict(X[p]) == expected[p]).all(), parts))
    return all(answers)

children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        os._exit(0 if serve() else 1)
    children.append(pid)
codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
assert codes == [0, 0, 0], codes
"""
    )
    run(script, timeout=60)


# --- time limits and progress ------------------------------------------------------------


def _noise(rows: int, features: int = 10):
    import numpy as np

    rng = np.random.default_rng(0)
    return rng.random((rows, features)), rng.integers(0, 2, rows)


def test_max_time_raises_timeout_error_and_keeps_the_model():
    import numpy as np

    from quercus import DecisionTreeClassifier

    X, y = _noise(300_000)
    model = DecisionTreeClassifier(max_depth=3).fit(X[:1000], y[:1000])
    before = model.predict_proba(X[:1000])
    with pytest.raises(TimeoutError, match=r"max_time = 0\.05 s"):
        model.set_params(max_depth=None, max_time=0.05).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X[:1000]), before)
    assert model.set_params(max_time=60.0).fit(X[:1000], y[:1000]).n_leaves_ > 1


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "5", True])
def test_max_time_must_be_positive_seconds(bad):
    from quercus import DecisionTreeRegressor

    with pytest.raises(ValueError, match="max_time"):
        DecisionTreeRegressor(max_time=bad).fit([[0.0], [1.0]], [0.0, 1.0])


def test_a_progress_callback_sees_the_nodes_grow_and_can_stop_the_fit():
    from quercus import DecisionTreeClassifier, _core

    X, y = _noise(300_000)
    model = DecisionTreeClassifier()
    reports: list[tuple[int, str]] = []

    class EnoughError(Exception):
        pass

    def progress(done: int, units: str) -> None:
        reports.append((done, units))
        if len(reports) == 3:
            raise EnoughError

    data = quercus_training(model, X, y)
    with pytest.raises(EnoughError):
        _core.fit(*data, progress=progress)
    assert [units for _, units in reports] == ["nodes"] * 3
    assert reports[0][0] <= reports[1][0] <= reports[2][0]


def quercus_training(model, X, y):
    """The arguments `_core.fit` takes for `model` on X, y (as `fit` builds them)."""
    from dataclasses import asdict

    from quercus.inputs.training import training_data

    data = training_data(X, y, target=None, sample_weight=None, classification=True)
    params = asdict(model._validated_params(model._checked(), data))
    return data.columns, data.y, data.n_classes, data.sample_weight, params


def test_progress_lines_on_a_log_and_on_a_terminal():
    import io

    from quercus.scale.progress import Progress

    log = io.StringIO()
    quiet = Progress("fit", stream=log, interactive=False)
    quiet(100, "nodes")  # within its first second: nothing
    quiet.close()
    assert log.getvalue() == ""

    slow = Progress("predict", total=1_000_000, stream=log, interactive=False)
    slow.started -= 4.0  # as if four seconds had passed
    slow(250_000, "rows")
    slow(500_000, "rows")  # within ten seconds of the last line: not repeated
    slow.close()
    first, last = log.getvalue().splitlines()
    assert first.startswith("quercus predict: 250,000 rows of 1,000,000 (25%), 0:12 left")
    assert "rows/s" in first
    assert last.startswith("quercus predict: 1,000,000 rows of 1,000,000 (100%)")

    screen = io.StringIO()
    bar = Progress("fit", stream=screen, interactive=True)
    bar.started -= 2.0
    bar(10, "nodes")
    bar(20, "nodes")
    bar.close()
    frames = screen.getvalue().split("\r\x1b[2K")[1:]
    assert [f.split(",")[0] for f in frames] == [
        "quercus fit: 10 nodes",
        "quercus fit: 20 nodes",
        "quercus fit: 20 nodes",
    ]
    assert frames[-1].endswith("\n") and not frames[0].endswith("\n")


def test_verbose_estimators_report_long_fits_on_stderr():
    script = """
import numpy as np
from quercus import DecisionTreeClassifier
rng = np.random.default_rng(0)
X = rng.random((600_000, 10)); y = rng.integers(0, 2, len(X))
DecisionTreeClassifier(verbose=1, splitter="exact", n_jobs=1).fit(X, y)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("quercus fit: ") for line in lines), done.stderr
    assert "nodes" in lines[-1] and "elapsed" in lines[-1]


@pytest.mark.parametrize("delay", [0.5, 1.0])
def test_cli_ctrl_c_exits_130_with_one_line(tmp_path, delay):
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(0)
    frame = pl.DataFrame({f"x{j}": rng.random(1_000_000) for j in range(10)})
    frame = frame.with_columns(y=pl.Series(rng.integers(0, 2, frame.height)))
    data = tmp_path / "noise.parquet"
    frame.write_parquet(data)
    cli = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "quercus",
            "fit",
            str(data),
            "--target",
            "y",
            "--classification",  # the task given: no notice of the one read from y
            "-o",
            str(tmp_path / "m.qrc"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "QUERCUS_PROGRESS_AFTER": "0"},
    )
    import signal
    import time

    # The fit has begun once its start line is out (stderr is no terminal): on a busy
    # machine reading the file can take seconds, so wait for it rather than for a time.
    assert cli.stderr is not None
    started = cli.stderr.readline()
    time.sleep(delay)  # while its modules are imported (0.5 s), or well into the fit
    sent = time.perf_counter()
    cli.send_signal(signal.SIGINT)
    out, err = cli.communicate(timeout=60)
    latency = time.perf_counter() - sent
    assert cli.returncode == 130, (out, err)
    # The step's start line, then the interrupt; nothing else.
    assert [started.strip(), *err.strip().splitlines()] == [
        "quercus: fitting ...",
        "quercus: interrupted",
    ]
    assert latency < PROMPT
    assert not (tmp_path / "m.qrc").exists()


# A library that loses the KeyboardInterrupt raised inside it: one that swallows it (a fit ran
# to its end in a CI run), and one that turns it into another BaseException (Polars 2.1
# panics on it while it starts reading a file; pyo3's PanicException is a BaseException).
_LOSSES = {
    "swallowed": "pass",
    "turned into a panic": "raise Panic('called unwrap() on KeyboardInterrupt')",
}


@pytest.mark.parametrize("loss", sorted(_LOSSES))
def test_cli_ctrl_c_ends_the_command_when_a_library_loses_it(loss):
    script = textwrap.dedent(
        f"""
        import sys, time
        from quercus import __main__ as cli

        class Panic(BaseException):
            pass

        def library_call(args):
            try:
                print("ready", flush=True)
                time.sleep(60)
            except KeyboardInterrupt:
                {_LOSSES[loss]}
            time.sleep(60)  # the command would go on as if not interrupted

        cli._fit = library_call
        sys.argv = ["quercus", "fit", "data.csv", "--target", "y", "-o", "m.qrc"]
        cli.run()
        """
    )
    import signal
    import time

    cli = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert cli.stdout is not None
    assert cli.stdout.readline() == "ready\n"
    sent = time.perf_counter()
    cli.send_signal(signal.SIGINT)
    out, err = cli.communicate(timeout=60)
    latency = time.perf_counter() - sent
    assert (cli.returncode, out, err) == (130, "", "quercus: interrupted\n")
    assert latency < PROMPT
