"""The Ray engine of :func:`dpgraph.edgerefine.refine_distributed` (imported only when used)."""

import time

import ray

from . import _native


@ray.remote
class _TileActor:
    """A :class:`dpgraph.edgerefine.TileWorker` living in a Ray worker process."""

    def __init__(self, report, tile_rows, backend, threads):
        self.worker = _native.TileWorker(report, tile_rows, backend, threads)

    def histogram(self, tiles):
        return self.worker.histogram(tiles)

    def values(self, rank, tiles):
        return self.worker.values(rank, tiles)

    def select(self, plan, tiles):
        return self.worker.select(plan, tiles)


def _chunks(num_tiles, count):
    """``count`` interleaved lists of tile numbers (tiles near the diagonal are smaller, so
    interleaving balances the work)."""
    count = max(1, min(count, num_tiles))
    return [list(range(c, num_tiles, count)) for c in range(count)]


def refine_distributed(
    report_path,
    *,
    k,
    true_edges,
    bins,
    tie_break,
    seed,
    address,
    num_workers,
    threads_per_worker,
    tile_rows,
    backend,
    tasks_per_worker,
):
    header = _native.report_header(report_path)
    n = header["num_nodes"]
    coordinator = _native.TiledRefine(
        n,
        header["eps"],
        k=k,
        true_edges=true_edges,
        bins=bins,
        tie_break=tie_break,
        seed=seed,
        noisy_edges=header["noisy_edges"],
    )
    num_tiles = _native.tile_count(n, tile_rows)
    started = False
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        if num_workers is None:
            cpus = int(ray.available_resources().get("CPU", 1))
            num_workers = max(1, cpus // max(1, threads_per_worker))
        with open(report_path, "rb") as f:
            report = ray.put(f.read())
        actors = [
            _TileActor.options(num_cpus=threads_per_worker).remote(
                report, tile_rows, backend, threads_per_worker
            )
            for _ in range(num_workers)
        ]
        chunks = _chunks(num_tiles, num_workers * tasks_per_worker)

        def wave(method, *args):
            futures = [
                getattr(actors[i % len(actors)], method).remote(*args, chunk)
                for i, chunk in enumerate(chunks)
            ]
            return ray.get(futures)

        seconds = {}
        t = time.perf_counter()
        rank = coordinator.rank_buckets(wave("histogram"))
        seconds["histogram"] = time.perf_counter() - t
        t = time.perf_counter()
        plan = coordinator.selection_plan(wave("values", rank))
        seconds["values"] = time.perf_counter() - t
        t = time.perf_counter()
        graph, info = coordinator.finish(wave("select", plan))
        seconds["select"] = time.perf_counter() - t
        for a in actors:
            ray.kill(a)
    finally:
        if started:
            ray.shutdown()
    info["tiles"] = num_tiles
    info["workers"] = num_workers
    info["pass_seconds"] = seconds
    return graph, info
