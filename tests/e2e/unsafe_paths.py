"""unsafe_paths.py - root never writes where it should not, and careless
script files get a clear error instead of a run that never ends.

Writers (--log-file, `save FILE`, the shell's history): a planted symbolic
link and a planted hard link to a victim file, and a directory or file of
another user (nobody), are refused and the victim is untouched;
--unsafe-paths / `save -f` write anyway; a new log is mode 0600.
Script files: a directory, a FIFO, /dev/zero, an empty script, one without
a `trace` block, one over the size cap and one with a NUL byte are refused
with exit status 2 and a message that says why (and where, for the NUL).
"""
import os
import shutil
import stat
import subprocess
import tempfile
import time

from wraithtest import *

require_root()
ENV = {"SUDO_UID": ""}  # "another user" must not be the one who ran sudo
SCRIPT = 'trace probe_here { print "n={}", n; }'
fx = Fixture("vars-O0", [50])
top = tempfile.mkdtemp(prefix="wraith-paths-")
os.chmod(top, 0o755)
victim = os.path.join(top, "victim")
PRECIOUS = "precious\n"


def reset_victim():
    """A new victim file: links planted earlier keep the old one."""
    if os.path.exists(victim):
        os.unlink(victim)
    with open(victim, "w") as f:
        f.write(PRECIOUS)
    os.chmod(victim, 0o644)


def victim_intact(what):
    with open(victim) as f:
        text = f.read()
    eq(text, PRECIOUS, what + ": the victim file is untouched")
    eq(stat.S_IMODE(os.stat(victim).st_mode), 0o644, what + ": the victim's mode is untouched")


def plant(kind, path):
    """A symbolic or hard link to the victim at `path`."""
    reset_victim()
    if os.path.lexists(path):
        os.unlink(path)
    (os.symlink if kind == "symlink" else os.link)(victim, path)


def foreign_dir(name):
    d = os.path.join(top, name)
    os.mkdir(d)
    os.chown(d, 65534, 65534)
    return d


# ---- --log-file ----
def log_run(path, *extra):
    return run(["--log-file", path, "-p", fx.pid, "--dry-run", "-s", SCRIPT] + list(extra),
               env=ENV)


for kind in ("symlink", "hardlink"):
    log = os.path.join(top, "log-" + kind)
    plant(kind, log)
    r = log_run(log)
    eq(r.returncode, 2, "--log-file through a planted %s: exit status" % kind)
    check("cannot open log file %s: it %s" % (log, "is a symbolic link" if kind == "symlink"
                                              else "has 2 hard links") in r.stderr,
          "--log-file through a planted %s: says why (%r)" % (kind, r.stderr[:200]))
    check("--unsafe-paths" in r.stderr, "--log-file refused: the hint names --unsafe-paths")
    victim_intact("--log-file " + kind)

d = foreign_dir("theirs-log")
r = log_run(os.path.join(d, "log"))
eq(r.returncode, 2, "--log-file in another user's directory: refused")
check("belongs to uid 65534, another user" in r.stderr, "--log-file: names the owner")
check(not os.path.exists(os.path.join(d, "log")), "--log-file: nothing created there")
r = log_run(os.path.join(d, "log"), "--unsafe-paths")
eq(r.returncode, 0, "--log-file --unsafe-paths writes anyway (%s)" % r.stderr[-300:])
log = os.path.join(top, "log-new")
r = log_run(log)
eq(r.returncode, 0, "--log-file in a safe place works")
eq(stat.S_IMODE(os.stat(log).st_mode), 0o600, "a new log file is mode 0600")

# ---- save FILE (through --batch) ----
def save_run(target, force=False):
    batch = os.path.join(top, "save.batch")
    with open(batch, "w") as f:
        f.write("%s\nsave %s%s\n" % (SCRIPT, "-f " if force else "", target))
    return run(["-p", fx.pid, "--batch", batch, "-q"], env=ENV)


for kind in ("symlink", "hardlink"):
    out = os.path.join(top, "saved-" + kind)
    plant(kind, out)
    r = save_run(out)
    check(r.returncode != 0, "save through a planted %s: fails" % kind)
    check("refusing to write %s: it %s" % (out, "is a symbolic link" if kind == "symlink"
                                           else "has 2 hard links") in r.stdout + r.stderr,
          "save through a planted %s: says why (%r)" % (kind, (r.stdout + r.stderr)[-300:]))
    check("save -f" in r.stdout + r.stderr, "save refused: the hint names save -f")
    victim_intact("save " + kind)
    if kind == "symlink":
        check(os.path.islink(out), "save: the planted link is still a link")

d = foreign_dir("theirs-save")
r = save_run(os.path.join(d, "probes.ws"))
check(r.returncode != 0 and not os.path.exists(os.path.join(d, "probes.ws")),
      "save into another user's directory: refused")
r = save_run(os.path.join(d, "probes.ws"), force=True)
eq(r.returncode, 0, "save -f writes anyway")
out = os.path.join(top, "probes.ws")
r = save_run(out)
eq(r.returncode, 0, "save in a safe place works")
with open(out) as f:
    check("probe_here" in f.read(), "save wrote the probes")


# ---- the shell's history (tmux) ----
def shell_quits(state):
    """Run the shell with XDG_STATE_HOME=state, type `quit`; True when it
    exited."""
    if not shutil.which("tmux"):
        return False
    sock = tmux_socket("paths-" + os.path.basename(state))
    status = os.path.join(top, "shell.status")
    if os.path.exists(status):
        os.unlink(status)
    cmd = ("env SUDO_UID= XDG_STATE_HOME=%s %s -p %d; echo done > %s; sleep 30"
           % (state, WRAITH, fx.pid, status))
    tmux = ["tmux", "-L", sock]
    subprocess.run(tmux + ["-f", "/dev/null", "new-session", "-d", "-s", "h", "-x", "100",
                           "-y", "30", cmd], timeout=30)
    wait_until(lambda: "tracing process %d" % fx.pid in subprocess.run(
        tmux + ["capture-pane", "-p", "-t", "h"], capture_output=True, text=True).stdout, timeout=30)
    subprocess.run(tmux + ["send-keys", "-t", "h", "-l", "help"], timeout=30)
    subprocess.run(tmux + ["send-keys", "-t", "h", "Enter"], timeout=30)
    subprocess.run(tmux + ["send-keys", "-t", "h", "-l", "quit"], timeout=30)
    subprocess.run(tmux + ["send-keys", "-t", "h", "Enter"], timeout=30)
    wait_until(lambda: os.path.exists(status), timeout=30)
    subprocess.run(tmux + ["kill-server"], capture_output=True, timeout=30)
    return os.path.exists(status)


if not shutil.which("tmux"):
    fail("tmux is needed for the history part of this test and is not installed")
for kind in ("symlink", "hardlink"):
    state = os.path.join(top, "state-" + kind)
    os.makedirs(os.path.join(state, "wraith"))
    hist = os.path.join(state, "wraith", "history")
    plant(kind, hist)
    check(shell_quits(state), "shell with a planted history %s: quits" % kind)
    victim_intact("history " + kind)
state = os.path.join(top, "state-ok")
check(shell_quits(state), "shell with a fresh history: quits")
hist = os.path.join(state, "wraith", "history")
check(os.path.exists(hist) and "help" in open(hist).read(), "the history was written")
if os.path.exists(hist):
    eq(stat.S_IMODE(os.stat(hist).st_mode), 0o600, "the history file is mode 0600")

# ---- careless script files ----
def script_run(path):
    return run(["-p", fx.pid, "--script-file", path], env=ENV)


fifo = os.path.join(top, "fifo")
os.mkfifo(fifo)
cases = [
    (top, "it is a directory, not a file"),
    (fifo, "it is not a regular file"),
    ("/dev/zero", "it is not a regular file"),
]
empty = os.path.join(top, "empty.ws")
open(empty, "w").close()
comments = os.path.join(top, "comments.ws")
with open(comments, "w") as f:
    f.write("// a script that only talks\n/* and traces nothing */\n")
cases += [(empty, "traces nothing: it has no `trace` block"),
          (comments, "traces nothing: it has no `trace` block")]
big = os.path.join(top, "big.ws")
with open(big, "w") as f:
    f.write(SCRIPT + "\n" + " " * (4 << 20))
cases.append((big, "larger than 4194304 bytes"))
for path, want in cases:
    try:
        r = script_run(path)
    except subprocess.TimeoutExpired:
        fail("--script-file %s: ends (it hung)" % path)
        continue
    eq(r.returncode, 2, "--script-file %s: exit status 2" % os.path.basename(path))
    check(want in r.stderr, "--script-file %s: says %r (%r)" % (os.path.basename(path), want,
                                                                r.stderr[-300:]))
check("scripts are at most 4 MiB" in script_run(big).stderr, "the size cap is in the hint")
nul = os.path.join(top, "nul.ws")
with open(nul, "wb") as f:
    f.write(b'trace probe_here {\n    print "a";\x00 print "b";\n}\n')
r = script_run(nul)
eq(r.returncode, 2, "a NUL byte: exit status 2")
eq(r.stderr, '%s:2:15: error: NUL byte in the file\n        print "a";\n'
   '                  ^\nhint: a script is text: is this the right file?\n' % nul,
   "a NUL byte: a located error")

fx.stop()
shutil.rmtree(top, ignore_errors=True)
check_no_leftovers("unsafe_paths")
finish()
