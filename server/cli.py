"""The `gradstep` command: serve the app, print a snippet's trace or its graph as DOT, export lessons."""

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


def _export(args: argparse.Namespace) -> int:
    from server import export
    from server.tracer import trace_code

    trace = trace_code(_read(args.file), restricted=not args.trusted)
    step = None if args.step is None else args.step - 1
    panes = [p.strip() for p in args.panes.split(",") if p.strip()] if args.panes else None
    out = Path(args.output) if args.output else None
    try:
        if args.format == "html":
            html = export.offline_html(trace, title=args.title, step=step, panes=panes)
            _write(out, html.encode("utf-8"), default=Path("lesson.html"))
        elif args.format in ("svg", "png"):
            data = export.render_image(trace, args.format, step=step, scale=args.scale)
            _write(out, data, default=Path(f"step.{args.format}"))
        else:
            files = export.render_frames(trace, out or Path("frames"), scale=args.scale)
            print(f"gradstep: wrote {len(files)} frames to {files[0].parent}/", file=sys.stderr)
    except export.ExportError as exc:
        print(f"gradstep export: {exc}", file=sys.stderr)
        return 2
    if trace["status"] != "ok":
        error = trace.get("error") or {}
        print(f"gradstep: note: the snippet stopped with {error.get('type', trace['status'])}: "
              f"{error.get('message', '')} (the export shows the steps up to it)", file=sys.stderr)
    return 0


def _write(out: Path | None, data: bytes, default: Path) -> None:
    if out is not None and str(out) == "-":
        sys.stdout.buffer.write(data)
        return
    path = out or default
    path.write_bytes(data)
    print(f"gradstep: wrote {path} ({len(data) // 1024} KiB)", file=sys.stderr)


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
    export = sub.add_parser(
        "export", help="a snippet as course material: one offline HTML file, an SVG/PNG of a step, or PNG frames",
        description="Export a snippet's trace. html: one self-contained file (player, Graphviz and trace inline) "
                    "that works from file:// with no network. svg/png: one step as an image. frames: one numbered "
                    "PNG per step (step-001.png, ...) into the -o folder. Images need Chromium (see README).")
    export.add_argument("file", help="a .py snippet, or - for standard input")
    export.add_argument("-o", "--output", help="output file (a folder for frames; - for standard output)")
    export.add_argument("--format", choices=("html", "svg", "png", "frames"), default="html")
    export.add_argument("--step", type=int, default=None,
                        help="step number as the player counts it (1 = first); default: just before backward")
    export.add_argument("--title", default=None, help="the lesson's title (html)")
    export.add_argument("--panes", default=None,
                        help="what the html shows, e.g. graph,narration,controls,code,inspector (default: all)")
    export.add_argument("--scale", type=float, default=2.0, help="PNG pixels per SVG pixel (default 2)")
    export.add_argument("--trusted", action="store_true", help="run without the sandbox's language policy")
    export.set_defaults(run=_export)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
