"""deep_scripts.py - deep and big scripts never crash wraith (a stack
overflow in a recursive stage was a SIGSEGV, and under ASan even 10,000
nested ifs were), and stay fast: a 50,000-term sum, 30,000 nested ifs, a
10,000-arm else-if chain and a 1 MB line with an error each get a located
error at once; an error on the 1 MB line prints the part around the caret,
not the line; an else-if chain runs the right arm, live.
"""
import os
import resource
import tempfile

from wraithtest import *

require_root()
fx = Fixture("vars-O0", [20])
top = tempfile.mkdtemp(prefix="wraith-deep-")


def script_file(name, text):
    path = os.path.join(top, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def dry(name, text):
    """A dry run of @text; (its result, the CPU seconds it took: unlike
    the time on the clock, not stretched by whatever else runs)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = run(["-p", fx.pid, "--dry-run", "--script-file", script_file(name, text)], timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


cases = [
    ("sum.ws", 'trace probe_here { print "{}", n' + " + n" * 49999 + "; }\n",
     "sum.ws:1:4030: error: expression too deep: more than 1000 operations nested"),
    ("nest.ws", "trace probe_here {" + " if n > 0 {" * 30000 + ' print "x";' + " }" * 30000
     + " }\n", "nest.ws:1:1118: error: blocks nested too deeply (more than 100 levels)"),
    ("elif.ws", 'trace probe_here { if n == 0 { print "0"; }'
     + "".join(' else if n == %d { print "%d"; }' % (i, i) for i in range(1, 10000)) + " }\n",
     "elif.ws:1:33815: error: too many statements in one probe (more than 1000"),
    ("line.ws", 'trace probe_here { print "{}"' + ", n" * 350000 + " @ }\n",
     "line.ws:1:1050031: error: unexpected character '@'"),
]
for name, text, want in cases:
    r, secs = dry(name, text)
    eq(r.returncode, 2, "%s: a script error, not a crash (stderr %r)" % (name, r.stderr[-300:]))
    check(r.stderr.startswith(os.path.join(top, want)), "%s: %r (got %r)"
          % (name, want, r.stderr[:200]))
    check(secs < 20, "%s: answered in %.1f s of CPU" % (name, secs))
    check(len(r.stderr) < 1000, "%s: the error shows the part around the caret (%d bytes)"
          % (name, len(r.stderr)))

# At the limits, every stage runs to the bottom of the tree (code
# generation included; under ASan in CI, where frames are larger): it may
# fail to fit BPF, but cleanly.
at_limit = [
    ("sum999.ws", 'trace probe_here { print "{}", n' + " + n" * 999 + "; }\n"),
    ("nest99.ws", "trace probe_here {" + " if n > 0 {" * 99 + ' print "x";' + " }" * 99 + " }\n"),
]
for name, text in at_limit:
    r, secs = dry(name, text)
    check(r.returncode in (0, 1), "%s: compiled or refused cleanly (status %d, %r)"
          % (name, r.returncode, r.stderr[-200:]))

# The long line's excerpt: "..." on both sides, the caret under the '@'.
r, _ = dry("line.ws", cases[3][1])
lines = r.stderr.splitlines()
check(len(lines) >= 3 and lines[1].startswith("    ...") and lines[1].endswith("@ }"),
      "the excerpt of the long line is cut on the left only (%r)" % lines[1:2])
if len(lines) >= 3:
    eq(lines[2].index("^"), lines[1].index("@"), "the caret is under the offending '@'")

# An else-if chain is a flat list now: each arm runs when it should.
chain = ('trace probe_here { if n % 3 == 0 { print "zero {}", n; } '
         'else if n % 3 == 1 { print "one {}", n; } '
         'else if n % 3 == 2 { print "two {}", n; } else { print "never"; } }')
r = run(["-p", fx.pid, "-s", chain, "--max-events", 6, "--script-output", "plain", "-q"],
        timeout=60)
eq(r.returncode, 0, "else-if chain: runs (%s)" % r.stderr[-300:])
got = r.stdout.split("\n")[:-1]
eq(len(got), 6, "else-if chain: six events")
for line in got:
    word, n = line.split()
    eq(word, ["zero", "one", "two"][int(n) % 3], "else-if chain: %s takes the right arm" % line)

fx.stop()
check_no_leftovers("deep_scripts")
finish()
