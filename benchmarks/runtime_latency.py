"""Click-to-server latency and idle CPU of a waiting form, in a real kernel.

    python benchmarks/runtime_latency.py [--rounds 20] [--idle 10]

A real ipykernel runs ``await conn.call_tool('github_username')`` against the bundled demo
server over stdio. The scripted, JupyterLab-like frontend from the tests types a name and clicks
Submit; the demo server records when the answer arrived. Latency is the time from sending the
click to the server holding the answer (same clock: both run on this machine). Idle CPU is the
kernel's CPU time while a form waits for nobody.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from frontend import Frontend  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds a form waits idle")
    args = parser.parse_args()
    record = Path(tempfile.mkdtemp()) / "record.jsonl"
    command = [sys.executable, "-m", "nb_elicit.demo", "--record", str(record)]
    latencies = []
    with Frontend.start() as fe:
        reply, _ = fe.run(f"import nb_elicit\nconn = await nb_elicit.connect('demo', {command!r})",
                          timeout=60)
        assert reply["status"] == "ok"
        for i in range(args.rounds):
            cell = fe.execute("await conn.call_tool('github_username')")
            name = fe.wait_for(lambda i=i: fe.find("nb-elicit-field-name")[i:], 30)[-1]
            fe.type_text(name, f"user{i}")
            assert fe.flush(20)
            submit = fe.find("nb-elicit-submit")[-1]
            clicked = time.time()
            fe.click(submit)
            fe.wait_for(lambda i=i: record.exists()
                        and len(record.read_text().splitlines()) > i, 30)
            arrived = json.loads(record.read_text().splitlines()[i])["at"]
            latencies.append((arrived - clicked) * 1000)
            fe.wait_reply(cell, 30)
        pid = fe.km.provisioner.process.pid
        cell = fe.execute("await conn.call_tool('github_username')")
        fe.wait_for(lambda: len(fe.find("nb-elicit-submit")) > args.rounds, 30)
        fe.pump_for(1.0)
        before, started = cpu_seconds(pid), time.monotonic()
        fe.pump_for(args.idle)
        used, elapsed = cpu_seconds(pid) - before, time.monotonic() - started
        fe.click(fe.find("nb-elicit-dismiss")[-1])
        fe.wait_reply(cell, 30)
    latencies.sort()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"click-to-server latency over {len(latencies)} rounds: "
          f"median {statistics.median(latencies):.1f} ms, "
          f"p95 {latencies[int(0.95 * (len(latencies) - 1))]:.1f} ms, "
          f"max {latencies[-1]:.1f} ms")
    print(f"kernel CPU while a form waited {elapsed:.1f} s: {used:.2f} s "
          f"({100 * used / elapsed:.2f}% of a core)")


if __name__ == "__main__":
    main()
