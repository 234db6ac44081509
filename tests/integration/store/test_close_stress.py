"""Close under load never crashes the interpreter (issue 20).

LangGraph runs a store's ``batch`` on executor threads; closing the store while
those threads were inside a SQLite statement used to take the process down
(a segfault, about one run in three). Here, in a child process (so a crash is
an exit code, not a dead test runner), threads run the LangGraph adapter's
``batch`` and ``abatch`` and engine reads while the main thread closes and
reopens the store, a few hundred times. Every call either succeeds or fails
with ``StoreUnavailableError``; the child must exit 0.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

CYCLES = int(os.environ.get("MEMVAULT_CLOSE_CYCLES", "150"))

CHILD = textwrap.dedent(
    """
    import asyncio, hashlib, random, sys, threading, time
    from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp
    from memvault.engine import MemoryEngine
    from memvault.errors import StoreUnavailableError
    from memvault.integrations.langgraph_store import MemvaultStore

    home, cycles = sys.argv[1], int(sys.argv[2])

    def embed(texts):
        out = []
        for t in texts:
            d = hashlib.sha256(t.encode()).digest()
            out.append([b / 255.0 for b in d[:16]])
        return out

    def open_store():
        return MemvaultStore(home, orchestrator="stress", index={"embed": embed, "dims": 16})

    seed = open_store()
    for i in range(12):
        seed.put(("notes", f"n{i % 3}"), f"k{i}", {"content": f"the build note number {i}"})
    seed.close()

    OPS = [
        SearchOp(("notes",), query="build note", limit=5),
        GetOp(("notes", "n1"), "k1"),
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
    ]
    unexpected, ok, refused = [], [0], [0]
    rng = random.Random(7)

    def guarded(call):
        # True while the call may be repeated (False once the store is closed)
        try:
            call()
            ok[0] += 1
            return True
        except StoreUnavailableError:
            refused[0] += 1
            return False
        except BaseException as exc:  # anything else is a bug
            unexpected.append(repr(exc))
            return False

    for cycle in range(cycles):
        store = open_store()
        engine = MemoryEngine.open(home, "stress", embedder=None)
        stop = threading.Event()

        def adapter_worker():
            while not stop.is_set() and guarded(lambda: store.batch(OPS)):
                pass

        def async_worker():
            async def run():
                while not stop.is_set():
                    try:
                        await store.abatch(OPS)
                        ok[0] += 1
                    except StoreUnavailableError:
                        refused[0] += 1
                        return
                    except BaseException as exc:
                        unexpected.append(repr(exc))
                        return
            asyncio.run(run())

        def engine_worker():
            while not stop.is_set():
                if not guarded(lambda: engine.search("build note", top_k=5)):
                    return
                if not guarded(lambda: engine.list(limit=5)):
                    return

        threads = [threading.Thread(target=adapter_worker) for _ in range(2)]
        threads += [threading.Thread(target=async_worker)]
        threads += [threading.Thread(target=engine_worker) for _ in range(2)]
        for t in threads:
            t.start()
        time.sleep(rng.random() * 0.01)
        engine.close()   # while engine reads run
        store.close()    # while batches run on their threads
        stop.set()
        for t in threads:
            t.join(timeout=60)
            if t.is_alive():
                unexpected.append("a thread hung after close")
        store.close()    # a batch that reopened after close: closed again
    print(f"ok={ok[0]} refused={refused[0]} unexpected={len(unexpected)}")
    for line in unexpected[:5]:
        print(line)
    sys.exit(1 if unexpected else 0)
    """
)


def test_close_while_batches_and_reads_run_never_crashes(tmp_path: Path) -> None:
    script = tmp_path / "stress.py"
    script.write_text(CHILD, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "home"), str(CYCLES)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr[-4000:])
    counts = dict(part.split("=") for part in done.stdout.split()[:3])
    assert int(counts["ok"]) > CYCLES  # the threads really ran against the open store
    assert int(counts["unexpected"]) == 0
