"""Start-up cost: ``%load_ext nb_elicit``, and the first ``%mcp connect`` to the demo server.

    python benchmarks/startup.py [--kernels 5]

Each round starts a fresh ipykernel, then times (inside the kernel, with perf_counter)
``%load_ext nb_elicit`` and then ``%mcp connect demo -- python -m nb_elicit.demo``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from frontend import Frontend  # noqa: E402

CODE = """\
import time, json, sys
ip = get_ipython()
t0 = time.perf_counter()
ip.run_line_magic("load_ext", "nb_elicit")
t1 = time.perf_counter()
await ip.run_line_magic("mcp", "\\u2063connect demo -- " + sys.executable + " -m nb_elicit.demo")
t2 = time.perf_counter()
print(json.dumps({"load_ext": t1 - t0, "connect": t2 - t1}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kernels", type=int, default=5)
    args = parser.parse_args()
    loads, connects = [], []
    for _ in range(args.kernels):
        with Frontend.start() as fe:
            reply, outputs = fe.run(CODE, timeout=120)
            assert reply["status"] == "ok", outputs
            text = "".join(o.get("text", "") for o in outputs if o.get("name") == "stdout")
            timing = json.loads(text.strip().splitlines()[-1])
            loads.append(timing["load_ext"] * 1000)
            connects.append(timing["connect"] * 1000)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"%load_ext nb_elicit over {len(loads)} fresh kernels: median "
          f"{statistics.median(loads):.0f} ms, max {max(loads):.0f} ms")
    print(f"first %mcp connect to the demo server: median {statistics.median(connects):.0f} ms, "
          f"max {max(connects):.0f} ms")


if __name__ == "__main__":
    main()
