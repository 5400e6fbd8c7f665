"""memberprog.py - the programs of the -t PROGRAM tests (target_members.py,
target_needed.py), built by gcc and clang-19 into one directory of the
test's own: `prog-gcc` and `prog-clang` call lib_fn() in libmember.so, the
same file for both, found through $ORIGIN (gcc's with DT_RPATH, clang's
with DT_RUNPATH), and usleep() (clock_nanosleep in libc).  A SIGUSR1 makes
a program fork (the child prints "child <pid>" and goes on alike), a
SIGUSR2 exec() /bin/sleep.  argv: microseconds between rounds, rounds
(default: for ever); it prints "ready <pid>" first and "done" after the
last round, then waits to be killed (wraith still reads its mappings)."""
import os
import shutil
import subprocess

PROG = r'''
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int lib_fn(int x);
static volatile sig_atomic_t fork_now, exec_now;

static void on_usr1(int sig) { (void)sig; fork_now = 1; }
static void on_usr2(int sig) { (void)sig; exec_now = 1; }

__attribute__((noinline)) int work(int x)
{
	int r = lib_fn(x);

	asm volatile("" ::: "memory");
	return r;
}

int main(int argc, char **argv)
{
	long interval = argc > 1 ? atol(argv[1]) : 1000;
	long rounds = argc > 2 ? atol(argv[2]) : -1;

	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (long i = 0; rounds < 0 || i < rounds; i++) {
		if (fork_now) {
			fork_now = 0;
			if (fork() == 0) {
				printf("child %d\n", (int)getpid());
				fflush(stdout);
			}
		}
		if (exec_now)
			execl("/bin/sleep", "sleep", "60", (char *)NULL);
		work((int)i);
		usleep((useconds_t)interval);
	}
	printf("done\n");
	fflush(stdout);
	for (;;)
		pause();
}
'''

LIB = r'''
__attribute__((noinline)) int lib_fn(int x)
{
	asm volatile("" ::: "memory");
	return 3 * x + 1;
}
'''

COMPILERS = {"gcc": ("gcc", "-Wl,--disable-new-dtags"), "clang": ("clang-19", "-Wl,--enable-new-dtags")}


def build(where):
    """Build the library and both programs in @where; {"gcc": path,
    "clang": path} (clang's left out when clang-19 is missing)."""
    os.makedirs(where, exist_ok=True)
    with open(os.path.join(where, "prog.c"), "w") as f:
        f.write(PROG)
    with open(os.path.join(where, "libmember.c"), "w") as f:
        f.write(LIB)
    subprocess.run(["gcc", "-g", "-O2", "-fPIC", "-shared", "-Wl,-soname,libmember.so", "-o",
                    os.path.join(where, "libmember.so"), os.path.join(where, "libmember.c")], check=True)
    progs = {}
    for name, (cc, tags) in COMPILERS.items():
        if not shutil.which(cc):
            continue
        out = os.path.join(where, "prog-" + name)
        subprocess.run([cc, "-g", "-O2", "-o", out, os.path.join(where, "prog.c"),
                        "-L" + where, "-lmember", "-Wl,-rpath,$ORIGIN", tags], check=True)
        progs[name] = out
    return progs


def private_libc(where):
    """Put a copy of libc.so.6 in @where, beside the programs, which then
    load it through $ORIGIN (before the linker's cache), and return an
    environment that makes any other program load it too (/bin/sleep
    after an exec()).  A probe -t places in a library it does not own is
    a uprobe on the file for every process: on the system's libc it would
    mark every process started meanwhile as having uprobes, and the
    kernel then writes the original instruction back over a breakpoint
    at any address whose uprobe goes away in such a process - a gdb run by
    another test (tests run side by side) loses its breakpoint."""
    shutil.copy(os.path.realpath("/lib/x86_64-linux-gnu/libc.so.6"), os.path.join(where, "libc.so.6"))
    return dict(os.environ, LD_LIBRARY_PATH=where)


def maps_private_libc(pid, where):
    """Does process @pid map the copy of libc in @where?"""
    with open("/proc/%d/maps" % pid) as f:
        return os.path.join(where, "libc.so.6") in f.read()


def functions(ev):
    """The function names of an event's backtrace (its second item)."""
    return [f.get("function") for f in ev["items"][1]["frames"]]
