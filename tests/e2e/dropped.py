"""dropped.py - code the linker dropped leaves its debug info at address 0
(dropped.c, built with --gc-sections by gcc and clang at -O0 and -O2):
its line sequence from 0 covers _start, main and leaf, and its function's
range too.  A backtrace at leaf names every frame and line as gdb's does -
main at its own line, not one of the dropped function's - and _start has
no line and is not the dropped function."""
import subprocess

from wraithtest import *

require_root()

FRAME = re.compile(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*?\)(?: at (\S+):(\d+))?")


def gdb_frames(binary):
    """(function, line or None) of each frame of gdb's bt at leaf, past main."""
    out = subprocess.run(["gdb", "-batch", "-nx", "-ex", "set backtrace past-main on", "-ex", "break leaf",
                          "-ex", "run", "-ex", "bt", "-ex", "kill", binary],
                         capture_output=True, text=True, timeout=120).stdout
    frames = []
    for line in out.splitlines():
        m = FRAME.match(line)
        if m:
            frames.append((m.group(1), int(m.group(3)) if m.group(3) else None))
    return frames


for v in ("O0", "O2", "clang-O0", "clang-O2"):
    name = "dropped-" + v
    fx = Fixture(name)
    res = run(["-p", fx.pid, "-s", "trace leaf { bt; }", "--max-events", 1, "--script-output", "json", "-q"])
    fx.stop()
    evs = json_events(res.stdout)
    check(res.returncode == 0 and evs, "%s: a backtrace (%r)" % (name, res.stderr[-300:]))
    if not evs:
        continue
    ours = [(f["function"], f["line"]) for f in evs[0]["items"][0]["frames"]
            if f["path"] is None or "dropped" in f["path"] or f["function"] == "_start"]
    want = [f for f in gdb_frames(fixture(name)) if f[0] in ("leaf", "main", "_start")]
    eq(ours, want, "%s: the program's frames and lines are gdb's" % name)
    eq(ours[:2], [("leaf", marker_line("dropped.c", "LINE:leaf")), ("main", marker_line("dropped.c", "LINE:main"))],
       "%s: leaf and main at their own lines" % name)
    check(ours and ours[-1] == ("_start", None), "%s: _start has no line (%r)" % (name, ours[-1:]))
check_no_leftovers("after the dropped code")
finish()
