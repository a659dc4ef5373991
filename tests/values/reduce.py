#!/usr/bin/env python3
"""reduce.py -- shrinks a generated program that shows a wrong value into
a small regression case under tests/args/.

usage: reduce.py SEED 'BUILD' [OUT]

Regenerates SEED's program (gen.py), then drops lines -- calls of main,
statements of function bodies, whole functions -- as long as the program
still builds and ctrace-symbolize still shows a wrong value for BUILD
(e.g. 'gcc -O2 x86_64').  Writes the result to OUT (default
tests/args/values-SEED-BUILD.c or .cc), with the build in its first line;
tests/values/values.sh checks every such file.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402


def wrong(lines, lang, build, d):
    """Whether the program still shows a wrong value and is still an
    oracle: a cut that makes it undefined (a loop without its bound, a
    value read before it is set) leaves it no oracle (run.py's defects)."""
    counts, fails, defects = run.check_source("\n".join(lines) + "\n", lang, build, d)
    return not defects and counts.get("plan_wrong", 0) + counts.get("noplan_wrong", 0) > 0


def removable(line):
    t = line.strip()
    if not t or t in ("{", "}") or t.startswith(("#", "return", "static const",
                                                   "unsigned long long acc =",
                                                   "int main", "NI ", "struct ",
                                                   "enum ", "union ")):
        return False
    return line.startswith("\\t") or "(" in t


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    seed, build = int(sys.argv[1]), sys.argv[2]
    lang = run.lang_of(seed)
    arch = build.split()[2]
    g = subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), str(seed), lang] +
                       (["--m32"] if arch == "i386" else []),
                       stdout=subprocess.PIPE, check=True)
    lines = g.stdout.decode().split("\n")
    d = tempfile.mkdtemp(prefix="ctrace-reduce-")
    if not wrong(lines, lang, build, d):
        print("seed %d, %s: no wrong value to reduce" % (seed, build))
        return 1
    # the prelude (the printers: the oracle itself) stays as it is
    first = next(k for k, l in enumerate(lines) if l.startswith("static struct s2 g_s2"))
    chunk = max(1, len(lines) // 4)
    while chunk >= 1:
        i = first
        changed = False
        while i < len(lines):
            cand = [k for k in range(i, min(i + chunk, len(lines)))
                    if removable(lines[k])]
            if cand:
                trial = [l for k, l in enumerate(lines) if k not in cand]
                if wrong(trial, lang, build, d):
                    lines = trial
                    changed = True
                    continue
            i += chunk
        if not changed:
            chunk //= 2
    ext = "cc" if lang == "c++" else "c"
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        run.TOP_SRC, "tests", "args",
        "values-%d-%s.%s" % (seed, build.replace(" ", "-"), ext))
    text = "\n".join(lines) + "\n"
    # The lines every generated program starts with stay in one file.
    prelude = run.gen.read_prelude()
    if prelude in text:
        text = text.replace(prelude, run.PRELUDE_INCLUDE, 1)
    with open(out, "w") as fh:
        fh.write("/* build: %s -- reduced from tests/values/gen.py %d %s */\n"
                 % (build, seed, lang))
        fh.write(text)
    print("reduced to %d lines: %s" % (len(lines), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
