"""rust_std.py - Rust std values read in the probe, against rust-gdb and
against the fixture's own {:?} output: rstd.rs built by Debian's rustc at
opt-level 0, 1 and 2 (and with the v0 mangling at 2).

rust-gdb runs the same binary to the same function and prints the same
expressions; where its output is whole (&str, slices, Option, Result and
enums with data, niche layouts, tuples, Rc and Arc counts) wraith's must
equal it, addresses aside (Cell, HashMap and HashSet too: rust-gdb
walks the table in the same order; a map of 20 entries is compared with
the fixture's {:?}, in the table's order, and with rust-gdb's entries,
in another process with another hash seed).  rust-gdb 1.63's printers fail on this gdb for
String and Vec ("There is no member named inner"): those values are
compared with what the fixture printed of them ({:?}), rewritten in
rust-gdb's shapes (`Vec(size=3) = {80, 443, 8080}`, `"text"`,
`rstd::Item {id: 1, name: "a"}`).  A value wraith shows <optimized out>
where rust-gdb reads one is a failure, except that a uprobe cannot see
SSE registers.

Also: bt args of &str (in two registers at opt-level 2 too), slices,
String and Vec, and of enums holding Strings (bt full's locals too); expressions on them (.len(), .is_empty(), v[i], -> through Rc and
Arc, Option as a condition), 200 Strings in a Vec shown whole (gdb's print elements), and a
Vec another thread keeps changing printed 20 times without a garbled
line.  BTreeMap and BTreeSet in order (rust-gdb's printers fail after
their heads here: against the fixture's {:?}), CString, &CStr and
Box<[T]> as rust-gdb shows them (no printer: gdb's own forms), Weak in
Rc's shape with its counts (rust-gdb has no printer of it and shows its
pointer): alive, expired and made by Weak::new().  An Rc<str> whose text
runs into an unmapped page: its head, then gdb's error at that page.
"""
import os
import re
import subprocess
import tempfile

from wraithtest import *

require_root()

RUST_GDB = os.environ.get("WRAITH_RUST_GDB") or "/usr/bin/rust-gdb"

PROBES = [
    ("rstd::show", ["cfg.host", "cfg.ports", "cfg.shared", "cfg.retries", "cfg.items", "cfg.level", "key",
                    "*v", "nums", "*shape", "cfg.limits"]),
    ("rstd::inspect", ["bag.empty_vec", "bag.moved", "bag.empty_str", "bag.none", "bag.arc", "bag.tuple",
                       "bag.boxed_slice", "bag.nonzero", "bag.ok", "bag.err", "bag.shapes", "bag.point",
                       "bag.refcell", "bag.cell", "bag.deque", "bag.map", "bag.set", "bag.hmap", "bag.bset",
                       "bag.big", "bag.weak_rc", "bag.weak_gone", "bag.weak_none", "bag.cstring", "cs",
                       "bag.flags", "bag.arc_str", "bag.rc_str", "bag.boxed_str"]),
    ("rstd::by_value", ["name", "ids", "pair"]),
    ("rstd::parse", ["line", "words"]),
    ("rstd::apply", ["*cmd", "*last", "*res", "*cmds"]),
    ("rstd::exec", ["cmd", "last"]),
]
# the lines the fixture prints after "ready"
FIXTURE_LINES = 17


def vec(debug, conv=lambda e: e, label="Vec"):
    """rust-gdb's Vec of the fixture's {:?} of one: "[1, 2]" -> "Vec(size=2) = {1, 2}"."""
    elems = split_top(debug.strip()[1:-1])
    if not elems:
        return "%s(size=0)" % label
    return "%s(size=%d) = {%s}" % (label, len(elems), ", ".join(conv(e) for e in elems))


def item(debug):
    """'Item { id: 1, name: "a" }' -> 'rstd::Item {id: 1, name: "a"}'"""
    m = re.match(r'Item \{ (.*) \}$', debug)
    return "rstd::Item {%s}" % m.group(1)


def shape(debug, enum="Shape"):
    """'Rect { w: 3, h: 4 }' -> 'rstd::Shape::Rect{w: 3, h: 4}', 'Empty' -> 'rstd::Shape::Empty'"""
    m = re.match(r'(\w+) \{ (.*) \}$', debug)
    if m:
        return "rstd::%s::%s{%s}" % (enum, m.group(1), m.group(2))
    return "rstd::%s::%s" % (enum, debug)


def cmd(debug):
    return shape(debug, "Cmd")


def expected_from_fixture(lines):
    """The values rust-gdb cannot print, from the fixture's own output."""
    d = dict(l.split(" = ", 1) for l in lines if " = " in l)
    return {
        "cfg.host": d["cfg.host"],
        "cfg.ports": vec(d["cfg.ports"]),
        "cfg.items": vec(d["cfg.items"], item),
        "cfg.shared": "Rc(strong=2, weak=1) = {value = %s, strong = 2, weak = 1}" % item(d["cfg.shared"]),
        "bag.arc": "Arc(strong=1, weak=0) = {value = %s, strong = 1, weak = 0}" % d["bag.arc"],
        # rust-gdb's printers show an Rc<str>'s first byte as its value
        # (value = 97): the literals main() holds
        "bag.arc_str": 'Arc(strong=1, weak=0) = {value = "arc str", strong = 1, weak = 0}',
        "bag.rc_str": 'Rc(strong=1, weak=0) = {value = "rc str", strong = 1, weak = 0}',
        # rust-gdb shows a Box<str>'s bytes ([98, 111, ...]): its text
        "bag.boxed_str": '"boxed str"',
        # rust-gdb has no printer of Weak: wraith shows it as Rc, its
        # value while a strong reference keeps it
        "bag.weak_rc": "Weak(strong=2, weak=1) = {value = %s, strong = 2, weak = 1}" % item(d["cfg.shared"]),
        "bag.weak_gone": "Weak(strong=0, weak=1)",
        "bag.weak_none": "Weak(dangling)",
        "bag.err": "core::result::Result<u32, alloc::string::String>::Err(%s)" % d["bag.err"][4:-1],
        "bag.shapes": vec(d["bag.shapes"], shape),
        "bag.empty_vec": vec("[]"),
        "bag.moved": vec("[]"),
        "bag.empty_str": '""',
        "bag.deque": vec(d["bag.deque"], label="VecDeque"),
        "bag.hmap": vec(d["bag.hmap"], lambda e: "[%s] = %s" % tuple(e.split(": ")), label="HashMap"),
        "bag.refcell": "RefCell(borrow=0) = {value = %s, borrow = 0}" % vec(d["bag.refcell"]),
        # rust-gdb 1.63's BTreeMap and BTreeSet printers fail on this gdb
        # after their heads ("There is no member named __0"): the
        # fixture's {:?}; a map of 1,000 shows 100 entries (print elements)
        "cfg.limits": vec(d["cfg.limits"], lambda e: "[%s] = %s" % tuple(e.split(": ")), label="BTreeMap"),
        "bag.bset": vec(d["bag.bset"], label="BTreeSet"),
        "bag.big": "BTreeMap(size=1000) = {%s...}" % ", ".join("[%d] = %d" % (i, 2 * i) for i in range(100)),
        # gdb 13 reads the niche of Flag::Letter's char wrong (Letter(false)
        # at opt-level 0): the literal main() holds
        "bag.flags": "[rstd::Flag::On(true), rstd::Flag::Off, rstd::Flag::Letter(122 'z')]",
        "name": '"by value"',
        "ids": vec("[4, 5]"),
        # Strings inside enum variants: main() parses "put key4 724"
        "*cmd": cmd('Put { key: "key4", value: 724 }'),
        "cmd": cmd('Put { key: "key4", value: 724 }'),
        "*last": 'core::option::Option<alloc::string::String>::Some("k0")',
        "last": 'core::option::Option<alloc::string::String>::Some("k0")',
        "*res": 'core::result::Result<alloc::string::String, u32>::Ok("fine")',
        "*cmds": vec(d["cmds"], cmd),
    }


def norm(v):
    return re.sub(r"0x[0-9a-f]+", "0x?", v)


def gdb_values(binary, gdb=RUST_GDB):
    cmds = ["set pagination off", "set width 0"]
    for i, (where, exprs) in enumerate(PROBES):
        cmds += ["break %s" % where, "continue" if i else "run 100000", "echo @@%s\\n" % where]
        cmds += ["print %s" % e for e in exprs] + ["delete"]
    cmds.append("kill")
    path = os.path.join(tempfile.gettempdir(), "rust_std.%d.gdb" % os.getpid())
    with open(path, "w") as f:
        f.write("\n".join(cmds) + "\n")
    try:
        out = subprocess.run([gdb, "-batch", "-x", path, binary], capture_output=True, text=True,
                             timeout=240, env=dict(os.environ, LANG="C.UTF-8")).stdout
    finally:
        os.unlink(path)
    got = {}
    for block in re.split(r"(?m)^@@", out)[1:]:
        where = block.split("\n", 1)[0]
        got[where] = [m.group(1) for m in re.finditer(r"(?m)^\$\d+ = (.*)$", block)]
    return got


def gdb_lost_data(gdb):
    """rust-gdb on a &str or slice whose data pointer is gone: an empty
    string, or the slice's head without its elements."""
    return gdb in ("", '""') or (gdb or "").endswith("<error reading variable: value has been optimized out>") or re.match(r"&\[.*\]\(size=\d+\)(Python Exception .*optimized out\.?)?$",
                                         gdb or "") is not None


def wraith_values(name):
    fx = Fixture(name, [2000])
    lines = []
    try:
        while len(lines) < FIXTURE_LINES:
            lines.append(fx.proc.stdout.readline().rstrip("\n"))
        script = "".join('trace %s { %s }\n' % (w, "".join('print "V%d.%d {}", %s;' % (i, k, e)
                                                          for k, e in enumerate(exprs)))
                         for i, (w, exprs) in enumerate(PROBES))
        res = run(["-p", fx.pid, "-s", script, "--max-events", 14, "--timeout", 30, "-q"])
    finally:
        fx.stop()
    got = {}
    for line in res.stdout.splitlines():
        m = re.match(r"\s*V(\d+)\.(\d+) (.*)$", line)
        if m:
            got.setdefault((int(m.group(1)), int(m.group(2))), m.group(3))
    return res, got, lines


def compare(variant, gdb=RUST_GDB, from_fixture=None):
    """Every value of PROBES against rust-gdb (@gdb), or for the names in
    @from_fixture (all that expected_from_fixture() knows when None)
    against the fixture's own output."""
    name = "rstd-" + variant
    res, w, lines = wraith_values(name)
    g = gdb_values(fixture(name), gdb)
    want_fx = expected_from_fixture(lines)
    if from_fixture is not None:
        want_fx = {k: v for k, v in want_fx.items() if k in from_fixture}
    check(res.returncode == 0, "%s: wraith ran (%s)" % (name, res.stderr.strip()[-300:]))
    for i, (where, exprs) in enumerate(PROBES):
        gv = g.get(where, [])
        for k, e in enumerate(exprs):
            label = "%s at %s: print %s" % (name, where, e)
            got = w.get((i, k))
            gdb = gv[k] if k < len(gv) else None
            if e in want_fx:
                eq(got, want_fx[e], label + " (the fixture's own output)")
            elif got and "data_ptr: <optimized out>" in got and gdb_lost_data(gdb):
                # at opt-level 1 and 2 the data pointer lives in no
                # register at the probe: rust-gdb prints an empty string
                # or a slice without elements, wraith says which part is
                # gone and keeps the length
                check(re.search(r"length: \d+\}$", got) is not None, label + ": the length kept (%s)" % got)
            elif gdb is None or "Python Exception" in gdb or "<optimized out>" in gdb:
                check(False, "%s: rust-gdb printed it (%r)" % (label, gdb))
            else:
                # gdb 13 calls a piece the compiler did not keep a
                # <synthetic pointer> (by_value's pair at opt-level 1)
                eq(norm(got or ""), norm(gdb).replace("<synthetic pointer>", "<optimized out>"),
                   label + " (rust-gdb)")
            if e == "bag.hmap" and gdb:
                # another process, another RandomState: the same entries
                # in another order (the order is the fixture's own, above)
                eq(sorted(split_top((got or "").partition(" = {")[2][:-1])),
                   sorted(split_top(gdb.partition(" = {")[2][:-1])), label + ": the entries rust-gdb shows")
            if gdb and "(strong=" in gdb:
                eq(re.findall(r"\w+\(strong=\d+, weak=\d+\)", got or ""),
                   re.findall(r"\w+\(strong=\d+, weak=\d+\)", gdb), label + ": counts as rust-gdb's")


def many(variant):
    """200 Strings in a Vec: all shown (print elements 200), and in JSON
    an array of 200 strings."""
    name = "rstd-" + variant
    fx = Fixture(name, [2000])
    try:
        res = run(["-p", fx.pid, "-s", 'trace rstd::many { print "{}", *names; }', "--max-events", 1,
                   "--timeout", 30, "-q"])
        js = run(["-p", fx.pid, "-s", 'trace rstd::many { print "{}", *names; }', "--max-events", 1,
                  "--timeout", 30, "-q", "--script-output", "json"])
    finally:
        fx.stop()
    want = "Vec(size=200) = {%s}" % ", ".join('"name-%d"' % i for i in range(200))
    eq(res.stdout.strip().splitlines()[-1].strip() if res.stdout.strip() else None, want,
       "%s: a Vec of 200 Strings, whole" % name)
    evs = json_events(js.stdout)
    v = evs[0]["items"][0]["args"][0]["value"] if evs else None
    eq(v and (v["kind"], v["length"], v["capacity"], v["elements"][:2], len(v["elements"]), v["truncated"]),
       ("Vec", 200, 200, ["name-0", "name-1"], 200, False), "%s: the same Vec in NDJSON" % name)


def pieces_json(variant):
    """A &str in two registers (opt-level 2) in NDJSON: its text."""
    name = "rstd-" + variant
    fx = Fixture(name, [2000])
    try:
        js = run(["-p", fx.pid, "-s", 'trace rstd::parse { print "{}", line; }', "--max-events", 1,
                  "--timeout", 30, "-q", "--script-output", "json"])
    finally:
        fx.stop()
    evs = json_events(js.stdout)
    eq(evs[0]["items"][0]["args"][0]["value"] if evs else None, "put key4 724",
       "%s: a &str in registers in NDJSON" % name)


def weak_json(variant):
    """Weak in NDJSON: Rc's fields, no value once dropped, no block at
    all from Weak::new()."""
    name = "rstd-" + variant
    fx = Fixture(name, [2000])
    try:
        js = run(["-p", fx.pid, "-s", 'trace rstd::inspect { print "{} {} {}", bag.weak_rc, bag.weak_gone, '
                  'bag.weak_none; }', "--max-events", 1, "--timeout", 30, "-q", "--script-output", "json"])
    finally:
        fx.stop()
    evs = json_events(js.stdout)
    got = [a["value"] for a in evs[0]["items"][0]["args"]] if evs else [{}, {}, {}]
    eq([(v.get("kind"), v.get("strong_count"), v.get("weak_count"), "value" in v) for v in got],
       [("Weak", 2, 1, True), ("Weak", 0, 1, False), ("Weak", None, None, False)],
       "%s: Weak's counts in NDJSON" % name)
    eq((got[0].get("value", {}).get("id"), got[2].get("get", "absent")), (8, None),
       "%s: a live Weak's value, a dangling one's null pointer" % name)


def torn_rc(variant):
    """An Rc<str> whose text runs off its page into an unmapped one (the
    fixture makes its block by hand at the page's end): its readable head
    then gdb's error at the first address not read, as a torn std::string
    shows, in the text and in NDJSON ({"head", "unreadable_at"}); its
    counts as rust-gdb's (whose printer shows the text's first byte for
    its value: the text against the fixture's)."""
    name = "rstd-" + variant
    where = "rstd.rs:%d" % marker_line("rstd.rs", "LINE:torn")
    head = "the torn rc text runs off its page here!"
    fx = Fixture(name, [2000])
    try:
        res = run(["-p", fx.pid, "-s", 'trace %s { print "{}", *text; }' % where, "--max-events", 1,
                   "--timeout", 30, "-q"])
        js = run(["-p", fx.pid, "-s", 'trace %s { print "{}", *text; }' % where, "--max-events", 1,
                  "--timeout", 30, "-q", "--script-output", "json"])
        g = subprocess.run([RUST_GDB, "-batch", "-p", str(fx.pid), "-ex", "break " + where, "-ex", "continue",
                            "-ex", "print *text", "-ex", "detach"], capture_output=True, text=True,
                           timeout=180).stdout
    finally:
        fx.stop()
    evs = json_events(js.stdout)
    v = evs[0]["items"][0]["args"][0]["value"] if evs else {}
    block = int(v.get("get") or "0", 16)
    at = "0x%x" % (block + 16 + len(head)) if block else None  # the counts, then the text
    counts = re.search(r"^\$1 = Rc\(strong=(\d+), weak=(\d+)\) = \{value = \d+, strong = \d+, weak = \d+\}$", g, re.M)
    if not check(counts and at, "%s: rust-gdb shows the torn Rc<str>'s counts, wraith its block (%r, %r)" % (
            name, g[-300:], v)):
        return
    want = 'Rc(strong=%s, weak=%s) = {value = "%s"...<error: Cannot access memory at address %s>, ' \
           'strong = %s, weak = %s}' % (counts.group(1), counts.group(2), head, at, counts.group(1), counts.group(2))
    eq(res.stdout.strip().splitlines()[-1].strip() if res.stdout.strip() else None, want,
       "%s: a torn Rc<str>: its head, then gdb's error where its page ends" % name)
    eq(v.get("value"), {"head": head, "unreadable_at": at}, "%s: the same torn Rc<str> in NDJSON" % name)


def racing(variant):
    """A Vec<u64> another thread pushes to and clears: every line whole."""
    name = "rstd-" + variant
    fx = Fixture(name, [200])
    try:
        res = run(["-p", fx.pid, "-s", 'trace rstd::racing { print "{}", *shared; }', "--max-events", 20,
                   "--timeout", 60, "-q"])
    finally:
        fx.stop()
    vals = [l.strip() for l in res.stdout.splitlines() if "Mutex" in l]
    check(res.returncode == 0 and len(vals) == 20, "%s: 20 prints of a Vec being changed (rc %d, %d)"
          % (name, res.returncode, len(vals)))
    bad = [v for v in vals if not re.search(r"data: core::cell::UnsafeCell<alloc::vec::Vec<u64, alloc::alloc::Global>> "
                                            r"\{value: Vec\(size=\d+\)( = \{[\d, .<>a-z]*\})?\}\}$", v)]
    eq(bad[:1], [], "%s: every print of the changing Vec is whole" % name)


def expressions(variant):
    """.len(), .is_empty(), v[i] on a Vec and a slice, a BTreeMap's .len(), -> through Rc, an
    Option (niches too) as a condition: against the fixture's own
    account of its values ({:?}, and the literals main() passes)."""
    name = "rstd-" + variant
    fx = Fixture(name, [2000])
    lines = []
    # a fat reference (&str, &[T]) and an Option<&T> held in registers are
    # read from them; optimized, show's key and nums keep their lengths but
    # not their data pointers: what needs the pointer is read at O0 only
    fat = variant.endswith("O0")
    try:
        while len(lines) < FIXTURE_LINES:
            lines.append(fx.proc.stdout.readline().rstrip("\n"))
        script = ('trace rstd::show { print "X {} {} {} {} {}", cfg.ports.len(), v.len(), v[1], cfg.shared->id, '
                  'cfg.limits.len(); print "S {:s}", cfg.host; '
                  'print "G {} {} {} {} {}", BANNER, rstd::stats::HITS, rstd::other::HITS, stats::PEAK.0, '
                  'PEAK.1; %s}\n'
                  'trace rstd::inspect { print "Y {} {} {} {} {}", bag.deque.len(), bag.hmap.len(), bag.set.len(), '
                  'bag.empty_vec.is_empty(), (*bag.arc).len(); %s'
                  'if bag.nonzero && !bag.none && bag.nonzero.is_some() && bag.none.is_none() { print "Z niches"; } }\n'
                  'trace rstd::parse { print "P {} {} {} {}", line.len(), line.starts_with("put"), '
                  'starts_with(line, "get"), line == "put key4 724"; }\n'
                  % ('print "W {} {} {}", key.len(), nums[2], nums.len(); ' if fat
                     else 'print "W {} {}", key.len(), nums.len(); ',
                     'if opt { print "Z some"; } else { print "Z none"; } '))
        res = run(["-p", fx.pid, "-s", script, "--max-events", 8, "--timeout", 30, "-q"], timeout=90)
        amb = run(["-p", fx.pid, "--dry-run", "-s", 'trace rstd::show { print "{}", HITS; }'])
    finally:
        fx.stop()
    check(amb.returncode == 2 and "'HITS' names globals of several namespaces" in amb.stderr,
          "%s: a static's name that two modules define is an error, not a guess (%r)" % (name, amb.stderr[-300:]))
    d = dict(l.split(" = ", 1) for l in lines if " = " in l)
    out = res.stdout
    first = lambda tag: (re.findall(r"(?m)^\s*%s (.*)$" % tag, out) or [None])[0]
    shared_id = re.match(r"Item \{ id: (\d+)", d["cfg.shared"]).group(1)
    eq(first("X"), "%d 3 -2 %s %d" % (len(split_top(d["cfg.ports"][1:-1])), shared_id,
                                        len(split_top(d["cfg.limits"][1:-1]))),
       "%s: a Vec's len() and v[i] through a &Vec, -> through an Rc, a BTreeMap's len()" % name)
    eq(first("S"), d["cfg.host"].strip('"'), "%s: {:s} of a String: its characters alone" % name)
    # optimized, rustc folds the immutable BANNER into its uses and keeps
    # no location: <optimized out>, as rust-gdb prints it
    eq(first("G"), '%s 41 7 9 true' % ('"rstd banner"' if fat else "<optimized out>"),
       "%s: statics of modules by name alone, by path, by a path's end; a tuple's .0" % name)

    eq(first("W"), "5 40 3" if fat else "5 3", "%s: a &str's len(), a slice's [i] and len()" % name)
    eq(first("P"), "12 true false true", "%s: a &str (in registers when optimized) against literals: "
       "len(), s.starts_with(), starts_with(s, ...), ==" % name)
    eq(first("Y"), "%d 20 1 true %d" % (len(split_top(d["bag.deque"][1:-1])), len(d["bag.arc"]) - 2),
       "%s: VecDeque, HashMap and HashSet len(), is_empty(), a String's len() through an Arc" % name)
    eq(sorted(set(re.findall(r"(?m)^\s*Z (.*)$", out))), ["niches", "none", "some"],
       "%s: Option as a condition, niches too" % name)


def frame0(text, fn):
    m = re.search(r"#0 +(?:0x[0-9a-f]+ in )?%s ?\((.*)\) at " % re.escape(fn), text)
    return split_args(m.group(1)) if m else None


def bt_strings(variant):
    """bt args of frame 0: a &str and a slice as rust-gdb's bt shows them
    (key="short": the probe copies the characters at the hit), a String
    and a Vec passed by value (rust-gdb's printers fail on them here: the
    literals main() passes, "by value" on the heap)."""
    name = "rstd-" + variant
    fx = Fixture(name, [2000])
    try:
        res = run(["-p", fx.pid, "-s", "trace rstd::show { bt args; } trace rstd::by_value { bt args; } "
                   "trace rstd::parse { bt args; } trace rstd.rs:%d { bt full; }"
                   % marker_line("rstd.rs", "let n = match &cmd"), "--max-events", 4, "--timeout", 30, "-q",
                   "--backtrace-depth", 2], timeout=90)
    finally:
        fx.stop()
    gdb = subprocess.run([RUST_GDB, "-batch", "-ex", "break rstd::show", "-ex", "run 100000", "-ex", "bt 1",
                          "-ex", "delete", "-ex", "break rstd::parse", "-ex", "continue", "-ex", "bt 1",
                          "-ex", "kill", fixture(name)], capture_output=True, text=True, timeout=240,
                         env=dict(os.environ, LANG="C.UTF-8")).stdout
    got, want = frame0(res.stdout, "rstd::show"), frame0(gdb, "rstd::show")
    # at opt-level 1 and 2 the compiler keeps a &str's and a slice's length
    # but not their data pointer: members shown (doc/script-reference.md)
    fat = ("key", "nums") if variant == "O0" else ()
    if check(got and want, "%s: rstd::show's frame 0 from both tools (%r)" % (name, res.stdout[-300:])):
        for arg in fat + ("level",):
            eq(norm(got.get(arg, "<missing>")), norm(want.get(arg, "<missing gdb>")),
               "%s: bt args' %s as rust-gdb's bt shows it" % (name, arg))
    # a &str whose halves arrive in two registers (opt-level 2: pieces),
    # its characters copied at the hit as for one in memory
    got, want = frame0(res.stdout, "rstd::parse") or {}, frame0(gdb, "rstd::parse") or {}
    eq(got.get("line", "<missing>"), want.get("line", "<missing gdb>"),
       "%s: bt args' &str in registers as rust-gdb's bt shows it" % name)
    # bt full: an enum holding a String, by value and in a local, its
    # characters copied at the hit (rust-gdb's printers fail on String
    # here: the literals main() and exec() hold)
    got = frame0(res.stdout, "rstd::exec") or {}
    eq((got.get("cmd"), got.get("last")),
       ('rstd::Cmd::Put{key: "key4", value: 724}', 'core::option::Option<alloc::string::String>::Some("k0")'),
       "%s: enums holding Strings in bt args" % name)
    m = re.search(r"#0 .*rstd::exec.*\n\s+next = (.*)", res.stdout)
    if variant == "O0":  # optimized, the String's pointer is in no register there
        eq(m and m.group(1), 'rstd::Cmd::Get("k9")', "%s: an enum holding a String in bt full's locals" % name)
    got = frame0(res.stdout, "rstd::by_value") or {}
    eq((got.get("name"), got.get("ids")), ('"by value"', "Vec(size=2) = {...}"),
       "%s: a String and a Vec by value in bt args" % name)


if __name__ == "__main__":
    for v in ("O0", "O1", "O2", "v0-O2"):
        compare(v)
    for v in ("O0", "O1", "O2"):
        bt_strings(v)
    for v in ("O0", "O1", "O2"):
        expressions(v)
    many("O2")
    pieces_json("O2")
    weak_json("O0")
    for v in ("O0", "O2"):
        torn_rc(v)
    racing("O1")
    check_no_leftovers("after the Rust std values")
    finish()
