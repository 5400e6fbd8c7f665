"""vars.py - printing the traced program's variables: parameters in
registers and on the stack, locals, globals, struct members through
pointers, arrays, char arrays and char pointers, bitfields, enums, NULL
pointers, string comparisons, and the errors for what cannot be read; on
the gcc and the clang builds of the fixture."""
import re

from wraithtest import *

require_root()

SCRIPT = r'''trace probe_here {
    print "n={} small={} big={} flag={} letter={} color={}", n, small, big, flag, letter, color;
    print "id={} name={} tags={} t2={} pos={} y={}", req.id, req.name, req.tags, req.tags[2], req.pos, req.pos.y;
    print "bits={} low={} high={} rc={}", req.bits, req.bits.low, req.bits.high, req.color;
    print "label={} g={} gid={}", label, global_req.name, global_req.id;
    print "next={} nid={}", req.next.name, req.next.id;
    print "{:s} {:s}", req.name, label;
    if req.name == "req-10" { print "ten"; }
    if starts_with(req.name, "req-1") { print "starts"; }
}'''


def char_array(text, size):
    """A char array as gdb prints it: every byte, NULs escaped, less the
    last NUL, long runs as repeats."""
    nuls = size - len(text) - 1
    if nuls > 10:
        return '"%s", \'\\000\' <repeats %d times>' % (text, nuls)
    return '"%s%s"' % (text, "\\000" * nuls)


def expected(i):
    colors = ["RED", "GREEN", "BLUE"]
    letter = ord('a') + i % 26
    lines = [
        "n=%d small=%d big=%d flag=%s letter=%d '%s' color=%s" % (
            i, -i, i * 1000000007, "true" if i & 1 else "false", letter, chr(letter), colors[i % 3]),
        'id=%d name=%s tags=[%d, %d, %d, %d] t2=%d pos={x: %d, y: %d} y=%d' % (
            i, char_array("req-%d" % i, 16), i, i + 1, i + 2, i + 3, i + 2, i, -i, -i),
        "bits={low: %d, high: %d} low=%d high=%d rc=%s" % (i & 7, (i >> 3) & 31, i & 7, (i >> 3) & 31, colors[i % 3]),
        'label=LABEL g=%s gid=77' % char_array("global", 16),
        ('next=%s nid=77' % char_array("global", 16)) if i % 2 else "next=<null pointer> nid=<null pointer>",
        "req-%d vars-fixture" % i,
    ]
    if i == 10:
        lines.append("ten")
    if str(i).startswith("1"):
        lines.append("starts")
    return lines


for variant in ("O0", "O2", "O2-nopie", "clang-O0", "clang-O2", "clang-O2-nopie"):
    fx = Fixture("vars-" + variant, [1000])
    res = run(["-p", fx.pid, "-s", SCRIPT, "--max-events", 12, "--script-output", "json", "-q"])
    check(res.returncode == 0, "%s: exit 0 (%s)" % (variant, res.stderr.strip()[-300:]))
    evs = json_events(res.stdout)
    eq(len(evs), 12, "%s: 12 events" % variant)
    for e in evs:
        texts = [re.sub(r'^label=0x[0-9a-f]+ "vars-fixture" ', "label=LABEL ", it["text"]) for it in e["items"]]
        m = re.match(r"n=(\d+) ", texts[0])
        if not check(m is not None, "%s: first line has n (%r)" % (variant, texts[0])):
            break
        if not eq(texts, expected(int(m.group(1))), "%s: values at n=%s" % (variant, m.group(1))):
            break
    # a counter and the whole struct through the pointer
    res = run(["-p", fx.pid, "-s", "trace probe_here { print *req; print counter; }", "--max-events", 1,
               "--script-output", "plain", "-q"])
    check(re.match(r'^\*req = \{id: (\d+), name: "req-\1(\\000)*", tags: \[\d+, \d+, \d+, \d+\], pos: \{x: \1, y: -\1\}, '
                   r'bits: \{low: \d, high: \d+\}, color: (RED|GREEN|BLUE), next: (0x0|0x[0-9a-f]+ <global_req>)\}\n'
                   r'counter = \d+\n$', res.stdout),
          "%s: whole struct and `print expr;` form (%r)" % (variant, res.stdout))
    fx.stop()


# Debug info elsewhere: split into .dwo files, compressed sections, a
# separate file through .gnu_debuglink; the values and the innermost
# frame's file:line are the same.
for name in ("vars_split-O2", "vars_split-clang-O2", "vars_gz-O2", "vars_gz-clang-O2", "vars_debuglink-O2"):
    fx = Fixture(name, [1000])
    res = run(["-p", fx.pid, "-s", SCRIPT[:-1] + "    bt;\n}", "--max-events", 3,
               "--script-output", "json", "-q"])
    evs = json_events(res.stdout)
    check(res.returncode == 0 and len(evs) == 3, "%s: exit 0, 3 events (%s)" % (name, res.stderr.strip()[-300:]))
    for e in evs[:1]:
        texts = [re.sub(r'^label=0x[0-9a-f]+ "vars-fixture" ', "label=LABEL ", it["text"])
                 for it in e["items"] if it["type"] == "print"]
        bts = [it for it in e["items"] if it["type"] == "backtrace"]
        m = re.match(r"n=(\d+) ", texts[0]) if texts else None
        if m:
            eq(texts, expected(int(m.group(1))), "%s: values as in the plain build" % name)
        else:
            fail("%s: first line has n (%r)" % (name, texts))
        top = bts[0]["frames"][0] if bts and bts[0]["frames"] else {}
        line = marker_line("vars.c", "LINE:vars-body")
        check(top.get("function") == "probe_here" and (top.get("file") or "").endswith("vars.c")
              and top.get("line") == line, "%s: frame 0 is probe_here at vars.c:%d (%r)" % (name, line, top))
    fx.stop()


# What cannot be read is a located error, exit 2
def check_errors(variant):
    fx = Fixture("vars-" + variant, [1000])
    res = run(["-p", fx.pid, "-s", 'trace probe_here { print "{}", nope; }'])
    check(res.returncode == 2 and "no variable 'nope' is visible at probe_here" in res.stderr
          and "visible here:" in res.stderr and "^~~~" in res.stderr,
          "%s: unknown variable: located error with the visible names (%r)" % (variant, res.stderr))
    res = run(["-p", fx.pid, "-s", 'trace probe_here { print "{}", req.nope; }'])
    check(res.returncode == 2 and "struct request has no member 'nope'" in res.stderr,
          "%s: unknown member: located error (%r)" % (variant, res.stderr))
    res = run(["-p", fx.pid, "-s", 'trace probe_here { print "{}", ratio * 2; }'])
    check(res.returncode == 2 and "'ratio' is in xmm0 at this pc of probe_here, which a uprobe cannot read"
          in res.stderr, "%s: a value in a vector register: explained (%r)" % (variant, res.stderr))
    res = run(["-p", fx.pid, "-s", 'trace probe_here { print "{}", ratio; }', "--max-events", 1, "-q"])
    check(res.returncode == 0 and res.stdout.strip().splitlines()[-1:] == ["  <unavailable>"] and
          "'ratio' is in xmm0" in res.stderr,
          "%s: printed, it is <unavailable>, and said why (%r)" % (variant, res.stdout + res.stderr))
    res = run(["-p", fx.pid, "-s", 'trace probe_here { print "{} {}", req, req + 1; }', "--max-events", 1,
               "--script-output", "plain", "-q"])
    m = re.match(r"^\(struct request \*\) 0x([0-9a-f]+)(?: <[^>]+>)? \(struct request \*\) 0x([0-9a-f]+)(?: <[^>]+>)?\n$",
                 res.stdout)
    check(m is not None and int(m.group(2), 16) - int(m.group(1), 16) == 64,
          "%s: pointer + 1 moves by one element (sizeof(struct request) == 64) (%r)" % (variant, res.stdout))
    res = run(["-p", fx.pid, "-s", 'trace probe_here { print "{}", req.pos + 1; }'])
    check(res.returncode == 2 and "'+' needs integers, not a struct (struct point)" in res.stderr,
          "%s: a struct in arithmetic: explained (%r)" % (variant, res.stderr))
    # An index whose byte offset wraps: refused when constant, said when computed
    res = run(["-p", fx.pid, "-s", 'trace probe_here { print "{}", req->tags[9223372036854775807]; }'])
    check(res.returncode == 2 and ":1:42: error: index 9223372036854775807 of an array (int [4]) is out of range"
          in res.stderr and "^~~~" in res.stderr,
          "%s: a constant index that wraps: located error (%r)" % (variant, res.stderr))
    res = run(["-p", fx.pid, "-s", 'trace probe_here { print "{} {} {}", req->tags[(n - n) + 4611686018427387904], '
               'req->tags[n - n + 1], req->tags[(n - n) + 18446744073709551615u]; }',
               "--max-events", 1, "--script-output", "plain", "-q"])
    m = re.match(r"^<index out of range> (\d+) <index out of range>\n$", res.stdout)
    check(res.returncode == 0 and m is not None and int(m.group(1)) > 0,
          "%s: a computed index that wraps reads nothing and says so (%r)" % (variant, res.stdout))
    fx.stop()


for variant in ("O2", "clang-O2"):
    check_errors(variant)
check_no_leftovers("after the variable tests")
finish()
