#!/usr/bin/env python3
"""Runs the code blocks of README.md and docs/ that are complete programs or sessions.

A block is run when the line before its opening fence is a marker:

    <!-- test: cpp -->      a C++ program: compiled against libufjit and run
    <!-- test: python -->   a Python program: run with the built package on PYTHONPATH
    <!-- test: shell -->    shell commands, run with the built `ufjit` first on PATH (and
                            `python3` the interpreter the package was built for)
    <!-- test: ufn -->      a ufjit source: `ufjit check` must find no error

A shell block whose lines start with `$ ` is a session: each command runs in turn and
its standard output must be the lines that follow it, up to the next `$ `. Any other
shell block is a script run with `bash -euo pipefail`. Each block runs in a fresh
folder under --work in which `examples` is the repository's examples/ folder, so that
blocks name files as a reader at the repository root would, and write nothing into the
tree. A C++ or Python program passes when it exits with 0; blocks check their own
results. Fragments stay unmarked: they are not run.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

MARKER = re.compile(r"^<!--\s*test:\s*(cpp|python|shell|ufn)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)")


class Block:
    def __init__(self, path, line, kind, text):
        self.path = path
        self.line = line
        self.kind = kind
        self.text = text

    def name(self, root):
        return f"{self.path.relative_to(root)}:{self.line}"


def find_blocks(root):
    """Every marked block of README.md and docs/**/*.md, in file order."""
    files = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    blocks = []
    for path in files:
        lines = path.read_text(encoding="utf-8").split("\n")
        i = 0
        while i < len(lines):
            m = MARKER.match(lines[i])
            if not m:
                i += 1
                continue
            fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
            if not fence:
                raise SystemExit(f"{path}:{i + 1}: a test marker must be followed by a code fence")
            end = i + 2
            while end < len(lines) and not lines[end].startswith(fence.group(1)):
                end += 1
            if end == len(lines):
                raise SystemExit(f"{path}:{i + 2}: the code block is not closed")
            blocks.append(Block(path, i + 2, m.group(1), "\n".join(lines[i + 2:end]) + "\n"))
            i = end + 1
    return blocks


def run(cmd, cwd, env, timeout=300, stdin=None):
    return subprocess.run(cmd, cwd=cwd, env=env, input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)


def failed(what, proc):
    return (f"{what} exited with {proc.returncode}\n--- stdout\n{proc.stdout}"
            f"--- stderr\n{proc.stderr}")


def run_cpp(block, work, env, args):
    src = work / "main.cpp"
    src.write_text(block.text)
    libdir = str(pathlib.Path(args.lib).parent)
    compile_cmd = [args.cxx, "-std=c++20", "-Wall", "-Werror",
                   "-I", str(args.source_dir / "include"), str(src), args.lib,
                   f"-Wl,-rpath,{libdir}", "-o", str(work / "main")]
    proc = run(compile_cmd, work, env)
    if proc.returncode != 0:
        return failed("the compiler", proc)
    proc = run([str(work / "main")], work, env)
    return None if proc.returncode == 0 else failed("the program", proc)


def run_python(block, work, env, args):
    # A file, not `-c`: the package reads a kernel's source through inspect.
    script = work / "example.py"
    script.write_text(block.text)
    env = dict(env, PYTHONPATH=args.python_package)
    proc = run([args.python, str(script)], work, env)
    return None if proc.returncode == 0 else failed("python", proc)


def run_ufn(block, work, env, args):
    src = work / "example.ufn"
    src.write_text(block.text)
    proc = run([args.ufjit, "check", str(src)], work, env)
    return None if proc.returncode == 0 else failed("ufjit check", proc)


def parse_session(text):
    """[(command, expected stdout lines)] of a `$ `-prompted block."""
    steps = []
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
        else:
            raise ValueError(f"output before the first '$ ' line: {line!r}")
    return steps


def run_shell(block, work, env, args):
    if not any(line.startswith("$ ") for line in block.text.split("\n")):
        proc = run(["bash", "-euo", "pipefail", "-c", block.text], work, env)
        return None if proc.returncode == 0 else failed("the script", proc)
    for command, expected in parse_session(block.text):
        proc = run(["bash", "-o", "pipefail", "-c", command], work, env)
        if proc.returncode != 0:
            return failed(f"'{command}'", proc)
        got = proc.stdout.rstrip("\n").split("\n") if proc.stdout.strip() else []
        got = [line.rstrip() for line in got]
        want = [line.rstrip() for line in expected]
        if got != want:
            return (f"'{command}' printed\n" + "\n".join(got) +
                    "\n--- where the block shows\n" + "\n".join(want) + "\n")
    return None


RUNNERS = {"cpp": run_cpp, "python": run_python, "shell": run_shell, "ufn": run_ufn}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source-dir", type=pathlib.Path, required=True)
    parser.add_argument("--work", type=pathlib.Path, required=True, help="a folder of the build tree")
    parser.add_argument("--cxx", required=True, help="the C++ compiler")
    parser.add_argument("--lib", required=True, help="the built libufjit.so")
    parser.add_argument("--ufjit", required=True, help="the built ufjit tool")
    parser.add_argument("--python-package", default="",
                        help="the folder holding the built ufjit package (empty: built without it)")
    parser.add_argument("--python", default="", help="the interpreter the package was built for")
    parser.add_argument("--list", action="store_true", help="list the marked blocks and exit")
    args = parser.parse_args()
    args.source_dir = args.source_dir.resolve()

    blocks = find_blocks(args.source_dir)
    if args.list:
        for b in blocks:
            print(b.kind, b.name(args.source_dir))
        return 0
    for kind in RUNNERS:
        if not any(b.kind == kind for b in blocks):
            print(f"no '{kind}' block is marked: the markers were lost?", file=sys.stderr)
            return 1

    if args.work.exists():
        shutil.rmtree(args.work)
    args.work.mkdir(parents=True)
    env = dict(os.environ)
    path = [str(pathlib.Path(args.ufjit).parent)]
    if args.python:
        bin_dir = args.work / "bin"
        bin_dir.mkdir()
        (bin_dir / "python3").symlink_to(args.python)
        path.append(str(bin_dir))
    env["PATH"] = os.pathsep.join(path + [env.get("PATH", "")])
    env["UFJIT_CACHE_DIR"] = str(args.work / "cache")
    env["PYTHONDONTWRITEBYTECODE"] = "1"

    failures = 0
    for n, block in enumerate(blocks):
        name = block.name(args.source_dir)
        if block.kind == "python" and not (args.python_package and args.python):
            print(f"SKIP {name} (python): ufjit was built without its Python package")
            continue
        work = args.work / f"{n:03d}"
        work.mkdir()
        (work / "examples").symlink_to(args.source_dir / "examples")
        start = time.monotonic()
        try:
            error = RUNNERS[block.kind](block, work, env, args)
        except subprocess.TimeoutExpired as e:
            error = f"timed out after {e.timeout} s: {e.cmd}"
        seconds = time.monotonic() - start
        if error is None:
            print(f"ok   {name} ({block.kind}, {seconds:.1f} s)")
        else:
            failures += 1
            print(f"FAIL {name} ({block.kind}, {seconds:.1f} s)\n{error}")
    print(f"{len(blocks) - failures} of {len(blocks)} blocks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
