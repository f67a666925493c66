"""Run the demo MCP server over stdio, or over streamable HTTP (or HTTP+SSE) on 127.0.0.1."""

from __future__ import annotations

import argparse
import os


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m nb_elicit.demo", description=__doc__)
    parser.add_argument("--http", type=int, metavar="PORT",
                        help="serve streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio")
    parser.add_argument("--sse", type=int, metavar="PORT",
                        help="serve the older HTTP+SSE transport on http://127.0.0.1:PORT/sse")
    parser.add_argument("--auth", action="store_true",
                        help="require sign-in: serve a local OAuth authorization server too "
                             "(on the same address; implies --http 8765 unless given)")
    parser.add_argument("--journal", metavar="FILE",
                        help="append every answer received to FILE (the server's journal), "
                             "one JSON object per line")
    args = parser.parse_args(argv)
    if args.journal:
        os.environ["NB_ELICIT_DEMO_JOURNAL"] = os.path.abspath(args.journal)
    if args.http is not None and args.sse is not None:
        parser.error("give --http or --sse, not both")
    if args.auth and args.sse is not None:
        parser.error("--auth serves streamable HTTP: give --http PORT, not --sse")

    from .server import server

    if args.auth:
        from .auth import server_with_sign_in

        port = args.http or 8765
        print(f"nb_elicit demo with sign-in: http://127.0.0.1:{port}/mcp", flush=True)
        server_with_sign_in(port).run("streamable-http", host="127.0.0.1", port=port)
    elif args.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    elif args.sse is not None:
        server.run("sse", host="127.0.0.1", port=args.sse)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
