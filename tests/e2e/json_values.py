"""json_values.py - NDJSON events of live fixtures (gcc and clang-19 builds)
valid against doc/event.schema.json, and each print argument there as a
typed value beside the rendered text: numbers, bool, an enum by name, a
struct as an object by member names with its arrays, bitfields and
pointers, a pointer as "0x..." with its type, a char pointer as its string,
a literal, a memory dump as its bytes, a computed value, and a value that could not be read (null and why)."""
import json
import os

from wraithtest import *

require_root()
VALIDATOR = schema_validator()

SCRIPT = r'''trace probe_here {
    print "n={} flag={} letter={} color={} big={}", n, flag, letter, color, big;
    print "{} at {}", *req, req;
    print req.next.id;
    print "{} {}", label, "lit";
    print n * 2;
    print "{:x.*} {}", 4, req, n;
    bt;
}'''
COLORS = ["RED", "GREEN", "BLUE"]


def arg(a):
    """An argument without its type, which the compilers spell apart."""
    return {k: a[k] for k in ("expr", "value", "error")}


def expected_args(i):
    """The arguments of the prints at n == i (vars.c says how they go)."""
    return [
        [{"expr": "n", "value": i, "error": None},
         {"expr": "flag", "value": bool(i & 1), "error": None},
         {"expr": "letter", "value": ord("a") + i % 26, "error": None},
         {"expr": "color", "value": COLORS[i % 3], "error": None},
         {"expr": "big", "value": i * 1000000007, "error": None}],
        [{"expr": "*req", "value": {
            "id": i, "name": "req-%d" % i, "tags": [i, i + 1, i + 2, i + 3], "pos": {"x": i, "y": -i},
            "bits": {"low": i & 7, "high": (i >> 3) & 31}, "color": COLORS[i % 3], "next": "NEXT"},
          "error": None},
         {"expr": "req", "value": "REQ", "error": None}],
        [{"expr": "req.next.id", "value": 77 if i % 2 else None, "error": None if i % 2 else "null-pointer"}],
        [{"expr": "label", "value": "vars-fixture", "error": None},
         {"expr": '"lit"', "value": "lit", "error": None}],
        [{"expr": "n * 2", "value": 2 * i, "error": None}],
        # a dump's length argument is part of the dump
        [{"expr": "req", "value": [i & 255, (i >> 8) & 255, (i >> 16) & 255, 0], "error": None},
         {"expr": "n", "value": i, "error": None}],
    ]


def check_variant(variant):
    fx = Fixture("vars-" + variant, [1000])
    res = run(["-p", fx.pid, "-s", SCRIPT, "--max-events", 6, "--script-output", "json", "-q"])
    check(res.returncode == 0, "%s: exit 0 (%s)" % (variant, res.stderr.strip()[-300:]))
    fx.stop()
    lines = [l for l in res.stdout.splitlines() if l.strip()]
    eq(len(lines), 6, "%s: 6 events" % variant)
    for line in lines:
        ev = json_line(line)
        errors = sorted(VALIDATOR.iter_errors(ev), key=lambda e: list(e.path))
        if not check(not errors, "%s: event %s valid against the schema" % (variant, ev.get("seq"))):
            for e in errors[:5]:
                print("       at %s: %s" % ("/".join(map(str, e.path)), e.message))
            return
    ev = json_line(lines[-1])
    prints = [it for it in ev["items"] if it["type"] == "print"]
    i = prints[0]["args"][0]["value"]
    want = expected_args(i)
    # the pointers are where the fixture's memory is: take them from the text
    req = prints[1]["args"][1]
    check("(struct request *) %s " % req["value"] in prints[1]["text"] and req["type"] == "struct request *",
          "%s: a pointer is \"0x...\" with its type, as the text shows it (%r)" % (variant, req))
    want[1][1]["value"] = req["value"]
    nxt = prints[1]["args"][0]["value"]["next"]
    check(nxt is None if i % 2 == 0 else nxt.startswith("0x"),
          "%s: a pointer member is \"0x...\", null when NULL (n=%d: %r)" % (variant, i, nxt))
    want[1][0]["value"]["next"] = nxt
    eq([[arg(a) for a in p["args"]] for p in prints], want, "%s: typed values at n=%d" % (variant, i))
    eq([prints[1]["args"][0]["type"], prints[0]["args"][3]["type"], prints[3]["args"][1]["type"],
        prints[3]["args"][0]["type"], prints[5]["args"][0]["type"]],
       ["struct request", "enum color", "string", "const char *", "bytes"],
       "%s: types of a struct, an enum, a literal, a char pointer and a dump" % variant)
    eq(prints[0]["text"], "n=%d flag=%s letter=%d '%s' color=%s big=%d" % (
        i, "true" if i & 1 else "false", ord("a") + i % 26, chr(ord("a") + i % 26), COLORS[i % 3],
        i * 1000000007),
        "%s: the text beside the values" % variant)


for variant in ("O0", "O2", "clang-O0", "clang-O2"):
    check_variant(variant)
check_no_leftovers("after the JSON tests")
finish()
