#!/usr/bin/env python3
"""check.py -- compares the arguments and results a generated program
printed (gen.py) with those ctrace-symbolize recovered from its trace.

usage: check.py [--no-plan] OUTPUT JSON LABEL

OUTPUT is the program's standard output: `A<TAB>function<TAB>id` then
`<TAB>name=text` per argument (`#name=text`: the text without a capture
plan), and `R<TAB>id<TAB>text` per result.  JSON is ctrace-symbolize -f
json of its trace.  The calls of each function are matched in the order
of their entries (timestamps); a clone's calls (f.constprop.0, f.part.0,
f.isra.0) count as f's.  Prints one line

  LABEL values=N recovered=N unavailable=N wrong=N unmatched=N

and every wrong value on stderr.  A value shown that is not the printed
one is wrong; `unavailable` (an honest `?`) is not an error.  A function
whose number of calls in the trace differs from the program's, or whose
calls lack their exit or were made up by the replay, has its values
counted as unmatched, not compared (call trees are the counting oracle's
business).  A float (and the float fields of struct sf and union u) is
the printed text converted to float, as C converts it when it passes the
value: clang on i386 keeps a float in an x87 register at double
precision, may print that (1.9754519) and pass it rounded to float
(1.97545195, the same float): both are that float, a neighbour is not.
Exits 1 when a value is wrong.
"""

import json
import re
import struct
import sys
from collections import defaultdict

# The parts printed with %.9g of a float: the fields of a type, or None
# for the whole value.
FLOAT_PARTS = {"float": None, "struct sf": ("x", "y"), "union u": ("f",)}


def as_float(text):
    """The float (its bytes) C makes of the number `text` (round to
    nearest), or None: not a number, a NaN (compared as text)."""
    try:
        v = float(text)
        return None if v != v else struct.pack("<f", v)
    except (ValueError, OverflowError):
        return None


def fields(text):
    """`{x=1, y=2}` as [("x", "1"), ("y", "2")], or None."""
    m = re.fullmatch(r"\{(.*)\}", text)
    if not m:
        return None
    out = []
    for part in m.group(1).split(", "):
        name, eq, value = part.partition("=")
        if not eq:
            return None
        out.append((name, value))
    return out


def same_float_value(type_name, shown, printed):
    """Whether `shown` and `printed` are one value of a type with float
    parts, each float part compared as the float it converts to, every
    other part as text."""
    if type_name not in FLOAT_PARTS:
        return False
    parts = FLOAT_PARTS[type_name]
    if parts is None:
        a = as_float(shown)
        return a is not None and a == as_float(printed)
    fs, fp = fields(shown), fields(printed)
    if fs is None or fp is None or [n for n, _ in fs] != [n for n, _ in fp]:
        return False
    for (name, s), (_, p) in zip(fs, fp):
        if s != p and (name not in parts or as_float(s) is None or
                       as_float(s) != as_float(p)):
            return False
    return True


def base_name(name):
    return name.split(".", 1)[0] if name else name


def main():
    argv = sys.argv[1:]
    no_plan = "--no-plan" in argv
    argv = [a for a in argv if a != "--no-plan"]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    calls = defaultdict(list)   # function -> [(id, [(name, text)])]
    results = {}
    for line in open(argv[0], errors="replace"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "A" and len(f) >= 3:
            items = []
            for field in f[3:]:
                name, text = field.split("=", 1)
                if name.startswith("#"):
                    # a string's address: what a trace without a plan
                    # shows, and what a plan that cannot reach the
                    # string may show
                    items = [(n, (text,) if no_plan else t + (text,))
                             if n == name[1:] else (n, t)
                             for n, t in items]
                    continue
                items.append((name, (text,)))
            calls[f[1]].append((int(f[2]), items))
        elif f[0] == "R" and len(f) >= 3:
            results[int(f[1])] = f[2]
    doc = json.load(open(argv[1]))
    label = argv[2]
    got = defaultdict(list)
    for c in doc.get("calls", []):
        got[base_name(c.get("function"))].append(c)
    ok = unavailable = wrong = unmatched = 0
    for fn, want in calls.items():
        seen = sorted(got.get(fn, []), key=lambda c: c["timestamp"])
        expected = [(cid, items + ([("return", (results[cid],))]
                                   if results.get(cid, "") != ""
                                   else []))
                    for cid, items in want]
        # A call without its exit, or one the replay made up (its call
        # site in the recorder's own code): the call tree is broken here
        # (the counting oracle's business), calls cannot be paired.
        broken = any(c.get("duration") is None or
                     "hooks.S:" in (c.get("call_site") or "") for c in seen)
        if broken or len(seen) != len(expected):
            unmatched += sum(len(items) for _, items in expected)
            continue
        for c, (cid, items) in zip(seen, expected):
            args = {a.get("name"): a for a in (c.get("args") or [])}
            for name, text in items:
                v = c.get("retval") if name == "return" else args.get(name)
                if v is None or "value" not in v:
                    unavailable += 1
                elif v["value"] in text or any(
                        same_float_value(v.get("type"), v["value"], t)
                        for t in text):
                    ok += 1
                else:
                    wrong += 1
                    print("%s: %s call #%d: %s is %s, expected %s" %
                          (label, fn, cid, name, v["value"], text[0]),
                          file=sys.stderr)
    total = ok + unavailable + wrong
    print("%s values=%d recovered=%d unavailable=%d wrong=%d unmatched=%d" %
          (label, total, ok, unavailable, wrong, unmatched))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
