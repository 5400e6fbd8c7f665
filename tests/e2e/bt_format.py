"""bt_format.py - the shape of `bt` output.  Pretty (--color never):
  backtrace: STATUS, N frame(s) (max D)
      #i func(params) at file:line:col [module+0xoff]
      #i.inline name(params) at file:line:col
      #i ?? [module+0xoff]
    stopped: STATUS (ERROR, code=N)          unless complete
checked with regular expressions (not addresses) and against the JSON
form of the same stack in a second run: the same functions, parameters,
source positions, modules, status and error.  JSON: the documented fields
with their types."""
import re

from bt_support import *

require_root()

HEADER = re.compile(r"^\[\d\d:\d\d:\d\d\.\d{3}\] #1 (\d+)/(\d+) leaf$")
BT = re.compile(r"^  backtrace: ([a-z-]+), (\d+) frames? \(max (\d+)\)$")
FRAME = re.compile(r"^    #(\d+)(\.inline)? (.+?)(?: at ([^ :]+):(\d+):(\d+))?(?: \[([^\]\s]+)\+0x([0-9a-f]+)\])?$")
STOP = re.compile(r"^  stopped: ([a-z-]+)(?: \(([a-z-]+), code=(\d+)\))?$")
ERRORS = {"none": 0, "return-address-read": 1, "frame-pointer-read": 2, "next-ip-below-user": 3,
          "next-ip-kernel-like": 4, "next-cfa-zero": 5, "next-cfa-not-advancing": 6}
STATUSES = {"complete": 0, "truncated": 1, "dwarf-unavailable": 2, "unsupported-cfi": 3,
            "offsets-unavailable": 4, "read-error": 5, "internal-error": 6, "invalid-frame": 7,
            "no-unwind-rows-for-pc": 8}
FRAME_FIELDS = {"index": int, "function": (str, type(None)), "params": (str, type(None)),
                "file": (str, type(None)), "path": (str, type(None)), "line": (int, type(None)),
                "column": (int, type(None)), "module": (str, type(None)), "offset": str, "ip": str,
                "inline": bool}
BT_FIELDS = {"type": str, "status": str, "status_code": int, "error": str, "error_code": int,
             "max_depth": int, "frame_count": int, "frames": list}

# (fixture, its extra arguments, wraith's extra options)
CASES = [("chain-O2", [], []), ("inline-O2", [], []), ("cxx-O2", [], []), ("chain_nodebug-O2", [], []),
         ("signal-O2", ["spin"], []), ("nocfi-O2", [], []), ("recurse-O2", [], ["--backtrace-depth", 5]),
         ("realign-O2", [], [])]


def both(case):
    """The same stack twice: pretty, then JSON."""
    name, args, opts = case
    fx = Fixture(name, [1000, -1] + args)
    try:
        base = ["-p", fx.pid, "-s", "trace leaf { bt; }", "--max-events", 1, "-q"] + opts
        pretty = run(base + ["--color", "never"])
        js = run(base + ["--script-output", "json"])
    finally:
        fx.stop()
    return name, args + opts, pretty, js


def expected_line(fr):
    """A frame line as the JSON frame says it should read, up to the module."""
    text = "    #%d%s %s" % (fr["index"], ".inline" if fr["inline"] else "", fr["function"] or "??")
    if fr["params"] is not None:
        text += "(%s)" % fr["params"]
    if fr["file"] is not None:
        text += " at %s:%d:%d" % (fr["file"], fr["line"], fr["column"])
    return text


for name, opts, pretty, js in parallel(both, CASES):
    label = " ".join([name] + [str(o) for o in opts])
    if not check(pretty.returncode == 0 and js.returncode == 0, "%s: wraith exits 0 (%r %r)" % (
            label, pretty.stderr[-200:], js.stderr[-200:])):
        continue
    check("\x1b" not in pretty.stdout, "%s: --color never: no escape sequences" % label)
    lines = pretty.stdout.splitlines()
    item = json_events(js.stdout)[0]["items"][0]

    # JSON shape
    check(all(k in item and isinstance(item[k], t) for k, t in BT_FIELDS.items()),
          "%s: JSON backtrace fields and types (%s)" % (label, sorted(item)))
    check(all(k in f and isinstance(f[k], t) for f in item["frames"] for k, t in FRAME_FIELDS.items()),
          "%s: JSON frame fields and types" % label)
    eq((item["status_code"], item["error_code"]), (STATUSES.get(item["status"]), ERRORS.get(item["error"])),
       "%s: JSON status and error codes match their names" % label)
    physical = [f for f in item["frames"] if not f["inline"]]
    eq([f["index"] for f in physical], list(range(len(physical))), "%s: JSON physical frames numbered 0.." % label)
    check(all(re.match(r"^0x[0-9a-f]+$", f["offset"]) and re.match(r"^0x[0-9a-f]+$", f["ip"])
              for f in item["frames"]), "%s: JSON offsets and ips are hex strings" % label)

    # pretty shape
    check(len(lines) >= 3 and HEADER.match(lines[0]), "%s: event header line (%r)" % (label, lines[:1]))
    m = BT.match(lines[1]) if len(lines) > 1 else None
    if not check(m is not None, "%s: 'backtrace: STATUS, N frames (max D)' line (%r)" % (label, lines[1:2])):
        continue
    status, count, depth = m.group(1), int(m.group(2)), int(m.group(3))
    eq((status, count, depth), (item["status"], item["frame_count"], item["max_depth"]),
       "%s: header agrees with the JSON run" % label)
    check(("1 frame " in lines[1]) == (count == 1), "%s: 'frame' singular only for 1" % label)
    body = lines[2:]
    stop = body.pop() if body and body[-1].startswith("  stopped:") else None
    parsed = [FRAME.match(l) for l in body]
    check(all(parsed), "%s: every frame line matches the format (%s)" % (
        label, [l for l, p in zip(body, parsed) if not p]))
    if not all(parsed):
        continue
    inl = [p for p in parsed if p.group(2)]
    phys = [p for p in parsed if not p.group(2)]
    eq([int(p.group(1)) for p in phys], list(range(count)), "%s: frames numbered #0..#%d" % (label, count - 1))
    check(all(p.group(7) for p in phys) and not any(p.group(7) for p in inl),
          "%s: physical frames end with [module+0xoff], inline frames do not" % label)
    # "#1.inline" lines come right before "#1" (possibly several of them)
    numbers_ok = True
    for i, p in enumerate(parsed):
        if p.group(2):
            numbers_ok = numbers_ok and i + 1 < len(parsed) and parsed[i + 1].group(1) == p.group(1)
    check(numbers_ok, "%s: inline frame lines come before their physical frame's line" % label)
    got = [l.split(" [")[0] if not FRAME.match(l).group(2) else l for l in body]
    want = [expected_line(f) for f in item["frames"]]
    if name.startswith("signal-"):
        # the interrupted frame's line varies with where the signal hit
        got = [re.sub(r"^(    #4 spin\(\) at signal\.c):\d+:\d+$", r"\1", l) for l in got]
        want = [re.sub(r"^(    #4 spin\(\) at signal\.c):\d+:\d+$", r"\1", l) for l in want]
    eq(got, want, "%s: pretty frames read as the JSON frames do" % label)
    eq([p.group(7) for p in phys], [os.path.basename(f["module"]) if f["module"] else None for f in physical],
       "%s: module names are the JSON modules' file names" % label)
    if item["status"] == "complete":
        check(stop is None, "%s: no 'stopped:' line when complete" % label)
    else:
        sm = STOP.match(stop or "")
        check(sm is not None and sm.group(1) == item["status"],
              "%s: '  stopped: STATUS' line (%r)" % (label, stop))
        if sm and item["error_code"] != 0:
            eq((sm.group(2), int(sm.group(3) or -1)), (item["error"], item["error_code"]),
               "%s: the stopped line names the error and its code" % label)
        elif sm and sm.group(2):
            eq((sm.group(2), int(sm.group(3))), ("none", 0), "%s: the stopped line's error" % label)

    if name == "inline-O2":
        check(any(l.startswith("    #1.inline inlined_helper(int x) at inline.c:") for l in body),
              "%s: the inline frame's line (%s)" % (label, body[:3]))
    if name == "signal-O2":
        check(any(re.match(r"^    #3 <signal handler called> \[libc\.so\.6\+0x[0-9a-f]+\]$", l) for l in body),
              "%s: the signal frame's line (%s)" % (label, body[2:4]))
    if name == "chain_nodebug-O2":
        check(re.match(r"^    #0 leaf \[chain_nodebug-O2\+0x[0-9a-f]+\]$", body[0]) is not None,
              "%s: a frame without debug info: name and module only (%r)" % (label, body[0]))

check_no_leftovers("after the format tests")
finish()
