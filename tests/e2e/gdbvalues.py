"""gdbvalues.py - gdb's `print` as the oracle of values: the values gdb
prints for expressions at a function of a live process, and gdb's text of
a value turned into wraith's shape ({x = 7} -> {x: 7}, an array's {1, 2}
-> [1, 2]), for values.py and casts.py."""
import os
import re
import subprocess


def gdb_values(pid, exprs, where="show", settings=(), locale="C"):
    cmds = ["set pagination off", "set width 0", "set print pretty off", *settings, "break " + where, "continue"]
    for i, e in enumerate(exprs):
        cmds += ["echo @@%d\\n" % i, "print %s" % e]
    cmds += ["echo @@end\\n", "detach"]
    argv = ["gdb", "-batch", "-nx", "-p", str(pid)]
    for c in cmds:
        argv += ["-ex", c]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, LANG=locale, LC_ALL=locale)).stdout
    values, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^@@(\d+|end)$", line)
        if m:
            cur = None if m.group(1) == "end" else int(m.group(1))
            continue
        m = re.match(r"^\$\d+ = (.*)$", line)
        if m and cur is not None:
            values[cur] = m.group(1)
    return [values.get(i) for i in range(len(exprs))]


def _quoted_end(s, i):
    q, j = s[i], i + 1
    while j < len(s) and s[j] != q:
        j += 2 if s[j] == "\\" else 1
    return j + 1


def _scalar_end(s, i):
    """End of a value that is not a brace: up to a ',' or '}' outside
    quotes, parentheses and angle brackets."""
    depth = 0
    while i < len(s):
        c = s[i]
        if c in "\"'":
            i = _quoted_end(s, i)
            continue
        if c in "(<":
            depth += 1
        elif c in ")>":
            depth -= 1
        elif c in ",}" and depth == 0:
            break
        i += 1
    return i


def _braces(s, i):
    """gdb's {...} at s[i] in wraith's shape: {a: 1} for a struct (its items
    are named), [1, 2] for an array."""
    items, i = [], i + 1
    while i < len(s) and s[i] != "}":
        m = re.match(r"((?:static )?\w+|<[^>]+>) = ", s[i:])
        name = None
        if m:
            name, i = m.group(1), i + m.end()
        if s[i] == "{":
            text, i = _braces(s, i)
        else:
            end = _scalar_end(s, i)
            text, i = s[i:end], end
        items.append((name, text))
        if s.startswith(", ", i):
            i += 2
    named = any(n for n, _ in items)
    body = ", ".join(("%s: %s" % (n, t)) if n else t for n, t in items)
    return ("{%s}" if named or s.startswith("{...}", i - 4) else "[%s]") % body, i + 1


def normalize(value):
    """gdb's text of a value in wraith's shape."""
    out, i = [], 0
    while i < len(value):
        if value[i] == "{" and not re.match(r"\{\w[^}]*\} 0x", value[i:]):
            text, i = _braces(value, i)
            out.append(text)
        elif value[i] in "\"'":
            end = _quoted_end(value, i)
            out.append(value[i:end])
            i = end
        else:
            out.append(value[i])
            i += 1
    return "".join(out)
