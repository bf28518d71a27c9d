"""Where evaluations run: this process, a local process pool, or a Dask cluster.

Every executor has ``submit(fn, job) -> concurrent.futures.Future``,
``slots`` (how many evaluations to keep in flight) and ``shutdown()``.
Jobs travel pickled (sources as text, flags, the pipeline), results come
back as :class:`passman.tune.evaluate.Result`.

The local pool forks (on Linux), so passes and backends a test or a
notebook registered in this process exist in the workers too; a Dask
worker must import them itself (install the plugin where the workers run).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from ..errors import InvalidInput

__all__ = ["DaskExecutor", "InlineExecutor", "PoolExecutor", "make_executor"]


class InlineExecutor:
    """Evaluates in this process when submitted (``jobs=0``; replay uses it too)."""

    slots = 1

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Run ``fn(*args)`` now; a finished future."""
        fut: Future = Future()
        try:
            fut.set_result(fn(*args))
        except Exception as err:  # noqa: BLE001 - handed to the caller through the future
            fut.set_exception(err)
        return fut

    def shutdown(self) -> None:
        """Nothing to stop."""


class PoolExecutor:
    """A pool of ``jobs`` local worker processes."""

    def __init__(self, jobs: int):
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        self.slots = jobs
        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method))

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Queue ``fn(*args)`` on the pool."""
        return self.pool.submit(fn, *args)

    def shutdown(self) -> None:
        """Stop the workers (evaluations still running are abandoned)."""
        self.pool.shutdown(wait=False, cancel_futures=True)


class DaskExecutor:
    """A Dask cluster: a scheduler address, ``"local"`` (a ``LocalCluster``) or a ``Client``."""

    def __init__(self, target: Any, jobs: int):
        try:
            from distributed import Client, LocalCluster
        except ImportError as err:  # pragma: no cover - a dependency
            raise InvalidInput(f"error: --dask needs dask.distributed ({err})") from None
        self.cluster = None
        self.own_client = not isinstance(target, Client)
        if isinstance(target, Client):
            self.client = target
        elif target == "local":
            self.cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True,
                                        dashboard_address=None)
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(target, timeout=10)
            except (OSError, TimeoutError) as err:
                raise InvalidInput(f"error: cannot reach the Dask scheduler {target}: {err}") from None
        workers = self.client.scheduler_info().get("workers", {})
        cores = sum(w.get("nthreads", 1) for w in workers.values()) or max(1, jobs)
        self.slots = max(jobs, cores)
        self.executor = self.client.get_executor(pure=False)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Send ``fn(*args)`` to a worker of the cluster."""
        return self.executor.submit(fn, *args)

    def shutdown(self) -> None:
        """Close what this executor opened (a client given by the caller stays open)."""
        self.executor.shutdown(wait=False)
        if self.own_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(jobs: int, dask: Any = None) -> InlineExecutor | PoolExecutor | DaskExecutor:
    """The executor for ``jobs`` (0: this process) or ``dask`` (address, ``"local"``, ``Client``)."""
    if jobs < 0:
        raise InvalidInput(f"error: --jobs must be 0 or more, not {jobs}")
    if dask is not None:
        return DaskExecutor(dask, jobs or os.cpu_count() or 1)
    if jobs == 0:
        return InlineExecutor()
    return PoolExecutor(jobs)
