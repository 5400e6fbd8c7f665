"""shell_tmux.py - the interactive shell end to end.

tmux runs the real `wraith -p PID` against live fixtures; keys go in with
send-keys and the screen comes back with capture-pane, polled with a
timeout.  First session (colours, 100x30, then resized to 80x24): a probe
set with `trace leaf` in the script editor with a `bt`, its events and
frames in the output panel (frames checked against gdb's `bt`), the source
panel's probe mark, disable / enable / delete while another probe keeps
running, usage errors, Tab completion, history (Up, Ctrl-R), help (each
line whole in 80 columns), what is typed in the output panel going to the
command line, the diagnosis view by command and by F5, changing a probe in the editor,
pausing the output with F3 (events wait, counted in the panel's title,
and come back in order, none lost), resizing, and Ctrl-C twice to quit.
Second session (NO_COLOR, a fixture without unwind tables): no colour on
the screen, the history of the first session, the diagnosis view with a
stop place, its sample event, unwind row and fix, and `quit`.  Third:
a first trace that does not compile (no uprobe of it is left in the
process), a frame whose parameter list is cut to the panel's width, a
frame's values that wrap instead, truncated
backtraces and the view's hint to raise the depth, then SIGTERM.  After each, no BPF program or uprobe of wraith may be left; the
history file must be mode 0600.
"""
import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time

from wraithtest import *

require_root()
if not shutil.which("tmux"):
    fail("tmux is needed for this test and is not installed")
    finish()

SOCKET = tmux_socket("e2e")
STATE = tempfile.mkdtemp(prefix="wraith-shell-")
HISTORY = os.path.join(STATE, "wraith", "history")
COLOR_SGR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;5;\d+|48;5;\d+)m")


class Shell:
    """One wraith shell in a detached tmux session."""

    def __init__(self, name, pid, env):
        self.name = name
        self.status_file = os.path.join(STATE, name + ".status")
        envs = " ".join("%s=%s" % kv for kv in env.items())
        cmd = ("env -u NO_COLOR %s %s -p %d; echo \"exit=$?\" > %s; sleep 60"
               % (envs, WRAITH, pid, self.status_file))
        # The server of a session just killed may still be on its way out
        # and refuse the new one: try again then.
        for _ in range(10):
            r = self.tmux("-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "100", "-y", "30", cmd)
            if r.returncode == 0:
                break
            time.sleep(0.5)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", SOCKET] + list(args), capture_output=True, text=True,
                              timeout=30)

    def screen(self, escapes=False):
        args = ["capture-pane", "-p", "-t", self.name] + (["-e"] if escapes else [])
        r = self.tmux(*args)
        return r.stdout if r.returncode == 0 else "<tmux: %s>" % r.stderr.strip()

    def keys(self, *keys):
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text):
        # tmux reads a ';' that ends an argument as a command separator.
        if text.endswith(";"):
            self.tmux("send-keys", "-t", self.name, "-l", text[:-1])
            self.tmux("send-keys", "-t", self.name, "-l", "\\;")
        else:
            self.tmux("send-keys", "-t", self.name, "-l", text)

    def command(self, text):
        self.type(text)
        self.keys("Enter")

    def wait_for(self, what, test, timeout=30):
        """Poll the screen until test(screen) is true; returns the screen."""
        deadline = time.time() + timeout
        scr = self.screen()
        while time.time() < deadline:
            if test(scr):
                check(True, "%s: %s" % (self.name, what))
                return scr
            time.sleep(0.1)
            scr = self.screen()
        fail("%s: %s (timed out; the screen was:\n%s)" % (self.name, what, scr))
        return scr

    def wait_text(self, what, pattern, timeout=30):
        rx = re.compile(pattern, re.M)
        return self.wait_for(what, lambda s: rx.search(s), timeout)

    def cursor_x(self):
        out = self.tmux("display-message", "-p", "-t", self.name, "#{cursor_x}").stdout.strip()
        return int(out) if out.isdigit() else -1

    def cursor_visible(self):
        return self.tmux("display-message", "-p", "-t", self.name, "#{cursor_flag}").stdout.strip() == "1"

    def status_bar(self):
        lines = self.screen().rstrip("\n").split("\n")
        return lines[-1] if lines else ""

    def events(self):
        m = re.search(r"\| (\d+) events \|", self.status_bar())
        return int(m.group(1)) if m else -1

    def exit_status(self, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if os.path.exists(self.status_file):
                with open(self.status_file) as f:
                    text = f.read()
                if text.endswith("\n"):  # the shell may not have written it yet
                    return text.strip()
            time.sleep(0.1)
        return None

    def close(self):
        self.tmux("kill-session", "-t", self.name)


def code_as_in_file(pid, binary, function):
    """Whether @function's code in the live process @pid is the bytes of
    its file: a registered uprobe puts a breakpoint (0xcc) in it."""
    sym = next(l.split() for l in subprocess.run(
        ["nm", "-S", binary], capture_output=True, text=True).stdout.splitlines()
        if l.split()[-1:] == [function] and l.split()[2] in "tT")
    value, size = int(sym[0], 16), int(sym[1], 16)
    with open(binary, "rb") as f:
        f.seek(value)  # the text's file offset is its address in these fixtures
        on_disk = f.read(size)
    with open("/proc/%d/mem" % pid, "rb") as mem:
        mem.seek(load_base(pid, binary) + value)
        return mem.read(size) == on_disk


def frames_of_last_backtrace(scr):
    """Function names of the last complete backtrace block on the screen."""
    lines = scr.split("\n")
    starts = [i for i, l in enumerate(lines) if l.strip().startswith("backtrace: complete")]
    names = []
    for l in lines[starts[-1] + 1:] if starts else []:
        m = re.match(r"^\s+#(\d+)\s+(\S+?)\(", l)
        if not m:
            if re.match(r"^\s+#\d+", l):
                continue  # a frame without parameters (libc, _start)
            break
        if int(m.group(1)) != len(names):
            break
        names.append(m.group(2))
    return names


def cmdline(scr):
    lines = scr.rstrip("\n").split("\n")
    return lines[-2] if len(lines) >= 2 else ""


leaf_line = marker_line("chain.c", "LINE:leaf-body")
want = gdb_backtraces(fixture("chain-O2fp"), "leaf", args=(0, 1))
want = want[0] if want else []
check(want[:4] == ["leaf", "middle", "outer", "main"], "gdb oracle: %r" % want)

# ---- first session: colours, probes, commands, views, resize, Ctrl-C ----
fx = Fixture("chain-O2fp", [20000])
sh = Shell("colour", fx.pid, {"XDG_STATE_HOME": STATE})
sh.wait_text("the shell starts on the process", r"tracing process %d" % fx.pid, timeout=90)
sh.wait_text("status bar: target, probes, rate, events, lost, transport",
             r"pid %d chain-O2fp \| probes 0/0 on \| \d+ ev/s \| 0 events \| lost 0 \| ringbuf"
             % fx.pid)

sh.command("trace leaf")
sh.wait_text("`trace leaf` opens the script editor", r"new probe at leaf.*Ctrl-S")
sh.type('print "hit {}", $pid;')
sh.keys("Enter")
sh.type("bt;")
scr = sh.wait_text("the editor holds the script", r"^\s+3\s+bt;")
check(re.search(r"^\s+1\s+trace leaf \{", scr, re.M), "the editor starts with the trace line")
sh.keys("C-s")
scr = sh.wait_text("events of probe 1 arrive", r"#1 %d/%d leaf" % (fx.pid, fx.pid))
scr = sh.wait_text("the print payload", r"^  hit %d$" % fx.pid)
scr = sh.wait_text("a complete backtrace", r"backtrace: complete, \d+ frames")
got = frames_of_last_backtrace(scr)
eq(got[:len(want)], want, "frames in the output panel match gdb's bt")
sh.wait_text("the source panel shows chain.c with the probe line marked",
             r"source: chain\.c(.|\n)*^\s*%d>" % leaf_line)
colours = sh.screen(escapes=True)
check(re.search(r"\x1b\[32m[^\n]*backtrace: complete", colours),
      "a complete backtrace header is green")

# Events of probe 1 still on their way when it is disabled print after
# the command's answer and can scroll it out of the panel (they did, on a
# loaded machine): the panel is paused (F3) while the answer is read.
sh.keys("F3")
sh.command("disable 1")
sh.wait_text("disable 1", r"^probe 1 disabled$")
sh.keys("F3")
sh.wait_text("status bar counts the disabled probe", r"probes 0/1 on")
sh.wait_text("the source mark shows a disabled probe", r"^\s*%do" % leaf_line)
# Another probe's events mark time: events leave the kernel in order, so
# once probe 2's arrive, probe 1's last ones have arrived too, and probe
# 1's count must stay where it is while probe 2's keep coming.
sh.command('trace middle { print "mid {}", $tid; }')
sh.wait_text("a one-line trace adds probe 2", r"probes 1/2 on")
sh.wait_text("probe 2's events arrive while probe 1 is disabled", r"^  mid %d$" % fx.pid)
# Probe 2's events scroll a command's output away within a second on a
# slow machine: the panel is paused (F3) while the output is read.
sh.keys("F3")
sh.command("info probes")
scr = sh.wait_text("info probes", r"^#1 leaf  disabled  sites 1  hits \d+  events \d+  filtered \d+  lost 0$")
sh.keys("F3")
before = int(re.findall(r"^#1 leaf  disabled  sites 1  hits \d+  events (\d+)", scr, re.M)[-1])
total = sh.events()
sh.wait_for("probe 2 goes on firing", lambda s: sh.events() >= total + 20)
sh.command("clear")
sh.keys("F3")
sh.command("info probes")
scr = sh.wait_text("info probes again", r"^#1 leaf  disabled  sites 1  hits \d+  events \d+  filtered \d+  lost 0$")
sh.keys("F3")
eq(int(re.findall(r"^#1 leaf  disabled  sites 1  hits \d+  events (\d+)", scr, re.M)[-1]), before,
   "no events of probe 1 while it is disabled")

sh.command("enable 1")
sh.wait_text("status bar: probe 1 on again", r"probes 2/2 on")
sh.wait_text("events of probe 1 arrive again after enable, beside probe 2's",
             r"#1 %d/%d leaf" % (fx.pid, fx.pid))
sh.command("disable all")
sh.wait_text("disable all", r"probes 0/2 on")
sh.keys("F3")  # as for `disable 1`
sh.command("delete 2")
sh.wait_text("delete 2", r"^probe 2 deleted$")
sh.keys("F3")
sh.command("clear")
sh.wait_for("clear empties the output panel", lambda s: "probe 2 deleted" not in s)
sh.command("info probes")
scr = sh.wait_text("only probe 1 is left", r"^#1 leaf  disabled")
check("#2 middle" not in scr, "probe 2 is gone")
sh.command("trace outer {")
sh.wait_for("an open `trace` block continues on the next line",
            lambda s: cmdline(s).startswith("   ...>"))
sh.command('print "out";')
sh.command("}")
sh.wait_text("the block becomes probe 3", r"probes 1/2 on")
sh.wait_text("its events arrive", r"^  out$")
sh.command("delete 3")
sh.wait_text("delete 3", r"probes 0/1 on")

sh.command("frobnicate")
sh.wait_text("an unknown command gets one line", r"^unknown command 'frobnicate'; `help` lists the commands$")
sh.command("enable")
sh.wait_text("bad arguments get the usage", r"^usage: enable ID\|all$")

sh.type("info pro")
sh.keys("Tab")
sh.wait_for("Tab completes an info topic", lambda s: cmdline(s).rstrip() == "wraith> info probes")
sh.keys("C-u")
sh.type("trace midd")
sh.keys("Tab")
sh.wait_for("Tab completes a function name", lambda s: cmdline(s).rstrip() == "wraith> trace middle")
sh.keys("C-u")
sh.type("trace chai")
sh.keys("Tab")
sh.wait_for("Tab completes a source file", lambda s: cmdline(s) == "wraith> trace chain.c:")
eq(sh.cursor_x(), len("wraith> trace chain.c:"), "no space after 'file.c:': the line number comes next")
sh.keys("C-u")
sh.type("trace lea")
sh.keys("Tab")
sh.keys("Tab")
sh.wait_text("a second Tab lists the candidates (leaf, and leapyear from libc)", r"^leaf\s+leapyear\s*$")
sh.keys("C-u")
sh.keys("Up")
sh.wait_for("Up recalls the last command", lambda s: cmdline(s).rstrip() == "wraith> enable")
sh.keys("C-u")
sh.keys("C-r")
sh.type("frob")
sh.wait_for("Ctrl-R searches the history",
            lambda s: "reverse-i-search" in cmdline(s) and "frobnicate" in cmdline(s))
sh.keys("C-g")
sh.keys("C-u")

sh.command("diag")
sh.wait_text("`diag` opens the diagnosis view", r"diagnosis: probe 1 \(leaf\)")
scr = sh.wait_text("the view counts backtraces by status", r"^\s+complete \(0\)\s+[1-9]\d*\s+the stack")
sh.keys("Escape")
sh.wait_text("Esc closes the view", r"^ output ")
check(sh.cursor_visible(), "the command line has the focus (the cursor shows)")
sh.keys("Tab")
sh.wait_for("Tab moves the focus to the source panel (no cursor)", lambda s: not sh.cursor_visible())
sh.keys("Tab")
# what is typed in the output panel goes to the command line, every key:
# `disable all` must not open the diagnosis view on its `d`
sh.type("disable all")
sh.wait_for("typing in the output panel goes to the command line",
            lambda s: cmdline(s).rstrip() == "wraith> disable all" and sh.cursor_visible())
sh.keys("Enter")
scr = sh.wait_text("and runs there", r"^probe 1 disabled$")
check("diagnosis:" not in scr, "no one-letter key of the panel took a letter of it")
# while no event arrives to scroll them away
sh.command("inf probes")
sh.wait_text("gdb's abbreviations: inf probes", r"^#1 leaf  disabled  sites 1")
sh.command("clear")
sh.command("i b")
sh.wait_text("gdb's abbreviations: i b", r"^#1 leaf  disabled  sites 1")
sh.command("enable all")
sh.wait_text("the probe is on again", r"probes 1/1 on")
sh.keys("F5")
sh.wait_text("F5 opens the diagnosis view", r"diagnosis: probe 1 \(leaf\)")
sh.keys("Escape")
sh.wait_text("and Esc closes it again", r"^ output ")
sh.keys("F1")
scr = sh.wait_text("F1 shows the help", r"^ +stacks +stacks counted by")
check(re.search(r"^ +stacks +stacks counted by `count bt`: .*\n +.*\n +profile, or cleared\s*$", scr, re.M),
      "the help shows the whole stacks line, wrapped")
long = [l for l in scr.split("\n")[:-2] if len(l.rstrip()) > 80]  # the status bar below
check(not long, "the help fits 80 columns (%r)" % long)
sh.keys("End")
sh.wait_text("the help's keys below, F5 among them", r"^ +F5 diagnosis view")
sh.keys("Escape")
sh.wait_text("Esc closes the help", r"^ output ")
sh.wait_for("the command line has the focus again", lambda s: sh.cursor_visible())
sh.command("trace leaf")
sh.wait_text("`trace leaf` again edits probe 1", r"editing probe 1 \(leaf\): Ctrl-S replaces it")
sh.wait_text("with its script", r"^\s+2\s+print \"hit \{\}\", \$pid;$")
sh.keys("Down", "End")
sh.type(' print "v2";')
sh.keys("C-s")
sh.wait_text("the changed probe's events arrive", r"^  v2$")
sh.wait_text("and it replaced probe 1 (one probe, on)", r"probes 1/1 on")

def output_rows(scr):
    """The output panel's rows below its title (the title says paused or not)."""
    lines = scr.rstrip("\n").split("\n")
    top = [i for i, l in enumerate(lines) if l.startswith(" output ")]
    return lines[top[-1] + 1:-2] if top else []


# F3 pauses the output panel.  Probe 2 prints outer's argument, which the
# fixture counts 0..7 round and round, so the lines that waited show
# whether they came back in order; one line per event after its header, so
# the panel's line count shows whether any were lost.
sh.command("disable all")
sh.command("clear")  # the scrollback must not be full for the count to tell
sh.command('trace outer { print "n={}", x; }')
scr = sh.wait_text("a probe prints outer's argument", r"^  n=\d$")
m = re.search(r"#(\d+) %d/%d outer" % (fx.pid, fx.pid), scr)
outer_id = m.group(1) if m else "0"
sh.keys("F3")
scr = sh.wait_text("F3 pauses the output; its title counts the events that wait",
                   r"^ output .*\d+ lines; paused, [1-9]\d* events waiting \(F3\)")
bar = scr.rstrip("\n").split("\n")[-1]
# the message keeps a blank column between it and the text cut before it
check(re.search(r"^ pid \d+ chain-O2fp \| .*\S {2,}output paused; F3 resumes\s*$", bar),
      "at 100 columns the status bar's message does not run into its text (%r)" % bar)
frozen, before = output_rows(scr), sh.events()
# the title and the status bar are drawn apart: wait for the title's
# own count, not only for the bar's events
scr = sh.wait_for("events keep arriving while paused",
                  lambda s: sh.events() >= before + 20 and
                  int((re.search(r"paused, (\d+) events waiting", s) or [0, 0])[1]) >= 20)
eq(output_rows(scr), frozen, "the paused output panel does not move")
m = re.search(r"paused, (\d+) events waiting", scr)
check(m and int(m.group(1)) >= 20, "the title counts the events that wait (%s)" % (m and m.group(0)))
sh.command("disable " + outer_id)
sh.wait_text("command output still shows while paused", r"^probe %s disabled$" % outer_id)
last, scr = None, sh.screen()
for _ in range(30):  # until what was already in the buffer has been read
    time.sleep(0.5)
    scr = sh.screen()
    m = re.search(r"(\d+) lines; paused, (\d+) events waiting", scr)
    if m and m.groups() == last:
        break
    last = m.groups() if m else None
check(m is not None, "the paused title counts lines and waiting events")
lines, waiting = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
sh.keys("F3")
scr = sh.wait_text("F3 again resumes: the title counts lines again", r"^ output .* \d+ lines\s*$")
check("events waiting" not in scr, "nothing waits after resume")
m = re.search(r"^ output .* (\d+) lines\s*$", scr, re.M)
eq(int(m.group(1)) if m else -1, lines + 2 * waiting,
   "every event that waited is in the panel (%d events, 2 lines each)" % waiting)
seen = [int(v) for v in re.findall(r"^  n=(\d)$", scr, re.M)]
check(len(seen) >= 4 and all(b == (a + 1) % 8 for a, b in zip(seen, seen[1:])),
      "the events that waited appear in order, none missing (%r)" % seen)
sh.command("delete " + outer_id)
sh.command("enable all")
sh.wait_text("the leaf probe is back on its own", r"probes 1/1 on")
sh.wait_text("new events show again", r"^  v2$")
sh.tmux("resize-window", "-t", sh.name, "-x", "80", "-y", "24")
size = sh.tmux("display-message", "-p", "-t", sh.name, "#{window_width}x#{window_height}").stdout.strip()
eq(size, "80x24", "the window is 80x24")
scr = sh.wait_for("the layout follows the resize",
                  lambda s: len(s.rstrip("\n").split("\n")) <= 24 and
                  re.search(r"^ pid %d chain-O2fp \| probes 1/1 on" % fx.pid,
                            s.rstrip("\n").split("\n")[-1]) is not None)
check(all(len(l) <= 80 for l in scr.split("\n")), "nothing is drawn past column 80")
check(re.search(r"^ output ", scr, re.M), "the output panel is there at 80x24")
before = sh.events()
sh.wait_for("events keep arriving at 80x24", lambda s: sh.events() > before)

sh.keys("C-c")
sh.wait_text("the first Ctrl-C warns", r"press Ctrl-C again to quit")
sh.wait_for("the warning goes when its two seconds are over",
            lambda s: "press Ctrl-C again" not in s)
check(sh.exit_status(timeout=0.1) is None, "one Ctrl-C does not quit")
sh.keys("C-c")
# The second must come after the first was seen: two SIGINTs that arrive
# together are one signal.
sh.wait_text("a new first Ctrl-C warns again", r"press Ctrl-C again to quit")
sh.keys("C-c")
eq(sh.exit_status(), "exit=0", "Ctrl-C twice quits with status 0")
sh.close()
check_no_leftovers("after Ctrl-C twice")
fx.stop()

check(os.path.isfile(HISTORY), "the history file is %s" % HISTORY)
if os.path.isfile(HISTORY):
    eq(stat.S_IMODE(os.stat(HISTORY).st_mode), 0o600, "the history file is mode 0600")
    with open(HISTORY) as f:
        hist = f.read().split("\n")
    check("info probes" in hist and "disable 1" in hist, "the history holds the commands")

# ---- second session: NO_COLOR, history, a stop place in the diagnosis view ----
fx = Fixture("nocfi-O0", [20000])
sh = Shell("mono", fx.pid, {"XDG_STATE_HOME": STATE, "NO_COLOR": "1"})
sh.wait_text("the second shell starts", r"tracing process %d" % fx.pid, timeout=90)
want_line = 'wraith> trace leaf { print "hit {}", $pid; print "v2"; bt; }'
for _ in range(7):  # the F3 part's six commands came after it
    prev = cmdline(sh.screen())
    sh.keys("Up")
    sh.wait_for("Up recalls an older command", lambda s, prev=prev: cmdline(s) != prev)
sh.wait_for("the history of the first session is there, a script on one line",
            lambda s: cmdline(s) == want_line)
sh.keys("C-u")
sh.command("trace leaf { bt; }")
sh.wait_text("a backtrace that stops early", r"^  stopped: dwarf-unavailable$")
check(not COLOR_SGR.search(sh.screen(escapes=True)), "NO_COLOR: no colour on the screen")
sh.command("disable 1")
sh.wait_text("disable before reading the view", r"probes 0/1 on")
sh.command("diag")
scr = sh.wait_text("the view counts dwarf-unavailable",
                   r"^\s+dwarf-unavailable \(2\)\s+[1-9]\d*\s+the module of this frame")
check(re.search(r"^\s+> 1\. nocfi-O0\+0x[0-9a-f]+ in leaf: dwarf-unavailable, \d+ times?", scr, re.M),
      "the stop place is listed and selected")
sh.keys("Enter")
scr = sh.wait_text("Enter shows the place's unwind row", r"unwind row: none: \S*nocfi-O0")
check("has no call frame information" in re.sub(r"\s+", " ", scr), "because there is no CFI")
check(re.search(r"fix: rebuild the module with -fasynchronous-unwind-tables", scr), "and the fix")
check(re.search(r"sample event:\n\s+\[\d\d:\d\d:\d\d\.\d{3}\] #1 %d/%d leaf" % (fx.pid, fx.pid), scr),
      "and a sample event")
sh.keys("Escape")
sh.wait_text("Esc leaves the view", r"^ output ")
sh.command("quit")
eq(sh.exit_status(), "exit=0", "`quit` exits with status 0")
sh.close()
check_no_leftovers("after quit")
fx.stop()

# ---- third session: a long parameter list, the depth hint, SIGTERM ----
fx = Fixture("vars-O0", [20000])
sh = Shell("term", fx.pid, {"XDG_STATE_HOME": STATE})
sh.wait_text("the third shell starts", r"tracing process %d" % fx.pid)
sh.command("set backtrace-depth 2")
# A first trace that fails: the uprobes wraith registers early for a
# script's sites (while its probes compile) must not stay in the process.
sh.command('trace probe_here { print "{}", no_such_var; }')
sh.wait_text("a trace that does not compile says why", r"no variable 'no_such_var'")
check(code_as_in_file(fx.pid, fixture("vars-O0"), "probe_here"),
      "after it, probe_here's code in the process is its file's: no breakpoint of a uprobe")
sh.command('trace probe_here { print "t"; bt; }')
sh.wait_text("its probe fires", r"^  t$")
sh.wait_text("its backtraces stop at depth 2", r"^  stopped: truncated$")
scr = sh.wait_text("a parameter list too wide for the panel ends in '...)', not on the next row",
                   r"^\s+#0 probe_here\(long n, short small, .*\.\.\.\) at vars\.c:\d+:\d+ "
                   r"\[vars-O0\+0x[0-9a-f]+\]$")
# bt args: the values are what was read; they wrap rather than lose their end
sh.command("disable all")
sh.command('trace probe_here { bt args; }')
scr = sh.wait_text("bt args shows probe_here's values", r"^\s+#0 probe_here\(n=")
m = re.search(r"^(\s+#0 probe_here\(n=.*)\n(.*)\n", scr, re.M)
whole = m.group(1) + m.group(2) if m else ""  # the row and the one it wraps onto
check(m and len(m.group(1)) == 100 and not m.group(1).endswith("...)") and
      re.search(r"ratio=[^ ]+\) at vars\.c:\d+", whole),
      "a values list too wide for the panel wraps onto the next row, whole (%r)" % whole)
sh.command("delete 2")
sh.command("enable all")
sh.command("diag")
sh.wait_text("the diagnosis view says how to see the outer frames",
             r"hint: \d+ backtraces? reached the depth limit; for the outer frames, raise it:")
sh.keys("Escape")
sh.wait_text("Esc leaves the view", r"^ output ")
pane = sh.tmux("display-message", "-p", "-t", sh.name, "#{pane_pid}").stdout.strip()
wraith = subprocess.run(["pgrep", "-P", pane], capture_output=True, text=True).stdout.split()
check(len(wraith) == 1, "found the shell's process (%r)" % wraith)
if wraith:
    os.kill(int(wraith[0]), signal.SIGTERM)
eq(sh.exit_status(), "exit=0", "SIGTERM ends the shell with status 0")
sh.close()
check_no_leftovers("after SIGTERM")
fx.stop()

shutil.rmtree(STATE, ignore_errors=True)
finish()
