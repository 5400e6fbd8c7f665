"""json_utf8.py - NDJSON is always valid UTF-8: a raw 0xff byte in a
print format literal and bytes that are not UTF-8 in a string read from
the target come out as \\xNN, and every line passes a strict UTF-8 decode
and a JSON parse.  The target is a small program the test compiles."""
import json
import re
import os
import shutil
import subprocess
import tempfile

from wraithtest import *

require_root()
top = tempfile.mkdtemp(prefix="wraith-utf8-")
src = os.path.join(top, "bytes.c")
with open(src, "w") as f:
    f.write(r'''#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) void take(const char *s, int i)
{
	asm volatile("" ::: "memory");
	(void)s, (void)i;
}
int main(void)
{
	static char bad[] = "bad\xff\xfe caf\xc3\xa9 \xe2\x82";
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (int i = 0;; i++) {
		take(bad, i);
		usleep(20000);
	}
}
''')
prog = os.path.join(top, "bytes")
subprocess.run(["gcc", "-g", "-O0", "-o", prog, src], check=True)
fx = Fixture(prog)
script = os.path.join(top, "bytes.ws")
with open(script, "wb") as f:
    f.write(b'trace take { print "fmt\xff\xc3\xa9 {} {:s} {}", s, s, i; }\n')
r = subprocess.run([WRAITH, "-p", str(fx.pid), "--script-file", script, "--script-output", "json",
                    "--max-events", "3", "-q"], capture_output=True, timeout=60,
                   env=dict(os.environ, LANG="C", LC_ALL="C"))
eq(r.returncode, 0, "wraith ran (%r)" % r.stderr[-300:])
try:
    text = r.stdout.decode("utf-8", errors="strict")
    check(True, "the NDJSON output is valid UTF-8")
except UnicodeDecodeError as e:
    text = ""
    fail("the NDJSON output is valid UTF-8: %s" % e)
lines = text.splitlines()
eq(len(lines), 3, "three events")
for line in lines:
    ev = json_line(line)
    got = ev["items"][0]["text"]
    # {} shows the char * as gdb does (address, symbol, the string with
    # octal escapes); {:s} writes its bytes, which the JSON writer escapes
    want = (r'fmt\\xff\u00e9 0x[0-9a-f]+ <[^>]*> "bad\\377\\376 caf\\303\\251 \\342\\202" '
            r'bad\\xff\\xfe caf\u00e9 \\xe2\\x82 ')
    check(re.match(want, got) is not None, "bytes that are not UTF-8 read as \\xNN, UTF-8 passes (%r)" % got)
# in a UTF-8 locale {} shows the string's printable characters as
# themselves, as gdb does there, and marks the sequence it ends in
r = subprocess.run([WRAITH, "-p", str(fx.pid), "--script-file", script, "--script-output", "json",
                    "--max-events", "1", "-q"], capture_output=True, timeout=60,
                   env=dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8"))
lines = r.stdout.decode("utf-8", errors="replace").splitlines()
got = json_line(lines[0])["items"][0]["text"] if lines else repr(r.stderr[-300:])
check(re.match(r'fmt\\xff\u00e9 0x[0-9a-f]+ <[^>]*> "bad\\377\\376 caf\u00e9 ", '
               r'<incomplete sequence \\342\\202> ', got) is not None,
      "in a UTF-8 locale {} shows the string's characters as themselves (%r)" % got)
fx.stop()
shutil.rmtree(top, ignore_errors=True)
check_no_leftovers("json_utf8")
finish()
