"""target_scope.py - `-t` on a shared library used by several processes,
`-t PATH -p PID` (probes in module PATH, events of that process only), and
libraries by short name as bpftrace takes them: `-t libfix_a -p PID`,
`trace libfix_b:0x...`, `-t libc`; and a module by another name of its
file (a symlink to it: the -t path, a path, a name beside the library) on
gcc and clang builds."""
import shutil
import subprocess

from wraithtest import *

require_root()
VARIANT = "O2fp"
# Copies of their own, loaded through LD_LIBRARY_PATH: other tests run
# the fixture and its libraries at the same time.
LIBS = os.path.join(TESTDIR, "libs")
os.makedirs(LIBS)
for name in ("libfix_a-%s.so" % VARIANT, "libfix_b-%s.so" % VARIANT):
    shutil.copy(fixture(name), LIBS)
lib_a = os.path.join(LIBS, "libfix_a-%s.so" % VARIANT)
lib_b = os.path.join(LIBS, "libfix_b-%s.so" % VARIANT)
ENV = dict(os.environ, LD_LIBRARY_PATH=LIBS)
a = Fixture("twolibs-" + VARIANT, [500], env=ENV)
b = Fixture("twolibs-" + VARIANT, [500], env=ENV)
SCRIPT = 'trace fix_a_run { print "{}", $pid; bt; }'
CHAIN = ["fix_a_run", "drive", "main"]


def symbol_address(path, name):
    nm = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True).stdout
    return [l.split()[0] for l in nm.splitlines() if l.endswith(" " + name)][0].lstrip("0")


def stacks_by_pid(res):
    out = {}
    for e in json_events(res.stdout):
        out.setdefault(e["pid"], []).append([f["function"] for f in e["items"][1]["frames"]
                                             if not f["inline"]])
    return out


# a library used by several processes: events of both, stacks through both programs
res = run(["-t", lib_a, "-s", SCRIPT, "--script-output", "json", "--timeout", 3])
eq(res.returncode, 0, "-t LIBRARY: exit 0 (%r)" % res.stderr[-300:])
got = stacks_by_pid(res)
check(a.pid in got and b.pid in got, "-t LIBRARY: events of both processes (%s)" % sorted(got))
for pid in (a.pid, b.pid):
    check(got.get(pid) and got[pid][-1][:3] == CHAIN,
          "-t LIBRARY: the stack in %d runs from the library into the program (%r)"
          % (pid, got.get(pid, [[]])[-1][:4]))

# -t with -p: the module of -t, the process of -p
for name in (lib_a, "libfix_a"):
    res = run(["-t", name, "-p", a.pid, "-s", SCRIPT, "--script-output", "json", "--timeout", 2])
    eq(res.returncode, 0, "-t %s -p: exit 0 (%r)" % (name, res.stderr[-300:]))
    got = stacks_by_pid(res)
    eq(sorted(got), [a.pid], "-t %s -p PID: events of that process only" % name)
    check(got.get(a.pid) and got[a.pid][-1][:3] == CHAIN,
          "-t %s -p PID: complete stacks (%r)" % (name, got.get(a.pid, [[]])[-1][:4]))
    check("in process %d" % a.pid in res.stderr, "-t -p: the status line names the process")

res = run(["-t", lib_a, "-p", a.pid, "-s", "trace drive {}", "--dry-run"])
eq(res.returncode, 2, "-t -p: a function outside the -t module is not found")
check("no function 'drive' in libfix_a-%s.so in process %d\n" % (VARIANT, a.pid) in res.stderr,
      "-t -p: the error names the module and process (%r)" % res.stderr)
res = run(["-t", "/bin/true", "-p", a.pid, "-s", "trace fix_a_run {}", "--dry-run"])
eq(res.returncode, 2, "-t -p: a module the process does not map is an error")
check("-t /bin/true: process %d does not map it" % a.pid in res.stderr,
      "-t -p: the error says the process does not map it (%r)" % res.stderr)

# a library's short name in a pattern
addr = symbol_address(lib_b, "fix_b_run")
res = run(["-p", a.pid, "-s", 'trace libfix_b:0x%s { print "b"; }' % addr, "--max-events", 2,
           "--script-output", "plain"])
eq((res.returncode, res.stdout), (0, "b\nb\n"), "trace libfix_b:0x... finds libfix_b-%s.so" % VARIANT)
res = run(["-t", lib_a, "-p", a.pid, "-s", 'trace libfix_b:0x%s {}' % addr, "--dry-run"])
check(res.returncode == 2 and "with -t and -p, probes go in %s only" % lib_a in res.stderr,
      "-t -p: an address in another module is refused (%r)" % res.stderr)

# -t libc: the dynamic linker's cache
res = run(["-t", "libc", "-s", "trace getpid {}", "--dry-run"])
eq(res.returncode, 0, "-t libc: exit 0 (%r)" % res.stderr)
check("libc.so.6+0x" in res.stdout, "-t libc resolves to libc.so.6 (%r)" % res.stdout)
res = run(["-t", "libno_such_library_here", "-s", "trace x {}", "--dry-run"])
check(res.returncode == 2 and "no such file, program in $PATH or library known to the dynamic "
      "linker" in res.stderr, "-t with an unknown short name: a clear error (%r)" % res.stderr)


def aliases(variant):
    """A symlink to the mapped libfix_a names it wherever a module name
    goes: `-t LINK -p PID` with `trace LINK_NAME:0x...`, a path to the link
    with -p alone, a link beside the library by its name, -t LINK alone.
    The libraries are copies of this test's own, as above."""
    libs = os.path.join(TESTDIR, "libs-" + variant)
    os.makedirs(libs)
    for name in ("libfix_a-%s.so" % variant, "libfix_b-%s.so" % variant):
        shutil.copy(fixture(name), libs)
    lib = os.path.join(libs, "libfix_a-%s.so" % variant)
    addr = symbol_address(lib, "fix_a_run")
    fx = Fixture("twolibs-" + variant, [500], env=dict(os.environ, LD_LIBRARY_PATH=libs))
    link = os.path.join(TESTDIR, "libfix_a_alias.so")
    os.symlink(lib, link)
    beside = os.path.join(libs, "libfix_a_beside.so")
    os.symlink(os.path.basename(lib), beside)
    body = ':0x%s { print "{}", $pid; bt; }' % addr
    runs = [
        ("-t LINK -p, trace LINK_NAME:", ["-t", link, "-p", fx.pid], "libfix_a_alias.so"),
        ("-p, trace LINK:", ["-p", fx.pid], link),
        ("-p, trace NAME_BESIDE:", ["-p", fx.pid], "libfix_a_beside.so"),
        ("-t LINK, trace LINK_NAME:", ["-t", link], "libfix_a_alias.so"),
    ]
    for what, opts, name in runs:
        res = run(opts + ["-s", "trace " + name + body, "--max-events", 2, "--script-output",
                          "json"])
        evs = [e for e in json_events(res.stdout) if e["pid"] == fx.pid]
        check(res.returncode == 0 and len(evs) == 2 and all(
            [f["function"] for f in e["items"][1]["frames"] if not f["inline"]][:3] == CHAIN
            for e in evs), "%s %s0x%s probes fix_a_run of the mapped library (%r)"
              % (variant, what, addr, res.stderr[-300:]))
    res = run(["-p", fx.pid, "-s", "trace libfix_a_nothing.so:0x%s {}" % addr, "--dry-run"])
    check(res.returncode == 2 and "no module 'libfix_a_nothing.so' is mapped by the target"
          in res.stderr, "%s: a name of no file of the process is still an error (%r)"
          % (variant, res.stderr))
    os.unlink(link)
    fx.stop()


for v in ("O2", "clang-O2"):
    aliases(v)

a.stop()
b.stop()
check_no_leftovers("after -t scopes")
finish()
