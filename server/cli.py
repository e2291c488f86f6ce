"""The `gradstep` command: serve the app, print a snippet's trace or its graph as DOT."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

BUILD_HINT = "npm --prefix frontend ci && npm --prefix frontend run build"


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.app import create_app
    from server.config import Settings

    settings = Settings.from_env(host=args.host, port=args.port, workers=args.workers)
    if not (Path(settings.static_dir) / "index.html").exists():
        print(
            f"gradstep: the frontend is not built ({settings.static_dir}/index.html is missing).\n"
            f"Build it with:  {BUILD_HINT}\n"
            "or set everything up and start with:  python3 -m server.bootstrap serve",
            file=sys.stderr,
        )
        return 2
    print(f"gradstep: serving on http://{settings.host}:{settings.port}/", flush=True)
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="warning")
    return 0


def _read(path: str) -> str:
    return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")


def _trace(args: argparse.Namespace) -> int:
    from server.tracer import trace_code

    trace = trace_code(_read(args.file), restricted=not args.trusted)
    json.dump(trace, sys.stdout, indent=1 if args.pretty else None, separators=None if args.pretty else (",", ":"))
    sys.stdout.write("\n")
    return 0 if trace["status"] == "ok" else 1


def _dot(args: argparse.Namespace) -> int:
    from server.dot import trace_to_digraph
    from server.tracer import trace_code

    trace = trace_code(_read(args.file), restricted=not args.trusted)
    sys.stdout.write(trace_to_digraph(trace).source)
    return 0 if trace["status"] == "ok" else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gradstep", description="See PyTorch-style autograd, step by step.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="start the web app")
    serve.add_argument("--host", default=None)
    serve.add_argument("--port", type=int, default=None)
    serve.add_argument("--workers", type=int, default=None, help="sandbox processes running snippets at once")
    serve.set_defaults(run=_serve)
    for name, fn, text in (("trace", _trace, "print a snippet's trace as JSON"),
                           ("dot", _dot, "print a snippet's grad_fn graph as Graphviz DOT")):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("file", help="a .py snippet, or - for standard input")
        cmd.add_argument("--trusted", action="store_true", help="run without the sandbox's language policy")
        if name == "trace":
            cmd.add_argument("--pretty", action="store_true", help="indent the JSON")
        cmd.set_defaults(run=fn)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
