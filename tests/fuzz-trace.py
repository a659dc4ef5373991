#!/usr/bin/env python3
"""fuzz-trace.py -- feed the symbolizer damaged copies of a real trace.

    fuzz-trace.py [--seed N] [--flips N] [--max-cuts N] [--chunk-fraction F]
                  [--scale F] [--leak-check-every N] SYMBOLIZER TRACE DIR

Makes, in DIR, copies of TRACE cut short at many offsets, with random bits
flipped, and with header and chunk-header fields set to hostile values,
and runs SYMBOLIZER on each (tree and JSON output in turn).  Each run must
end with exit status 0 or 1 (never a signal, never a sanitizer report);
status 1 must come with a message naming the file.  The copies that fail
are kept in DIR; the others are removed.  Exit status 0 when every run
behaved, 1 otherwise.  With a sanitized SYMBOLIZER and detect_leaks=1 in
ASAN_OPTIONS, --leak-check-every N checks for leaks in every Nth run only
(the check takes longer than the run).  --chunk-fraction is the share of
the hostile chunk-header values tried; --scale multiplies the number of
runs of every kind.
"""

import argparse
import os
import random
import struct
import subprocess
import sys

# struct ctrace_file_header and struct ctrace_chunk_header (ctrace_format.h)
# as offsets and sizes of the fields mutated below.
HEADER_FIELDS = {
    "version_major": (8, 2), "version_minor": (10, 2), "byte_order": (12, 4),
    "machine": (16, 2), "pointer_size": (18, 1), "clock": (19, 1),
    "header_size": (20, 4), "chunk_size": (24, 4), "flags": (36, 4),
    "base_ticks": (48, 8), "ticks_per_sec": (64, 8), "last_seq": (72, 8),
    "last_ticks": (80, 8), "chunks_claimed": (96, 8), "lost_events": (104, 8),
}
CHUNK_FIELDS = {
    "magic": (0, 4), "kind": (4, 2), "header_size": (6, 2), "thread": (8, 4),
    "tid": (12, 4), "seq": (16, 8), "base_time": (24, 8),
}
HOSTILE = (0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x1000, 0xffff, 0x7fffffff,
           0x80000000, 0xffffffff, (1 << 63), (1 << 64) - 1)

SANITIZER_MARKS = (b"AddressSanitizer", b"LeakSanitizer",
                   b"UndefinedBehaviorSanitizer", b"runtime error:")


def extents(data, block=4096):
    """(start, end) of the bytes worth cutting at: in each block, from its
    start to a little past its last nonzero byte."""
    result = []
    for start in range(0, len(data), block):
        chunk = data[start:start + block]
        stripped = chunk.rstrip(b"\0")
        if stripped:
            result.append((start, min(start + len(stripped) + 16,
                                      len(data))))
    return result


def with_leak_check(env, on):
    """env with LeakSanitizer's detect_leaks set, if ASAN_OPTIONS is set."""
    opts = env.get("ASAN_OPTIONS")
    if opts is None:
        return env
    kept = [o for o in opts.split(":") if o and
            not o.startswith("detect_leaks=")]
    env = dict(env)
    env["ASAN_OPTIONS"] = ":".join(kept + ["detect_leaks=%d" % on])
    return env


class Runner:
    def __init__(self, symbolizer, directory, leak_check_every):
        self.symbolizer = symbolizer
        self.dir = directory
        self.runs = 0
        self.failures = []
        # The leak check at exit costs more than a run: do it now and then.
        # Only when the caller asked for leak checks at all.
        every = leak_check_every
        asan = os.environ.get("ASAN_OPTIONS", "")
        if "detect_leaks=1" not in asan or every <= 1:
            self.envs = [os.environ]
        else:
            self.envs = [with_leak_check(os.environ, 1)] + \
                [with_leak_check(os.environ, 0)] * (every - 1)

    def run(self, label, data):
        path = os.path.join(self.dir, "case-%d" % self.runs)
        with open(path, "wb") as f:
            f.write(data)
        # Mostly the plain tree, which is quick; JSON and --srcline look
        # up call sites, which means reading the C library's debug
        # information when it is installed.
        if self.runs % 8 == 0:
            args = ["--format=json"]
        elif self.runs % 8 == 4:
            args = ["--no-duration", "--thread-ids=serial", "--srcline"]
        else:
            args = ["--no-duration", "--per-thread"]
        self.runs += 1
        try:
            env = self.envs[(self.runs - 1) % len(self.envs)]
            p = subprocess.run([self.symbolizer] + args + [path],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=60, env=env)
        except subprocess.TimeoutExpired:
            self.failures.append("%s: %s: no exit within 60 s" %
                                 (label, path))
            return
        err = p.stderr
        why = None
        if p.returncode < 0:
            why = "killed by signal %d" % -p.returncode
        elif p.returncode not in (0, 1):
            why = "exit status %d" % p.returncode
        elif any(m in err for m in SANITIZER_MARKS):
            why = "sanitizer report"
        elif p.returncode == 1 and path.encode() not in err:
            why = "exit status 1 without a message naming the file"
        else:
            for line in err.splitlines():
                if not line.startswith(b"ctrace-symbolize: "):
                    why = "stray output on stderr"
                    break
        if why:
            msg = err.decode(errors="replace").strip().splitlines()
            self.failures.append("%s: %s: %s\n    %s" % (
                label, path, why, "\n    ".join(msg[:8])))
        else:
            os.unlink(path)


def put(data, offset, size, value):
    data = bytearray(data)
    if offset + size <= len(data):
        data[offset:offset + size] = (value & ((1 << (8 * size)) - 1)) \
            .to_bytes(size, sys.byteorder)
    return bytes(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--flips", type=int, default=200)
    ap.add_argument("--max-cuts", type=int, default=600)
    ap.add_argument("--leak-check-every", type=int, default=1)
    ap.add_argument("--chunk-fraction", type=float, default=0.5)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("symbolizer")
    ap.add_argument("trace")
    ap.add_argument("dir")
    args = ap.parse_args()

    args.flips = int(args.flips * args.scale)
    args.max_cuts = max(1, int(args.max_cuts * args.scale))
    args.chunk_fraction *= args.scale
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    print("seed %d (rerun with --seed %d)" % (seed, seed))
    with open(args.trace, "rb") as f:
        data = f.read()
    r = Runner(args.symbolizer, args.dir, args.leak_check_every)

    # Truncated at every 7th byte of the data (fewer when that is many).
    ext = extents(data)
    total = sum(e - s for s, e in ext)
    step = max(7, total // args.max_cuts + 1)
    cuts = set([len(data) - 1])
    for s, e in ext:
        cuts.update(range(s, e, step))
        cuts.update((s, s + 1, s + 31, s + 32, s + 33))
    for cut in sorted(c for c in cuts if 0 <= c < len(data)):
        r.run("truncated at %d" % cut, data[:cut])

    # Random bit flips, mostly where the data is.
    for i in range(args.flips):
        mutated = bytearray(data)
        for _ in range(rng.choice((1, 1, 2, 3))):
            if ext and rng.random() < 0.9:
                s, e = rng.choice(ext)
                pos = rng.randrange(s, e)
            else:
                pos = rng.randrange(len(data))
            mutated[pos] ^= 1 << rng.randrange(8)
        r.run("bit flip %d" % i, bytes(mutated))

    # Hostile header fields.
    for name, (off, size) in HEADER_FIELDS.items():
        for value in HOSTILE:
            r.run("header %s = %#x" % (name, value),
                  put(data, off, size, value))

    # Hostile chunk header fields, in each chunk the file has.
    header_size = int.from_bytes(data[20:24], sys.byteorder)
    chunk_size = int.from_bytes(data[24:28], sys.byteorder)
    if header_size == 4096 and chunk_size >= 4096 and \
            chunk_size & (chunk_size - 1) == 0:
        starts = range(header_size, len(data), chunk_size)
        for n, start in enumerate(starts):
            for name, (off, size) in CHUNK_FIELDS.items():
                for value in HOSTILE:
                    if rng.random() >= args.chunk_fraction:
                        continue
                    r.run("chunk %d %s = %#x" % (n, name, value),
                          put(data, start + off, size, value))
        # Every chunk a copy of the first one (same stream, same seq).
        if len(starts) > 1:
            first = data[header_size:header_size + chunk_size]
            r.run("all chunks alike",
                  data[:header_size] + first * len(starts))

    print("%d runs, %d failures" % (r.runs, len(r.failures)))
    for f in r.failures[:30]:
        print(f)
    return 1 if r.failures else 0


if __name__ == "__main__":
    sys.exit(main())
