#!/usr/bin/env python3
"""check.py -- compares recovered arguments and return values with the
expectations a test program printed.

usage: check.py [--no-plan] [--strict] EXPECTED JSON [LABEL]

EXPECTED has one line per call, in the order of the calls of each function:
"C<TAB>function", then "<TAB>name=text" per argument and "<TAB>=text" for
the return value; "<TAB>#name=text" gives what is expected instead when the
trace was recorded without a capture plan (--no-plan: strings are shown as
addresses then).  --strict: a value not recovered is an error too.  JSON is ctrace-symbolize -f json of the program's trace;
the calls of each function, in entry order, are matched with its lines in
order.  Prints one line

  LABEL recovered=N unavailable=N wrong=N

and each wrong value on stderr.  Exits 1 when a value is wrong (shown, but
not the one passed or returned), 0 otherwise: an honest "unavailable" is
not an error.
"""

import json
import sys
from collections import defaultdict


def main():
    argv = sys.argv[1:]
    no_plan = "--no-plan" in argv
    strict = "--strict" in argv
    argv = [a for a in argv if a not in ("--no-plan", "--strict")]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    exp = defaultdict(list)
    for line in open(argv[0]):
        f = line.rstrip("\n").split("\t")
        if f[0] != "C":
            continue
        items = []
        for field in f[2:]:
            name, text = field.split("=", 1)
            if name.startswith("#"):
                if no_plan:
                    items = [(n, text if n == name[1:] else t)
                             for n, t in items]
                continue
            items.append((name or "return", text))
        exp[f[1]].append(items)
    doc = json.load(open(argv[1]))
    label = argv[2] if len(argv) > 2 else argv[1]
    calls = defaultdict(list)
    for c in doc["calls"]:
        calls[c["function"]].append(c)
    ok = unavailable = wrong = 0
    for fn, want in exp.items():
        got = sorted(calls.get(fn, []), key=lambda c: c["timestamp"])
        for i, items in enumerate(want):
            c = got[i] if i < len(got) else {}
            args = {a.get("name"): a for a in (c.get("args") or [])}
            for name, text in items:
                v = c.get("retval") if name == "return" else args.get(name)
                if v is None or "value" not in v:
                    unavailable += 1
                elif v["value"] == text:
                    ok += 1
                else:
                    wrong += 1
                    print("%s: %s call %d: %s is %s, expected %s" %
                          (label, fn, i + 1, name, v["value"], text),
                          file=sys.stderr)
    print("%s recovered=%d unavailable=%d wrong=%d" %
          (label, ok, unavailable, wrong))
    if strict and unavailable:
        print("%s: %d values not recovered" % (label, unavailable),
              file=sys.stderr)
        return 1
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
