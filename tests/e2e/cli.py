"""cli.py - the command line before any tracing: getopt's errors in
wraith's words, the terminals the shell refuses and why, and the bash
completion script (options from --help, processes for -p, values of the
enumerated options, and functions of the target for `-s 'trace ...`)."""
import os
import pty
import re
import subprocess

from wraithtest import *

require_root()
COMPLETION = os.path.join(SRCDIR, "scripts", "completion", "wraith")
TRY = "Try 'wraith --help' for more information.\n"

for args, msg in [
    (["--bogus"], "unknown or ambiguous option '--bogus'"),
    (["--bogus=3"], "unknown or ambiguous option '--bogus'"),
    (["--s", "x"], "unknown or ambiguous option '--s'"),
    (["-x"], "unknown option '-x'"),
    (["-vx"], "unknown option '-x'"),
    (["-p"], "option '-p' needs a value"),
    (["--max-events"], "option '--max-events' needs a value"),
    (["--dry-run=yes"], "option '--dry-run' takes no value"),
]:
    res = run(args)
    eq((res.returncode, res.stdout, res.stderr), (2, "", "wraith: %s\n%s" % (msg, TRY)),
       "wraith %s: one line in wraith's words, no path, and the hint" % " ".join(args))
res = run(["--help"])
check(res.returncode == 0 and "Usage: wraith" in res.stdout and "--complete" not in res.stdout,
      "--help shows the usage (the completion's query is not in it)")


def in_terminal(term):
    """Run `wraith -p <ourselves>` on a pseudo-terminal with TERM=@term
    (None: unset); returns (status, what it wrote)."""
    env = dict(os.environ)
    env.pop("TERM", None)
    if term is not None:
        env["TERM"] = term
    master, slave = pty.openpty()
    proc = subprocess.Popen([WRAITH, "-p", str(os.getpid())], stdin=slave, stdout=slave,
                            stderr=slave, env=env)
    os.close(slave)
    out = read_terminal(master)
    return proc.wait(timeout=30), out.decode(errors="replace").replace("\r\n", "\n")


status, out = in_terminal("dumb")
eq(status, 2, "TERM=dumb: exit 2")
check("TERM=dumb cannot move the cursor" in out and "--batch FILE or -s SCRIPT" in out,
      "TERM=dumb: says the terminal cannot hold the panels, and what to use instead (%r)" % out)
status, out = in_terminal("no-such-terminal")
check(status == 2 and "TERM=no-such-terminal is not a terminal terminfo knows" in out
      and "Inappropriate ioctl" not in out, "an unknown TERM is named as such (%r)" % out)
status, out = in_terminal(None)
check(status == 2 and "TERM is not set" in out, "no TERM at all: said so (%r)" % out)


def complete(line):
    """The words bash's completion offers at the end of @line."""
    script = ("source %s\nCOMP_WORDS=(%s)\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
              "[[ %s == *' ' ]] && { COMP_WORDS+=(''); COMP_CWORD=$((COMP_CWORD + 1)); }\n"
              "_wraith\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n"
              % (COMPLETION, line, "'%s'" % line.replace("'", "'\\''")))
    res = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                         env=dict(os.environ, PATH=os.path.dirname(WRAITH) + ":" + os.environ["PATH"]))
    return [w for w in res.stdout.split("\n") if w]


got = complete("wraith --scr")
check({"--script", "--script-file", "--script-output"} <= set(got) and
      all(w.startswith("--scr") for w in got) and
      set(got) == set(re.findall(r"--scr[a-z-]*", run(["--help"]).stdout)),
      "completion: options come from --help (%r)" % got)
eq(complete("wraith --color "), ["auto", "always", "never"], "completion: --color's values")
eq(complete("wraith -p 1 --script-output j"), ["json"], "completion: --script-output's values")
fx = Fixture("chain-O0", [20000])
check(str(fx.pid) in complete("wraith -p "), "completion: -p offers running processes")
eq(complete("wraith -p %d -s \"'trace lea\"" % fx.pid), ["'trace leaf", "'trace leapyear"],
   "completion: `-s 'trace lea` offers the process's functions")
check("'trace chain.c:" in complete("wraith -p %d -s \"'trace cha\"" % fx.pid),
      "completion: and its source files")
eq(complete("wraith -s \"'trace lea\""), [], "completion: nothing without a target")
fx.stop()
check_no_leftovers("after the command-line checks")
finish()
