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
business).  Exits 1 when a value is wrong.
"""

import json
import sys
from collections import defaultdict


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
                elif v["value"] in text:
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
