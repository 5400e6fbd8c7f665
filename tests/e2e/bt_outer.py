"""bt_outer.py - an outer frame's own values that point outside the stack,
in bt full, against gdb's bt full at the same pc of the same live process.

The probe's program is built for frame 0's function, so the first event
of a call chain shows such a value of frame 1 as its marker (a char
pointer's address, then `<not copied: new call chain>`); having read it,
wraith writes the chain's recipe and later events copy what those values
point to in the probe (doc/script-reference.md, "bt args").  Every event
must show gdb's value or the marker, and a later one gdb's value.  The
recipes of the chains through direct calls, which the call sites name
(-O2) or the code shows (-O0), are written when the probe attaches:
their first event shows gdb's values too; a call through a pointer
(relay()) still shows the marker first.  A
recipe holds 16 values: crowd()'s 18 char pointers show 16 strings, and
`<not copied: over 16 values in call chain>` for the other 2.  And a
session keeps recipes for 1,024 chains at a time: fan() reaches tally()
by more, round and round, so a new chain's recipe takes the place of the
least recently seen one's, whose values then say `<not copied: call
chain table full>` when it comes back (at -O0: at -O2 the compilers
reshape its recursion); and with a table of 64 (WRAITH_OUTER_RECIPES)
and calls 50 us apart, so that recipes are replaced while probes read
them, never `<unavailable>` (a frame run by another chain's recipe).

  outer.c (gcc and clang-19, -O0 and -O2): greet()'s char pointers `who`
      (a parameter) and `note` (a local), both to the heap, at tally(),
      and its static `greeted`, in writable data, read at the hit too.
      At -O2 they live in callee-saved registers tally() leaves alone or
      saves: the recipe reads frame 0's register or the saved slot.
      seek()'s `el` and `cont` point into its heap string; at -O2 one
      is computed from the other, and the recipe adds the difference.
  rstd.rs (rustc, opt-level 0, 1 and 2): greet()'s `who`, a &str whose
      characters are on the heap, and `tag`, a String by value, against
      rust-gdb (its String printer fails on this gdb: `tag` against what
      the fixture passes).  At opt-level 1 and 2 `who` is in two
      registers (a &str in pieces): the recipe copies its characters
      through the register that holds its data pointer.

And frame 0's own char pointers (outer.c's shout(): `who` to the heap,
`what` to a string that runs off its page into an unmapped one), which
the probe copies at the hit: every event shows gdb's bt full text, the
torn one's readable head then gdb's `<error: Cannot access memory at
address 0x...>`, and print shows it as gdb's print.
"""
import collections
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
OVER = "<not copied: over 16 values in frame>"
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
    load, many, so the run goes on until 3 events in a row have none (at
    least 20 events, at most 60 s), with the smallest event buffer, so
    that a slow reader loses old events rather than reading minutes of
    them."""
    fx = Fixture(name, [2000])
    body = "%s { bt full; }" % cond if cond else "bt full;"

    def enough(lines):
        evs = events_of("".join(lines))[:-1]  # the last may be partly read
        return len(evs) >= 20 and all(NEW_CHAIN not in e for e in evs[-3:])
    try:
        res = run_until(["-p", fx.pid, "-s", "trace %s { %s }" % (where, body), "--timeout", 90,
                         "--buffer-size", "64K", "--backtrace-depth", 3], enough)
        g = gdb_bt_full(fx.pid, where, gdb, " " + cond if cond else "")
    finally:
        fx.stop()
    return res, g


def compare(label, res, seen, want, marker, shown=True, first_shown=False):
    """Each event's values @seen (a dict per event) against gdb's @want:
    gdb's value or @marker(name, value), the last ones gdb's (unless not
    @shown: where gdb reads a register the unwinder cannot restore); the
    first event's markers, or with @first_shown gdb's values (the recipe
    written at attach, from the call site)."""
    if not check(res.returncode == 0 and seen and None not in seen,
                 "%s: frame 1 in every event (rc %s, %r)" % (label, res.returncode, res.stderr[-300:])):
        return
    for k, w in want.items():
        odd = [s.get(k) for s in seen if s.get(k) != w and not marker(k, s.get(k))]
        check(not odd, "%s: %s is gdb's %r or its marker in every event (%r)" % (label, k, w, odd[:2]))
        if shown:
            eq(seen[-1].get(k), w, "%s: a later event shows %s as gdb's bt full" % (label, k))
    if shown and first_shown:
        eq({k: seen[0].get(k) for k in want}, want,
           "%s: the chain's first event shows the values as gdb's bt full (a direct call: the recipe was "
           "written at attach)" % label)
    elif shown:
        check(any(seen[0].get(k) != w for k, w in want.items()),
              "%s: the chain's first event shows markers, not copied yet (%r)" % (label, seen[0]))


def precomputed(v):
    """Whether frame 1's recipe at tally() is written when the probe
    attaches: greet(), crowd() and seek() call it directly, each call
    named by a DW_TAG_call_site at -O2 (where tally() has no frame of its
    own) and found in their code at -O0 (where the probe stands past
    tally()'s prologue and each frame's CFA is its frame pointer's, which
    the code from its entry to the probe or the call fixes)."""
    return True


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
    compare(label, res, seen, want, marker, first_shown=precomputed(v))
    # greet's static, in writable data: read at the hit by the chain's
    # recipe, so it counts up from event to event, to below gdb's later
    # value; the first events say why it is not shown (-O0: at -O2 the
    # recipe was written at attach)
    g = (frame1(g, "greet", "greeted") or {}).get("greeted") or ""
    got = [(frame1(e, "greet", "greeted") or {}).get("greeted") for e in events_of(res.stdout)
           if " greet (" in e or " greet(" in e]
    counts = [int(x) for x in got if x and x.isdigit()]
    check(g.isdigit() and got and (got[0].isdigit() if precomputed(v) else got[0] == NEW_CHAIN) and
          all(x == NEW_CHAIN or x.isdigit() for x in got) and len(counts) >= 2 and
          counts == sorted(set(counts)) and 0 < counts[-1] < int(g),
          "%s: greet's static greeted counts up to below gdb's %r, after the first events' marker (%r)" % (
              label, g, got))


def seek_outer(v):
    """seek()'s `el` and `cont`, in frame 1 at tally(): pointers into its
    heap string `buf`, at -O2 one kept in a register and the other computed
    from it (`el = cont - 1`: the recipe takes the kept one plus the
    difference), and `cont`'s string runs inside `buf`'s (its own copy
    or the copy of `buf` that holds it shows it).  clang -O2 keeps no
    location for `cont`: <optimized out> in both.  The static `first_seek`
    (clang -O2: a value computed from a byte of writable data) is copied
    by the recipe as a static is."""
    name = "outer-" + v
    res, g = traced(name, "outer.c:%d" % marker_line("outer.c", "LINE:tally"), cond="if k == 10")
    label = "%s seek's pointers into one string" % name

    def values(text):
        got = frame1(text, "seek", "el")
        if got is not None:
            got["cont"] = (frame1(text, "seek", "cont") or {}).get("cont")
            got["first_seek"] = (frame1(text, "seek", "first_seek") or {}).get("first_seek")
        return got
    want = values(g)
    if not check(want and '"\\nthe rest of it"' in (want.get("el") or "") and
                 ('"the rest of it"' in (want.get("cont") or "") or want.get("cont") == "<optimized out>"),
                 "%s: gdb shows el and cont (%r)" % (label, g[-600:])):
        return
    check(want.get("first_seek") == "0", "%s: gdb shows the static first_seek (%r)" % (label, want))
    want = {k: want[k] for k in ("buf", "el", "cont", "first_seek")}
    seen = [values(e) for e in events_of(res.stdout) if " seek (" in e or " seek(" in e]

    def marker(k, s):  # the pointer and why its string is not shown, before the recipe
        return bool(s) and (s == want[k].split(" ")[0] + " " + NEW_CHAIN or (k == "first_seek" and s == NEW_CHAIN))
    compare(label, res, seen, want, marker, first_shown=precomputed(v))
    # in frame 0 the probe copies the byte first_seek's value is computed
    # from at the hit: bt full shows it in every event, as print does
    fx = Fixture(name, [2000])
    try:
        res = run(["-p", fx.pid, "-s", 'trace seek { print "{}", first_seek; bt full; }', "--max-events", 3,
                   "--timeout", 60, "--backtrace-depth", 1], timeout=120)
    finally:
        fx.stop()
    got = re.findall(r"^ +first_seek = (.*)$", res.stdout, flags=re.M)
    eq(got, ["0"] * 3, "%s: frame 0's static first_seek in bt full is print's 0 in every event" % label)


def relay_outer(v):
    """relay()'s `who`, in frame 1 at tally(), which relay() calls through
    a pointer: no call site names tally() there, so no recipe is written
    at attach; the chain's first event says why who's string is not
    shown, a later one shows it as gdb's bt full (at -O2 the direct calls'
    chains show theirs at their first event: c_outer)."""
    name = "outer-" + v
    res, g = traced(name, "outer.c:%d" % marker_line("outer.c", "LINE:tally"), cond="if k == 6")
    want = frame1(g, "relay")
    label = "%s relay's heap string through an indirect call" % name
    if not check(want and '"apple-7-on-the-heap"' in (want.get("who") or ""),
                 "%s: gdb shows who (%r)" % (label, g[-600:])):
        return
    want = {"who": want["who"]}
    seen = [frame1(e, "relay") for e in events_of(res.stdout) if " relay (" in e or " relay(" in e]

    def marker(k, s):
        return bool(s) and s == want[k].split(" ")[0] + " " + NEW_CHAIN
    compare(label, res, seen, want, marker)
    check(seen and marker("who", seen[0].get("who")),
          "%s: the chain's first event says the chain is new (%r)" % (label, seen[:1]))


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
    last = seen[-1]
    if precomputed(v):
        eq(seen[0], last, "%s: the chain's first event shows what later ones show (the recipe was written at "
           "attach)" % label)
    else:
        eq(seen[0], [NEW_CHAIN] * 18, "%s: the chain's first event says why none is shown" % label)
    eq(([w for w, s in zip(want, last) if s == w], [s for s in last if s not in want]),
       (want[:16], [OVER] * 2), "%s: a later event shows 16 as gdb, the other 2 say why not" % label)
    odd = [s for s in seen[1:] if s != last and s != seen[0]]
    check(not odd, "%s: every event shows one or the other (%r)" % (label, odd[:1]))


def fan_keys(again, bits):
    """The recipe keys of a fan event's frames with values, innermost
    first (frames 0 to j: which line each fan level called the next
    from, then fan_again), as wraith names them: frame 1's (fan at level
    0) is the same in every chain, frame 1 + L's depends on bits 10 to
    11 - L, frame 13 (fan_again) on all and its caller."""
    keys = [("bits", 0)]
    for j in range(2, 13):
        keys.append(("bits", j, bits >> (12 - j)))
    if again:
        keys.append(("again", bits))
    return keys


def fan_outer(v, recipes=1024, interval=1000, events=2600):
    """fan() reaches tally() by 640 call chains from main, round and
    round, and by others from fan_again(), each for 32 calls in 256 turns;
    each frame's `who` points to a character of its own.  A frame's recipe
    is keyed by frames 0 to it: frames near tally() are shared by many
    chains, so a chain never seen shows their values at its first event;
    and there are more keys than the 1,024 recipes the kernel keeps, so a
    new one takes the place of the least recently seen.  Which event the
    probe sent before wraith wrote a recipe, or lost, depends on the load,
    so the test replays wraith's table over the events it showed (in the
    order it read them, frame by frame) and checks what holds in every
    schedule: a frame shows gdb's string only when its key had a recipe
    written at an earlier event; else it says why not, that the table was
    full exactly when its key was among the last 1,024 evicted.  And,
    more than a table on: evicted frames that came back said so; a new
    chain showed the frames it shares at its first event; a key first
    written after the table filled showed the string at a later event.

    With @recipes < 1,024 (WRAITH_OUTER_RECIPES) and calls @interval
    microseconds apart, the table evicts at nearly every event, as fast
    as wraith reads them, while the probe reads the recipes on the other
    CPU: a frame whose recipe slot was rewritten as the probe read it
    says so, never `<unavailable>` (another chain's recipe run)."""
    name = "outer-" + v
    fx = Fixture(name, [interval])
    # the recipes learned from events alone: those written at attach
    # would show strings no event had taught (c_outer tests them)
    env = dict(os.environ, WRAITH_OUTER_RECIPES=str(recipes), WRAITH_NO_PRE_RECIPES="1")
    try:
        # a small event buffer keeps a slow reader (the sanitizer build
        # under load) near the events the probe sends now, losing the
        # rest, so recipes it writes are in place for the ones it reads
        res = run(["-p", fx.pid, "-s", "trace outer.c:%d { if k == 7 { bt args; } }" %
                   marker_line("outer.c", "LINE:tally"), "--max-events", events, "--timeout", 150,
                   "--buffer-size", "256K"], timeout=200, env=env)
    finally:
        fx.stop()
    label = "%s fan's call chains (%d recipes)" % (name, recipes)
    string = '"apple-7-on-the-heap"'
    shown = []
    for e in events_of(res.stdout):
        fans = re.findall(r"#\d+ +(?:0x[0-9a-f]+ in )?fan ?\(bits=(\d+),.*who=(?:who@entry=)?0x[0-9a-f]+ ?([^,)]*)", e)
        again = re.findall(r"#\d+ +(?:0x[0-9a-f]+ in )?fan_again ?\(bits=\d+, who=0x[0-9a-f]+ ?([^,)]*)", e)
        shown.append((fans[-1][0] if fans else None, [w for _, w in fans] + again, bool(again), len(fans)))
    if not check(res.returncode == 0 and len(shown) >= events - 100 and all(n == 12 for _, _, _, n in shown),
                 "%s: 12 fan frames in each of %d events (rc %s, %d, %r)" % (
                     label, events - 100, res.returncode, len(shown), res.stderr[-300:])):
        return
    # what each frame's who shows: its own character of the string
    strings = [string[:1] + string[1 + d:] for d in range(13)]
    table, written, ring, odd = {}, set(), collections.deque(maxlen=1024), []
    clock, filled, full_shown, chains = 0, None, 0, set()
    first_shared, later_written = 0, set()
    for k, (bits, whos, again, _) in enumerate(shown):
        keys = fan_keys(again, int(bits))
        new_chain = (again, bits) not in chains
        chains.add((again, bits))
        # wraith goes from frame 1 out; frame j's who is who + 12 - j
        # (fan_again's, who + 0): reversed, whos[-1] is the outermost
        for j, key in enumerate(keys, 1):
            who = whos[j - 1]
            want = strings[13 - j] if j <= 12 else strings[0]
            if who == want:
                ok = key in written
                first_shared += new_chain and j == 1
                if key in later_written:
                    later_written.discard(key)
                    later_written.add(("shown",) + key)
            else:
                ok = who == (FULL if key in ring else NEW_CHAIN)
                full_shown += who == FULL
            if not ok:
                odd.append((k, j, who, key in written, key in ring))
            clock += 1
            if key not in table and len(table) == recipes:
                old = min(table, key=table.get)
                del table[old]
                ring.append(old)
                filled = k if filled is None else filled
            if key not in table and filled is not None and key not in written:
                later_written.add(key)
            table[key] = clock
            written.add(key)
    check(not odd, "%s: each frame shows its string only when its recipe was written, else the marker the table "
          "says (%d odd: %r)" % (label, len(odd), odd[:3]))
    check(filled is not None and full_shown > 0,
          "%s: the table filled (at event %r), and evicted frames that came back said so (%d)" % (
              label, filled, full_shown))
    check(first_shared > 0, "%s: a new chain showed the frames it shares with others at its first event (%d)" % (
        label, first_shared))
    check(any(c[0] == "shown" for c in later_written),
          "%s: a recipe first written after the table filled showed the string at a later event" % label)


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
    # tag's address in RSI and RDX, caller-saved registers, which
    # tally()'s code before the probe does not write: they still hold
    # them (rust-gdb reads them there too).  who is then a &str held in
    # registers: the recipe finds its data pointer where frame 0's walk
    # does (a register, or the slot a callee saved it in) and copies its
    # characters (WR_OUTER_F_SPAN), as for one in memory; before, it
    # showed <unavailable>.
    def marker(k, s):
        return s == NEW_CHAIN
    compare(label, res, seen, want, marker)


for v in ("O0", "O2", "clang-O0", "clang-O2"):
    c_outer(v)
    crowd_outer(v)
    seek_outer(v)
    relay_outer(v)
    frame0_strings(v)
    if v.endswith("O0"):  # at -O2 the compilers reshape fan()'s recursion
        fan_outer(v)
        fan_outer(v, recipes=64, interval=50, events=10000)
for v in ("O0", "O1", "O2"):
    rust_outer(v)
check_no_leftovers("after outer frames' values")
finish()
