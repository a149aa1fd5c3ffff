#!/usr/bin/env python3
"""Runs the shell examples of README.md and docs/*.md that need no external file.

Every line of a ```sh block (or a `$ ` line of a ```console block) that runs
`mercurial`, `echo` or `sed` is run with bash, in order, in one scratch folder holding a
copy of examples/, with the `mercurial` given (the debug build by default) first on
PATH. A line is skipped, and says why, when it names an input file that is not there
(logo.png, ~/fonts/Some.otf, card.key: the user's own), or runs until stopped (watch, edit, serve), or
needs other machines (parallel -S). Each line that runs must exit 0 within 120 s.
Prints one line per example and closes with 'N passed, N failed, N skipped'.

    python3 scripts/doc-examples.py [path/to/mercurial]
"""
import os, re, shlex, shutil, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(root, ".build", "debug", "mercurial")
if not os.access(binary, os.X_OK):
    sys.exit(f"error: no mercurial at '{binary}'; build it with swift build, or give its path")

def examples(path):
    """(line number, command) of each runnable line of the file's shell blocks."""
    block = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fence = re.match(r"^```(\w*)", line)
            if fence:
                block = None if block is not None else fence.group(1)
                continue
            if block in ("sh", "bash"):
                command = line.strip()
            elif block == "console" and line.startswith("$ "):
                command = line[2:].strip()
            else:
                continue
            if re.match(r"^(mercurial|echo|sed) ", command):
                yield number, command

def words(command):
    """The command's words, its comment dropped (a quoted # stays)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)

def why_skipped(args, folder):
    if args[:2] in (["mercurial", "watch"], ["mercurial", "edit"], ["mercurial", "serve"]):
        return "runs until stopped"
    if args and args[0] == "parallel":
        return "needs other machines"
    for i, arg in enumerate(args):
        if i > 0 and args[i - 1] in ("-o", "--output", ">"):
            continue
        if arg.startswith("~"):
            return f"uses the reader's own file {arg}"
        if re.search(r"\.(png|json|jsonl|csv|otf|ttf|key)$", arg) and "/" not in arg.rstrip("/").split("/")[0:1][0] \
                and not os.path.exists(os.path.join(folder, arg)) and not arg.startswith("-"):
            return f"needs the reader's own {arg}"
    return None

files = [os.path.join(root, "README.md")] + sorted(
    os.path.join(root, "docs", name) for name in os.listdir(os.path.join(root, "docs")) if name.endswith(".md"))
passed = failed = skipped = 0
with tempfile.TemporaryDirectory(prefix="doc-examples-") as folder:
    shutil.copytree(os.path.join(root, "examples"), os.path.join(folder, "examples"))
    bin_dir = os.path.join(folder, ".bin")
    os.mkdir(bin_dir)
    os.symlink(binary, os.path.join(bin_dir, "mercurial"))
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), MERCURIAL_PROGRESS="none")
    for path in files:
        name = os.path.relpath(path, root)
        for number, command in examples(path):
            try:
                args = words(command)
            except ValueError as error:
                print(f"FAIL {name}:{number}: {command}\n     cannot be read as shell words ({error})")
                failed += 1
                continue
            reason = why_skipped(args, folder)
            if reason:
                print(f"skip {name}:{number}: {command}  ({reason})")
                skipped += 1
                continue
            try:
                run = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
                status = run.returncode
            except subprocess.TimeoutExpired:
                status, run = "timeout", None
            if status == 0:
                print(f"ok   {name}:{number}: {command}")
                passed += 1
            else:
                detail = (run.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1] if run else "over 120 s"
                print(f"FAIL {name}:{number}: {command}\n     exit {status}: {detail}")
                failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
