"""bt_outer.py - an outer frame's own values that point outside the stack,
in bt full, against gdb's bt full at the same pc of the same live process.

The probe's program is built for frame 0's function, so the first event
of a call chain shows such a value of frame 1 as its marker (a char
pointer's address, then `<not copied: new call chain>`); having read it,
wraith writes the chain's recipe and later events copy what those values
point to in the probe (doc/script-reference.md, "bt args").  Every event
must show gdb's value or the marker, and a later one gdb's value.  A
recipe holds 16 values: crowd()'s 18 char pointers show 16 strings, and
`<not copied: over 16 values in call chain>` for the other 2.  And a
session keeps recipes for 1,024 chains at a time: fan() reaches tally()
by more, round and round, so a new chain's recipe takes the place of the
least recently seen one's, whose values then say `<not copied: call
chain table full>` when it comes back (at -O0: at -O2 the compilers
reshape its recursion).

  outer.c (gcc and clang-19, -O0 and -O2): greet()'s char pointers `who`
      (a parameter) and `note` (a local), both to the heap, at tally(),
      and its static `greeted`, in writable data, read at the hit too.
      At -O2 they live in callee-saved registers tally() leaves alone or
      saves: the recipe reads frame 0's register or the saved slot.
  rstd.rs (rustc, opt-level 0, 1 and 2): greet()'s `who`, a &str whose
      characters are on the heap, and `tag`, a String by value, against
      rust-gdb (its String printer fails on this gdb: `tag` against what
      the fixture passes).  At opt-level 1 and 2 both are in caller-saved
      registers at the call, by the DWARF: <optimized out>, never a value
      those registers hold by now.

And frame 0's own char pointers (outer.c's shout(): `who` to the heap,
`what` to a string that runs off its page into an unmapped one), which
the probe copies at the hit: every event shows gdb's bt full text, the
torn one's readable head then gdb's `<error: Cannot access memory at
address 0x...>`, and print shows it as gdb's print.
"""
import os
import subprocess

from wraithtest import *

require_root()

FRAME1 = r"#1 +(?:0x[0-9a-f]+ in )?%s ?\((.*)\) at "


def events_of(text):
    return re.split(r"^\[[\d:.]+\] ", text, flags=re.M)[1:]


def frame1(text, fn, local=None):
    """Frame 1's arguments in one bt full, with local @local when given."""
    m = re.search(FRAME1 % re.escape(fn), text)
    if not m:
        return None
    args = split_args(m.group(1), keep_entry=True)
    if local:
        rest = text[m.end():]
        lm = re.search(r"^\s+%s = (.*)$" % local, rest.split("\n#2", 1)[0], flags=re.M)
        args[local] = lm.group(1) if lm else None
    return args


NEW_CHAIN = "<not copied: new call chain>"
OVER = "<not copied: over 16 values in call chain>"
FULL = "<not copied: call chain table full>"


def gdb_bt_full(pid, where, gdb="gdb", cond=""):
    """gdb's bt full 2 at @where in process @pid (attached, then left
    running), where @cond holds."""
    cmds = ["set pagination off", "set width 0", "break %s%s" % (where, cond), "continue", "bt full 2", "detach"]
    argv = [gdb, "-batch", "-p", str(pid)] + [x for c in cmds for x in ("-ex", c)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=180,
                          env=dict(os.environ, LANG="C.UTF-8")).stdout


def traced(name, where, gdb="gdb", cond=""):
    """wraith's bt full at @where for a few hundred hits, then gdb's, in
    the same process (where @cond, `if k > 7`, holds).  Events the probe
    sent before wraith wrote the chain's recipe show its markers: under
    load, many, so the run takes 100."""
    fx = Fixture(name, [2000])
    body = "%s { bt full; }" % cond if cond else "bt full;"
    try:
        res = run(["-p", fx.pid, "-s", "trace %s { %s }" % (where, body), "--max-events", 100, "--timeout", 60,
                   "--backtrace-depth", 3], timeout=120)
        g = gdb_bt_full(fx.pid, where, gdb, " " + cond if cond else "")
    finally:
        fx.stop()
    return res, g


def compare(label, res, seen, want, marker, shown=True):
    """Each event's values @seen (a dict per event) against gdb's @want:
    gdb's value or @marker(name, value), the last ones gdb's (unless not
    @shown: where gdb reads a register the unwinder cannot restore)."""
    if not check(res.returncode == 0 and seen and None not in seen,
                 "%s: frame 1 in every event (rc %s, %r)" % (label, res.returncode, res.stderr[-300:])):
        return
    for k, w in want.items():
        odd = [s.get(k) for s in seen if s.get(k) != w and not marker(k, s.get(k))]
        check(not odd, "%s: %s is gdb's %r or its marker in every event (%r)" % (label, k, w, odd[:2]))
        if shown:
            eq(seen[-1].get(k), w, "%s: a later event shows %s as gdb's bt full" % (label, k))
    if shown:
        check(any(seen[0].get(k) != w for k, w in want.items()),
              "%s: the chain's first event shows markers, not copied yet (%r)" % (label, seen[0]))


def c_outer(v):
    name = "outer-" + v
    res, g = traced(name, "outer.c:%d" % marker_line("outer.c", "LINE:tally"), cond="if k > 7")
    want = frame1(g, "greet", "note")
    label = "%s greet's heap strings" % name
    if not check(want and '"apple-7-on-the-heap"' in (want.get("who") or "") and
                 '"a note for apple-7-on-the-heap"' in (want.get("note") or ""),
                 "%s: gdb shows who and note (%r)" % (label, g[-600:])):
        return
    want = {k: want[k] for k in ("who", "note")}
    seen = [frame1(e, "greet", "note") for e in events_of(res.stdout) if " greet (" in e or " greet(" in e]

    def marker(k, s):  # the pointer and why its string is not shown, before the recipe
        return bool(s) and s == want[k].split(" ")[0] + " " + NEW_CHAIN and k != "n"
    compare(label, res, seen, want, marker)
    # greet's static, in writable data: read at the hit by the chain's
    # recipe, so it counts up from event to event, to below gdb's later
    # value; the first events say why it is not shown
    g = (frame1(g, "greet", "greeted") or {}).get("greeted") or ""
    got = [(frame1(e, "greet", "greeted") or {}).get("greeted") for e in events_of(res.stdout)
           if " greet (" in e or " greet(" in e]
    counts = [int(x) for x in got if x and x.isdigit()]
    check(g.isdigit() and got and got[0] == NEW_CHAIN and
          all(x == NEW_CHAIN or x.isdigit() for x in got) and len(counts) >= 2 and
          counts == sorted(set(counts)) and 0 < counts[-1] < int(g),
          "%s: greet's static greeted counts up to below gdb's %r, after the first events' marker (%r)" % (
              label, g, got))


def elements(text):
    """The char pointers of an array as gdb or wraith shows it: each
    one's text after its address."""
    return re.findall(r"0x[0-9a-f]+ ?((?:\"[^\"]*\")|<[^>]*>|)(?=, |[]}]$)", text.strip())


def crowd_outer(v):
    """crowd()'s 18 char pointers (three arrays of 6), in frame 1 at
    tally(): more than a chain's recipe copies (16), so from its second
    event on 16 show gdb's strings and 2 say why they do not; its first
    event says why none does."""
    name = "outer-" + v
    res, g = traced(name, "outer.c:%d" % marker_line("outer.c", "LINE:tally"), cond="if k == 5")
    label = "%s crowd's 18 heap strings" % name

    def strings(text):
        return [e for k in "abc" for e in elements((frame1(text, "crowd", k) or {}).get(k) or "")]
    want = strings(g)
    if not check(sorted(want) == sorted('"crowd-%s%d"' % (k, i) for k in "abc" for i in range(6)),
                 "%s: gdb shows a, b and c (%r)" % (label, g[-600:])):
        return
    seen = [strings(e) for e in events_of(res.stdout) if " crowd (" in e or " crowd(" in e]
    if not check(res.returncode == 0 and len(seen) >= 2, "%s: events (rc %s, %r)" % (label, res.returncode,
                                                                                 res.stderr[-300:])):
        return
    eq(seen[0], [NEW_CHAIN] * 18, "%s: the chain's first event says why none is shown" % label)
    last = seen[-1]
    eq(([w for w, s in zip(want, last) if s == w], [s for s in last if s not in want]),
       (want[:16], [OVER] * 2), "%s: a later event shows 16 as gdb, the other 2 say why not" % label)
    odd = [s for s in seen[1:] if s != last and s != seen[0]]
    check(not odd, "%s: every event shows one or the other (%r)" % (label, odd[:1]))


def fan_outer(v):
    """fan() reaches tally() by 1,536 call chains from main, round and
    round, and by others from fan_again(), each for 32 calls in 256 turns:
    more than the 1,024 recipes the kernel keeps, so a new chain's recipe
    takes the place of the least recently seen one's.  Which event the
    probe sent before wraith wrote a recipe, or lost, depends on the load,
    so the test replays wraith's table over the events it showed (in the
    order it read them) and checks what holds in every schedule: a
    chain's first event says it is new; an event of a chain whose recipe
    was evicted shows the string (sent before the eviction) or says the
    table was full; one of a chain with a recipe, the string or (sent
    before wraith wrote it) a marker; and, more than a table on, some
    events say the table was full, and a chain new after the table
    filled shows the string at a later event."""
    name = "outer-" + v
    fx = Fixture(name, [1000])
    try:
        res = run(["-p", fx.pid, "-s", "trace outer.c:%d { if k == 7 { bt args; } }" %
                   marker_line("outer.c", "LINE:tally"), "--max-events", 2600, "--timeout", 150], timeout=200)
    finally:
        fx.stop()
    label = "%s fan's call chains" % name
    string = '"apple-7-on-the-heap"'
    events = []
    for e in events_of(res.stdout):
        fans = re.findall(r"#\d+ +(?:0x[0-9a-f]+ in )?fan ?\(bits=(\d+),.*who=(?:who@entry=)?(0x[0-9a-f]+(?: [^,)]*)?)", e)
        again = re.search(r"#\d+ +(?:0x[0-9a-f]+ in )?fan_again ?\(", e) is not None
        whos = set(re.sub(r"^0x[0-9a-f]+ ", "", w) for _, w in fans)
        events.append((again, fans[-1][0] if fans else None, len(fans), whos))
    if not check(res.returncode == 0 and len(events) >= 2500 and all(n == 12 and len(w) == 1 for _, _, n, w in events),
                 "%s: 12 fan frames showing one who in each of 2,500 events (rc %s, %d, %r)" % (
                     label, res.returncode, len(events), res.stderr[-300:])):
        return
    # wraith's table, replayed: chain -> the event that last named it
    table, seen, evicted, odd = {}, set(), set(), []
    full_shown, new_filled, filled = 0, set(), None
    for k, (again, bits, _, whos) in enumerate(events):
        chain, (who,) = (again, bits), whos
        if chain not in seen:
            ok = who == NEW_CHAIN
        elif chain in table:
            ok = who in (string, NEW_CHAIN) or (who == FULL and chain in evicted)
        else:
            ok = who in (string, FULL)
        if not ok:
            odd.append((k, chain, who, chain in seen, chain in table))
        full_shown += who == FULL
        if filled is not None and chain not in seen:
            new_filled.add(chain)
        if chain in new_filled and who == string:
            new_filled.discard(chain)
            new_filled.add(("shown",) + chain)
        seen.add(chain)
        if chain not in table and len(table) == 1024:
            old = min(table, key=table.get)
            del table[old]
            evicted.add(old)
            filled = k if filled is None else filled
        table[chain] = k
    check(not odd, "%s: every event shows the fixture's string or the marker the table says (%d odd: %r)" % (
        label, len(odd), odd[:3]))
    check(filled is not None and full_shown > 0,
          "%s: the table filled (at event %r), and evicted chains that came back said so (%d events)" % (
              label, filled, full_shown))
    check(any(c[0] == "shown" for c in new_filled),
          "%s: a chain new after the table filled had its recipe written, and showed the string" % label)


FRAME0 = r"#0 +(?:0x[0-9a-f]+ in )?shout ?\((.*)\) at "
PRINTED = re.compile(r"^  (0x[0-9a-f]+ .*)$", re.M)


def frame0_strings(v):
    """Frame 0's char pointers at shout(): `who` to the heap and `what` to
    a string that runs off its page into an unmapped one, copied by the
    probe at the hit, in every event (not only from a chain's second):
    gdb's `"apple-7-on-the-heap"` and the torn string's readable head then
    `<error: Cannot access memory at address 0x...>`; main's `torn` in
    frame 1 holds the same pointer, so the same copy; print of `what` as
    gdb's print, and in NDJSON its head and the address gdb's error names."""
    name = "outer-" + v
    where = "outer.c:%d" % marker_line("outer.c", "LINE:shout")
    fx = Fixture(name, [2000])
    try:
        res = run(["-p", fx.pid, "-s", 'trace %s { bt full; print "{}", what; }' % where, "--max-events", 5,
                   "--timeout", 60, "--backtrace-depth", 2], timeout=120)
        js = run(["-p", fx.pid, "-s", 'trace %s { print "{}", what; }' % where, "--max-events", 1,
                  "--timeout", 60, "--script-output", "json"], timeout=120)
        cmds = ["set pagination off", "set width 0", "break " + where, "continue", "bt full 2", "print what",
                "detach"]
        g = subprocess.run(["gdb", "-batch", "-p", str(fx.pid)] + [x for c in cmds for x in ("-ex", c)],
                           capture_output=True, text=True, timeout=180, env=dict(os.environ, LANG="C.UTF-8")).stdout
    finally:
        fx.stop()
    label = "%s shout's strings" % name
    m = re.search(FRAME0, g)
    want = split_args(m.group(1), keep_entry=True) if m else {}
    torn = frame1(g, "main", "torn")
    gp = re.search(r"^\$1 = (.*)$", g, flags=re.M)
    if not check(m and gp and torn and "<error: Cannot access memory at address 0x" in want.get("what", "") and
                 '"apple-7-on-the-heap"' in want.get("who", ""), "%s: gdb shows what and who (%r)" % (label, g[-800:])):
        return
    events = events_of(res.stdout)
    if not check(res.returncode == 0 and len(events) >= 2, "%s: events (rc %s, %r)" % (label, res.returncode,
                                                                                   res.stderr[-300:])):
        return
    for k, e in enumerate(events):
        got = re.search(FRAME0, e)
        got = split_args(got.group(1), keep_entry=True) if got else {}
        eq({n: got.get(n) for n in ("what", "who")}, {n: want[n] for n in ("what", "who")},
           "%s: event %d's frame 0 as gdb's bt full" % (label, k))
        eq((frame1(e, "main", "torn") or {}).get("torn"), torn["torn"],
           "%s: event %d's main's torn as gdb's bt full" % (label, k))
        pm = PRINTED.search(e)
        eq(pm.group(1) if pm else None, gp.group(1), "%s: event %d's print as gdb's print" % (label, k))
    args = [a for ev in json_events(js.stdout) for it in ev["items"] for a in it.get("args", [])]
    at = re.search(r"<error: Cannot access memory at address (0x[0-9a-f]+)>", gp.group(1))
    eq([(a.get("value"), a.get("error")) for a in args],
       [({"head": "the torn string runs off its page here!!", "unreadable_at": at and at.group(1)}, "read-error")],
       "%s: NDJSON of the torn char pointer: its head, where gdb's error says the page ends" % label)


def rust_outer(v):
    name = "rstd-" + v
    gdb = os.environ.get("WRAITH_RUST_GDB") or "/usr/bin/rust-gdb"
    res, g = traced(name, "rstd.rs:%d" % marker_line("rstd.rs", "sink(k); // LINE:tally"), gdb)
    want = frame1(g, "rstd::greet")
    label = "%s greet's &str and String" % name
    if not check(want and want.get("who") == '"apple-7-from-the-heap"',
                 "%s: rust-gdb shows who (%r)" % (label, g[-600:])):
        return
    want = {"who": want["who"], "tag": '"tag-42"'}  # rust-gdb's String printer fails here
    seen = [frame1(e, "rstd::greet") for e in events_of(res.stdout)]

    # At opt-level 1 and 2 the DWARF at the call puts who's length and
    # tag's address in RSI and RDX, caller-saved registers tally() may
    # have changed: rust-gdb shows what they hold now (right here by
    # luck: the compiler copied both to callee-saved registers and the
    # DWARF does not say so), wraith <optimized out>, never a guess.
    def marker(k, s):
        return s is not None and (s == NEW_CHAIN or (v != "O0" and "<optimized out>" in s))
    compare(label, res, seen, want, marker, shown=v == "O0")


for v in ("O0", "O2", "clang-O0", "clang-O2"):
    c_outer(v)
    crowd_outer(v)
    frame0_strings(v)
    if v.endswith("O0"):  # at -O2 the compilers reshape fan()'s recursion
        fan_outer(v)
for v in ("O0", "O1", "O2"):
    rust_outer(v)
check_no_leftovers("after outer frames' values")
finish()
