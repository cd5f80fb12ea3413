"""The measurements ``mneme bench`` makes on both backends: warm recall, saves, the child process each
size runs in, and the figures that need other processes (the import floor, cold ``mneme recall``, the MCP
round trip, concurrent writers, the time a write takes to reach another client's recall).

Every function takes a store or database target (a SQLite path or a ``postgresql://`` URL) that the bench
built; none of them is ever pointed at a user's store.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue as queue_module
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mneme_tui.bench.synthetic import QUERIES, REPOS
from mneme_tui.config import DbTarget
from mneme_tui.errors import MnemeError
from mneme_tui.memory.heap_reuse import keep_freed_memory

WARM_ROUNDS = 4
SAVES = 200
COLD_RUNS = 3
ROWS_BEHIND = 1_000
"""Memories saved after the snapshot for the cold recall of a lagging snapshot."""
FLOOR_COMMAND = (sys.executable, "-c", "import numpy, peewee")
"""The floor a cold ``mneme recall`` is compared with: a new Python that imports numpy and peewee."""
MCP_ROUNDS = 3
MCP_PAIRS = 3
"""Pairs of new processes (the calls in-process, then the round trip) whose calls the MCP figures pool."""
VISIBILITY_ROUNDS = 5
VISIBILITY_TIMEOUT_S = 60.0


def ms(seconds: float) -> float:
    """Seconds as milliseconds, rounded to the microsecond."""
    return round(seconds * 1000.0, 3)


def target_check(name: str, value: float, op: str, target: float) -> dict[str, Any]:
    """One target of the report: ``value`` against ``target`` (``op`` is ``<=`` or ``>=``), met or not."""
    met = value <= target if op == "<=" else value >= target
    return {"target": name, "value": round(value, 3), "goal": f"{op} {target:g}", "met": met}


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50 and p95 (ms) of ``samples`` (seconds)."""
    return {"p50_ms": ms(float(np.percentile(samples, 50))), "p95_ms": ms(float(np.percentile(samples, 95)))}


def timed(function, *args, **kwargs) -> tuple[float, Any]:
    """``function(*args, **kwargs)``: the seconds it took, and its result."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def measure_recall(store, now) -> dict[str, Any]:
    """Recall p50/p95 per ranking profile, scoped to a repo and across repos (``-A``): warm, and the first round.

    A warm-up makes every timed call once (each query with each repo it is timed with), so each term's scores
    are computed and cached for each candidate set, as in a store that answers the same kind of questions;
    its first round (each query's first scoped and first ``-A`` call) is reported as ``first_round``. The warm
    figures are the same calls again."""
    from mneme_tui.memory import ranking

    repos = list(REPOS)
    profiles: dict[str, Any] = {}
    for profile in ranking.PROFILES:
        first_scoped, first_cross = _recall_loop(store, now, profile, repos)
        scoped, cross = _recall_loop(store, now, profile, repos)
        first_round = len(QUERIES)
        profiles[profile] = {
            "scoped": percentiles(scoped),
            "cross_repo": percentiles(cross),
            "first_round": {
                "scoped": percentiles(first_scoped[:first_round]),
                "cross_repo": percentiles(first_cross[:first_round]),
            },
        }
    return profiles


def _recall_loop(store, now, profile: str, repos: list[str]) -> tuple[list[float], list[float]]:
    """The seconds of each scoped and each ``-A`` recall of ``WARM_ROUNDS`` rounds over ``QUERIES``, in call
    order; the repo turns with the query and the round, the same in every loop."""
    scoped, cross = [], []
    for round_number in range(WARM_ROUNDS):
        for number, query in enumerate(QUERIES):
            repo = repos[(number + round_number) % len(repos)]
            scoped.append(timed(store.recall, query, repo=repo, profile=profile, now=now)[0])
            cross.append(timed(store.recall, query, repo=repo, cross_repo=True, profile=profile, now=now)[0])
    return scoped, cross


def measure_saves(store) -> float:
    """Saves per second of ``SAVES`` saves, one transaction each."""
    saves = [f"bench save {number}: retry loop hit a flaky timeout in CI" for number in range(SAVES)]
    save_s, _ = timed(lambda: [store.save(text, repo_id="ledger") for text in saves])
    return round(SAVES / save_s, 1)


def peak_rss_mb() -> float:
    """This process's peak RSS so far (MB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def _child(function: Callable[..., dict[str, Any]], args: tuple, queue) -> None:
    keep_freed_memory()  # as in every `mneme` process (the CLI's main sets it), so both sides measure alike
    try:
        queue.put(("ok", function(*args)))
    except MnemeError as exc:
        queue.put(("mneme", (exc.code, exc.message)))
    except BaseException as exc:  # reported to the parent, which raises it
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def in_child(function: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """``function(*args)`` in a new (spawned) process, so that its peak RSS is its own."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_child, args=(function, args, queue))
    child.start()
    while True:
        try:
            status, figures = queue.get(timeout=1.0)
            break
        except queue_module.Empty:
            if not child.is_alive():  # killed (out of memory?) before it could report
                raise RuntimeError(f"bench {function.__name__}{args[:1]} died (exit code {child.exitcode})") from None
    child.join()
    if status == "mneme":
        raise MnemeError(*figures)
    if status != "ok":
        raise RuntimeError(f"bench {function.__name__}{args[:1]} failed: {figures}")
    return figures


PEAK_PROBE = """
import runpy, sys
try:
    runpy.run_module("mneme_tui", run_name="__main__", alter_sys=True)
finally:
    with open("/proc/self/status") as status:
        print(next(line for line in status if line.startswith("VmHWM:")), file=sys.stderr)
"""
"""``python -m mneme_tui`` that prints its own peak RSS (``VmHWM``, Linux) as its last stderr line, even
when it fails. The
rusage a parent gets from ``wait4`` will not do: a child's ``ru_maxrss`` starts from the size of the
process it was forked from (here, the bench with its whole store)."""


def run_process(name: str, command: list[str] | tuple[str, ...], env: dict[str, str]) -> tuple[float, list[str]]:
    """Run ``command`` to its end; its wall time (s) and the lines it wrote to stderr. A failure is
    RuntimeError naming ``name`` with its first stderr line."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    if done.returncode != 0:
        raise RuntimeError(f"{name} failed: {lines[0] if lines else 'no output'}")
    return elapsed, lines


def import_floor_ms() -> float:
    """Median wall time (ms) of ``python -c "import numpy, peewee"`` over ``COLD_RUNS`` runs."""
    runs = [run_process("the import floor", FLOOR_COMMAND, dict(os.environ))[0] for _ in range(COLD_RUNS)]
    return ms(float(np.median(runs)))


def cold_recall(db_path: Path, workdir: str) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall time (ms) of ``mneme recall`` in a new process and the largest peak RSS (MB) of those
    processes: with the index snapshot up to date (``with_snapshot``), without one (``without_snapshot``:
    the first run, which builds it) and with ``ROWS_BEHIND`` memories saved since the snapshot
    (``behind_snapshot``: they are written to the store here)."""
    from mneme_tui import config
    from mneme_tui.bench.synthetic import generate
    from mneme_tui.memory.store import Store

    cache = Path(workdir) / "cache"
    store = Store(db_path)
    store.save_snapshot()  # the bench's own saves since the snapshot: caught up on first
    timings, peaks = {}, {}
    timings["with_snapshot"], peaks["with_snapshot"] = cold_runs(db_path, cache)
    timings["without_snapshot"], peaks["without_snapshot"] = cold_runs(db_path, Path(workdir) / "no-cache", fresh=True)
    store.mint_ids(generate(ROWS_BEHIND, now=config.now()))
    store.close()
    timings["behind_snapshot"], peaks["behind_snapshot"] = cold_runs(db_path, cache)
    return timings, peaks


def handshake_cold(db_path: Path, workdir: str) -> dict[str, float]:
    """``mneme handshake -n 10 --json`` (the SessionStart hook) in a new process, ``COLD_RUNS`` times, each run
    beside one of the import floor: the medians of its wall time (``wall_ms``), of its CPU time, user + system
    (``cpu_ms``), of the floor's CPU time (``floor_cpu_ms``), and their ratio (``cpu_vs_floor``). On a loaded
    machine the CPU ratio is the figure: wall time is mostly waiting for a core."""
    command = [
        sys.executable,
        "-m",
        "mneme_tui",
        "handshake",
        "-n",
        "10",
        "-p",
        REPOS[0],
        "--db",
        str(db_path),
        "--json",
    ]
    env = dict(os.environ, MNEME_CACHE_DIR=str(Path(workdir) / "cache"))
    walls, cpus, floors = [], [], []
    for _ in range(COLD_RUNS):
        wall, cpu = _with_cpu(lambda: run_process("`mneme handshake`", command, env)[0])
        walls.append(wall)
        cpus.append(cpu)
        floors.append(_with_cpu(lambda: run_process("the import floor", FLOOR_COMMAND, dict(os.environ)))[1])
    cpu_ms, floor_ms = ms(float(np.median(cpus))), ms(float(np.median(floors)))
    return {
        "wall_ms": ms(float(np.median(walls))),
        "cpu_ms": cpu_ms,
        "floor_cpu_ms": floor_ms,
        "cpu_vs_floor": round(cpu_ms / floor_ms, 2),
    }


def _with_cpu(action: Callable[[], Any]) -> tuple[Any, float]:
    """``action()``'s result and the CPU time (s, user + system) of the child processes it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = action()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return result, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def mcp_calls() -> list[dict[str, Any]]:
    """The ``recall`` tool's arguments the MCP round trip sends, after its warm-up call: varied queries and
    repos, one in four across repos."""
    return [
        {"query": query, "repo": REPOS[(number + round_number) % len(REPOS)], "all_repos": number % 4 == 3}
        for round_number in range(MCP_ROUNDS)
        for number, query in enumerate(QUERIES)
    ]


def in_process_mcp_calls(db_path: Path, workdir: str) -> dict[str, list[float]]:
    """The seconds of each of the MCP round trip's calls answered in-process the way the server answers them: a new
    ``Store`` on the database (its index from the same snapshot, its per-term caches as cold as a new
    server's), the ``recall`` tool's own argument check, recall and compact JSON (``mcp.tools.answer``), after
    the same warm-up call: ``first`` (the calls' first pass) and ``again`` (the same calls made again). Run
    beside the round trip, each in a new process (``mcp_pairs``), so the ratio is what the protocol adds."""
    from mneme_tui import config
    from mneme_tui.mcp.context import Call, ServerContext
    from mneme_tui.mcp.tools import answer
    from mneme_tui.memory.ranking import DEFAULT_PROFILE
    from mneme_tui.memory.store import Store

    store = Store(db_path)
    profile = config.resolve_profile(None, DEFAULT_PROFILE)  # what `mneme mcp` without --profile serves
    server = ServerContext(store, REPOS[0], profile, Path(workdir), Path(workdir) / "legion")
    try:
        call = Call(server, "mneme-bench")
        answer(call, "recall", {"query": QUERIES[0]})
        passes = [[timed(answer, call, "recall", arguments)[0] for arguments in mcp_calls()] for _ in range(2)]
    finally:
        store.close()
    return {"first": passes[0], "again": passes[1]}


def mcp_figures(first: list[float], again: list[float]) -> dict[str, float]:
    """p50/p95 (ms) of the calls' first pass (each repo and term new to the server's per-term caches) and
    ``warm_p50_ms``, the p50 of the same calls made again (all of it cached, so a recall is mostly its fixed
    costs and what the protocol adds shows most)."""
    return {**percentiles(first), "warm_p50_ms": percentiles(again)["p50_ms"]}


def scoped_over_repos(store, now, repos: int) -> dict[str, float]:
    """Warm scoped ``bm25`` recall p50 (ms) when the same rows are spread over ``repos`` repositories instead of
    the generated few (the rows' repo labels are redrawn in a copy of the index; ``global`` rows stay global),
    and the first query of each repository, which builds its candidate set."""
    import copy

    from mneme_tui.config import GLOBAL_REPO
    from mneme_tui.memory import ranking
    from mneme_tui.memory.index import days_since_epoch

    index = copy.copy(store.index)
    global_code = index.repos.get(GLOBAL_REPO, -1)
    redrawn = np.random.default_rng(7).integers(1, repos + 1, index.size).astype(np.int32)
    index.repo_codes = np.where(store.index.repo_codes == global_code, 0, redrawn).astype(np.int32)
    index.repos = {GLOBAL_REPO: 0, **{f"repo-{number}": number for number in range(1, repos + 1)}}
    index._candidates = {}
    now_days = float(days_since_epoch([now.isoformat(sep=" ")])[0])
    first: list[float] = []
    warm: list[float] = []
    for round_number in range(WARM_ROUNDS):
        for number, query in enumerate(QUERIES):
            repo = f"repo-{1 + (number * 37) % repos}"
            recall = ranking.RecallQuery(query, repo, now_days, profile="bm25")
            (first if round_number == 0 else warm).append(timed(ranking.rank, index, recall)[0])
    return {
        "repos": repos,
        "rows_per_repo": round(index.size / repos),
        "first_p50_ms": percentiles(first)["p50_ms"],
        "warm_p50_ms": percentiles(warm)["p50_ms"],
    }


def cold_runs(target: DbTarget, cache: Path, runs: int = COLD_RUNS, *, fresh: bool = False) -> tuple[float, float]:
    """Median wall time (ms) of ``runs`` cold ``mneme recall`` processes on ``target`` with the cache folder
    ``cache``, and their largest peak RSS (MB); with ``fresh``, every run starts without a snapshot."""
    command = [sys.executable, "-c", PEAK_PROBE, "recall", QUERIES[0], "-p", REPOS[0], "--db", str(target), "--json"]
    env = dict(os.environ, MNEME_CACHE_DIR=str(cache))
    samples = []
    for _ in range(runs):
        if fresh:
            for stale in cache.glob("index-*"):
                stale.unlink()
        samples.append(run_process("cold `mneme recall`", command, env))
    peak = max(round(int(lines[-1].split()[1]) / 1024.0, 1) for _, lines in samples)  # "VmHWM: 1234 kB"
    return ms(float(np.median([seconds for seconds, _ in samples]))), peak


def mcp_round_trip(db_path: Path, workdir: str) -> dict[str, list[float]]:
    """The seconds of each call of the ``recall`` tool of a live ``mneme mcp`` on ``db_path``, measured end to
    end by the SDK's stdio client over varied queries and repos (after one warm-up call that loads the index):
    ``first`` (the first pass) and ``again`` (the same calls made again)."""
    return asyncio.run(_mcp_calls(db_path, workdir))


def mcp_pairs(db_path: Path, workdir: str) -> tuple[dict[str, float], dict[str, Any]]:
    """The MCP figures (``mcp_figures``) of the calls in-process and of the round trip, each pooled over
    ``MCP_PAIRS`` pairs of new processes run in turn (in-process, then round trip), so one process's luck, or the
    machine's other work at its time, weighs one pair's share; the round trip adds ``calls`` (all it timed)."""
    local: dict[str, list[float]] = {"first": [], "again": []}
    remote: dict[str, list[float]] = {"first": [], "again": []}
    for _ in range(MCP_PAIRS):
        for pooled, function in ((local, in_process_mcp_calls), (remote, mcp_round_trip)):
            for name, samples in in_child(function, db_path, workdir).items():
                pooled[name].extend(samples)
    return mcp_figures(**local), {**mcp_figures(**remote), "calls": len(remote["first"])}


async def _mcp_calls(db_path: Path, workdir: str) -> dict[str, list[float]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mneme_tui", "mcp", "--db", str(db_path), "-p", REPOS[0]],
        env=dict(os.environ, MNEME_CACHE_DIR=str(Path(workdir) / "cache")),
        cwd=workdir,
    )
    with (Path(workdir) / "mcp-server.err").open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await _timed_recall(session, {"query": QUERIES[0]})  # it loads the index: a warm-up
            passes = [[await _timed_recall(session, arguments) for arguments in mcp_calls()] for _ in range(2)]
    return {"first": passes[0], "again": passes[1]}


async def _timed_recall(session, arguments: dict[str, Any]) -> float:
    """Seconds the ``recall`` tool call with ``arguments`` took through ``session`` (an error stops the bench)."""
    start = time.perf_counter()
    result = await session.call_tool("recall", arguments)
    if result.is_error:
        raise RuntimeError(f"mcp recall failed: {result.content}")
    return time.perf_counter() - start


def concurrent_saves(target: DbTarget, writers: int, saves_each: int) -> float:
    """Saves per second of ``writers`` processes saving ``saves_each`` memories each at once (timed from
    when every writer has its store open until the last one is done)."""
    context = multiprocessing.get_context("spawn")
    ready, done = context.Queue(), context.Queue()
    go = context.Event()
    processes = [
        context.Process(target=_writer, args=(target, number, saves_each, ready, go, done)) for number in range(writers)
    ]
    for process in processes:
        process.start()
    try:
        for _ in processes:
            _expect_ok(ready.get())
        start = time.perf_counter()
        go.set()
        for _ in processes:
            _expect_ok(done.get())
        elapsed = time.perf_counter() - start
    finally:
        go.set()
        for process in processes:
            process.join()
    return round(writers * saves_each / elapsed, 1)


def _writer(target: DbTarget, number: int, saves: int, ready, go, done) -> None:
    from mneme_tui.memory.store import Store

    try:
        store = Store(target)
        ready.put(("ok", None))
        go.wait()
        for save in range(saves):
            store.save(f"writer {number} save {save}: retry loop hit a flaky timeout in CI", repo_id="ledger")
        store.close()
        done.put(("ok", None))
    except BaseException as exc:  # reported to the parent, which raises it
        ready.put(("error", f"{type(exc).__name__}: {exc}"))
        done.put(("error", f"{type(exc).__name__}: {exc}"))


def _expect_ok(message: tuple[str, Any]) -> None:
    status, detail = message
    if status != "ok":
        raise RuntimeError(f"bench writer failed: {detail}")


def write_to_visible(target: DbTarget, reader) -> dict[str, Any]:
    """How long a save by another process takes to show up in ``reader``'s recall (a warm Store on
    ``target``): from asking a writer process for the save until ``reader.recall`` returns it, which
    includes the save itself and the reader's index refresh. Median and largest of a few rounds (ms)."""
    context = multiprocessing.get_context("spawn")
    requests, replies = context.Queue(), context.Queue()
    writer = context.Process(target=_probe_writer, args=(target, requests, replies))
    writer.start()
    try:
        _expect_ok(replies.get())
        samples = []
        for round_number in range(VISIBILITY_ROUNDS):
            text = f"visibility probe {round_number}: quokka{round_number} zephyr lantern"
            start = time.perf_counter()
            requests.put(text)
            while not any(hit.memory.content == text for hit in reader.recall(text, repo=REPOS[0], limit=3)):
                if time.perf_counter() - start > VISIBILITY_TIMEOUT_S:
                    raise RuntimeError(f"a save did not reach another client's recall in {VISIBILITY_TIMEOUT_S:g} s")
            samples.append(time.perf_counter() - start)
            _expect_ok(replies.get())
    finally:
        requests.put(None)
        writer.join()
    return {"p50_ms": ms(float(np.median(samples))), "max_ms": ms(max(samples)), "rounds": len(samples)}


def _probe_writer(target: DbTarget, requests, replies) -> None:
    from mneme_tui.memory.store import Store

    try:
        store = Store(target)
        replies.put(("ok", None))
        while (text := requests.get()) is not None:
            store.save(text, repo_id=REPOS[0])
            replies.put(("ok", None))
        store.close()
    except BaseException as exc:  # reported to the parent, which raises it
        replies.put(("error", f"{type(exc).__name__}: {exc}"))
