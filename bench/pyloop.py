"""pyloop.py - the real-program fixture of bench/hits.py's `real` section,
run by python3.11d (Debian's python3.11-dbg: CPython built with its own
DWARF).  Speaks bench/hotloop.c's protocol: prints
"ready PID", then serves commands from stdin, one a line, each answered
"ns WALL CPU" (CLOCK_MONOTONIC and this thread's CPU time of its loop):
  run N   len() of a tuple N times: each calls PyObject_Size() once (3.11
          specializes len() to a direct call), the probed function;
  work N  the same, with a json.dumps() of a small dict after each call:
          the interpreter's own work between two hits, as in a program
          that does something, takes the probe's data out of the caches;
  quit    exit.
"""
import json
import os
import sys
import time

ITEM = (1, 2, 3)
DOC = {"a": [1, 2, 3], "b": "text", "c": {"d": 1.5}}


def tight(n):
    for _ in range(n):
        len(ITEM)


def work(n):
    for _ in range(n):
        len(ITEM)
        json.dumps(DOC)


def timed(fn, n):
    c0, t0 = time.thread_time_ns(), time.monotonic_ns()
    fn(n)
    t1, c1 = time.monotonic_ns(), time.thread_time_ns()
    return t1 - t0, c1 - c0


def main():
    print("ready %d" % os.getpid(), flush=True)
    loops = {"run": tight, "work": work}
    for line in sys.stdin:
        w = line.split()
        if w and w[0] == "quit":
            break
        if len(w) == 2 and w[0] in loops and w[1].isdigit():
            print("ns %d %d" % timed(loops[w[0]], int(w[1])), flush=True)
        else:
            print("error %s" % line.strip(), flush=True)


main()
