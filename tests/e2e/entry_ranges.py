"""entry_ranges.py - entry values of a function whose code is in two
parts (issue 23).  g++ -O2 splits cxx.cc's main and geo::run into a hot
part and a .cold one: their DWARF has DW_AT_ranges and no DW_AT_low_pc.
gdb takes such a function's entry as the start of its first range (the
hot part), finds the caller's call site of it there, and prints
main(argc=argc@entry=2, argv=argv@entry=0x7ffe...) and geo::run(n=n@entry=7,
..., op=op@entry=0x... <twice(int)>); wraith knew no entry of such a
function and showed main(argc=2, argv=<optimized out>), and a pointer to
it by its ELF symbol, <main>, where gdb writes <main(int, char**)>.
`bt args` at leaf must show those frames as gdb's `bt` does at the same
breakpoint of the same live process, g++ and clang++ -O2 (clang makes no
.cold part: the shape was already right, and stays); `print argc, argv`
in main equals gdb's print there.
"""
import re

from wraithtest import *

require_root()

BUILDS = ["cxx-O2", "cxx-clang-O2"]
# frames whose arguments are compared, and those that change from one
# call to the next (gdb stops at a later call than wraith's event)
FRAMES = ("main", "__libc_start_call_main", "geo::run")
PER_CALL = ("n",)
RUN_LINE = "cxx.cc:%d" % marker_line("cxx.cc", "geo::run((int)(i & 7), label")


def split_args(text):
    """gdb's `a=1, b=<main(int, char**)>` into [(name, value)]."""
    return [tuple(a.split("=", 1)) for a in re.split(r", (?=[\w@#]+=)", text) if "=" in a]


def gdb_frames(pid):
    """{function: [(name, value)]} of gdb's bt at leaf, main's caller
    shown as wraith's bt shows it."""
    argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "set backtrace past-main on",
            "-ex", "break leaf", "-ex", "continue", "-ex", "bt", "-ex", "detach"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    frames = {}
    for m in re.finditer(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \((.*)\) at ", out, re.M):
        frames.setdefault(m.group(1), split_args(m.group(2)))
    return frames, out


def wraith_frames(pid):
    """The same from wraith's bt args, as gdb writes each argument."""
    res = run(["-p", pid, "-s", "trace leaf { bt args; }", "--max-events", 1, "--script-output", "json", "-q"])
    frames = {}
    for ev in json_events(res.stdout)[:1]:
        for it in ev["items"]:
            for f in it.get("frames", []):
                args = [(a["name"], ("%s@entry=" % a["name"] if a.get("entry") else "") + a["value"])
                        for a in f.get("args", [])]
                frames.setdefault(f["function"], args)
    return frames, res


def prints(pid, point, names, gdb=False):
    """[print's text of each name] at @point: wraith's, or gdb's."""
    if gdb:
        argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "set backtrace past-main on",
                "-ex", "break %s" % point, "-ex", "continue"] + sum((["-ex", "print %s" % n] for n in names), [])
        out = subprocess.run(argv + ["-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
        return re.findall(r"^\$\d+ = (.*)$", out, re.M)
    body = " ".join("print %s;" % n for n in names)
    res = run(["-p", pid, "-s", "trace %s { %s }" % (point, body), "--max-events", 1, "--script-output", "json", "-q"])
    return [it["text"].split(" = ", 1)[-1] for ev in json_events(res.stdout)[:1] for it in ev["items"]
            if it["type"] == "print"]


def norm(name, value):
    return re.sub(r"\d+", "N", value) if name in PER_CALL else value


for b in BUILDS:
    fx = Fixture(b, [1000])
    mine, res = wraith_frames(fx.pid)
    gdb, text = gdb_frames(fx.pid)
    printed = prints(fx.pid, RUN_LINE, ["argc", "argv"])
    gdb_printed = prints(fx.pid, RUN_LINE, ["argc", "argv"], gdb=True)
    fx.stop()
    eq(printed, gdb_printed, "%s: print argc, argv at %s as gdb's" % (b, RUN_LINE))
    check(len(printed) == 2 and printed[1].startswith("(char **) 0x"), "%s: argv printed (%r)" % (b, printed))
    check(res.returncode == 0 and mine, "%s: bt args at leaf (%s)" % (b, res.stderr[-300:]))
    for fn in FRAMES:
        want = [(n, norm(n, v)) for n, v in gdb.get(fn, [])]
        got = [(n, norm(n, v)) for n, v in mine.get(fn, [])]
        if fn == "geo::run":  # gdb's bt abbreviates a reference to an array, wraith shows it
            got = [(n, "..." if n == "weights" else v) for n, v in got]
        check(fn in gdb, "%s: gdb's bt has %s (%s)" % (b, fn, text[-600:]))
        eq(got, want, "%s: %s's arguments as gdb's bt shows them" % (b, fn))
    # the shape really is there: what the callers passed
    main = dict(mine.get("main", []))
    check(main.get("argc") == "argc@entry=2" and main.get("argv", "").startswith("argv@entry=0x"),
          "%s: main(argc=argc@entry=2, argv=argv@entry=0x...) (%r)" % (b, main))
check_no_leftovers("after the functions in two parts")
finish()
