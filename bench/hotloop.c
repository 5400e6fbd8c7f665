/* hotloop.c - the per-hit cost fixture: a probed function called N times in
 * a tight loop from the bottom of a deep call stack.
 *
 * Built -O2 -fomit-frame-pointer, so a frame-pointer unwinder cannot walk
 * it and a DWARF one must.  argv[1] is the recursion depth D (the loop runs
 * D + 3 frames below main, so `bt` at depth 128 needs D >= 125); any
 * further arguments are shared libraries to dlopen() first, to give the
 * process a large library to index.  The program prints "ready PID", then
 * serves commands from stdin, one a line, each answered "ns WALL CPU": the
 * wall time (CLOCK_MONOTONIC) and this thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID, kernel time in uprobe handlers included, time
 * the thread was preempted excluded) of its loop, in nanoseconds:
 *   run N        call wr_bench_hot() N times as fast as possible;
 *   pace N RATE  call it N times at RATE calls per second (busy-waiting
 *                between calls, so the offered rate is steady);
 *   sys N        make N getppid() system calls (what a kernel entry costs);
 *   chain N      call wr_chain1_0() N times: a call chain through three
 *                shared libraries (bench/chainlib.c), which must be among
 *                the libraries given;
 *   solo N       call wr_bench_solo() N times: one site of its own;
 *   twin N       run wr_bench_twin() N times, alternately at the two places
 *                it is inlined: a probe of two sites, each hit N / 2 times
 *                (the same body as wr_bench_solo, so the two compare);
 *   quit         exit.
 * One process serves every round, so untraced and traced rounds run
 * against the same address space and the same stack.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

volatile long wr_bench_sink;
/* A string a probe can print (the --fault-in section): resident, like most. */
const char *volatile wr_bench_text = "a resident string";

__attribute__((noipa)) long wr_bench_leaf(long x)
{
	return x ^ wr_bench_sink;
}

/* The probed function: noinline and global so every tool finds it by name.
 * It calls a leaf so that, like most real functions, it opens with a push
 * (uprobes emulate push; a RIP-relative first instruction would be
 * single-stepped out of line, which costs about three times as much). */
__attribute__((noinline)) void wr_bench_hot(long x)
{
	long r = wr_bench_leaf(x);

	wr_bench_sink += r + x;
}

/* The multi-site case: the same body inlined at two call sites (a probe
 * of two sites), against a noinline copy of it (a probe of one). */
static inline __attribute__((always_inline)) void wr_bench_twin(long x)
{
	long r = wr_bench_leaf(x);

	wr_bench_sink += r + x;
}

__attribute__((noinline)) void wr_bench_solo(long x)
{
	long r = wr_bench_leaf(x);

	wr_bench_sink += r + x;
}

static long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of the last loop(), in nanoseconds. */
static long loop_cpu_ns;

/* "chain N": the first function of the chain through three libraries. */
static long (*chain_fn)(long);

/* The loop of one command, at the bottom of the stack.  @rate 0 means
 * as fast as possible; @rate -1 means system calls instead, -2 the
 * chain's first function, -3 wr_bench_solo(), -4 wr_bench_twin(). */
__attribute__((noinline)) static long loop(long n, long rate)
{
	long c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), t0 = now_ns(), next = t0, t1;

	if (rate == -2) {
		for (long i = 0; i < n; i++)
			chain_fn(i);
	} else if (rate == -3) {
		for (long i = 0; i < n; i++)
			wr_bench_solo(i);
	} else if (rate == -4) {
		for (long i = 0; i + 1 < n; i += 2) {
			wr_bench_twin(i);
			wr_bench_twin(i + 1);
		}
	} else if (rate < 0) {
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else if (rate == 0) {
		for (long i = 0; i < n; i++)
			wr_bench_hot(i);
	} else {
		for (long i = 0; i < n; i++) {
			while (now_ns() < next)
				;
			next += 1000000000L / rate;
			wr_bench_hot(i);
		}
	}
	t1 = now_ns();
	loop_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	return t1 - t0;
}

/* One real frame per level: the work after the call keeps it from being a
 * tail call, the volatile keeps the recursion from becoming a loop. */
__attribute__((noinline)) long wr_bench_descend(int depth, long n, long rate)
{
	long r;

	if (depth == 0)
		return loop(n, rate);
	r = wr_bench_descend(depth - 1, n, rate);
	wr_bench_sink += depth;
	return r;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 140;
	char line[128];
	long n, rate, wall;

	for (int i = 2; i < argc; i++) {
		if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL)) {
			fprintf(stderr, "hotloop: %s\n", dlerror());
			return 1;
		}
	}
	chain_fn = (long (*)(long))dlsym(RTLD_DEFAULT, "wr_chain1_0");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "run %ld", &n) == 1 && n > 0)
			rate = 0;
		else if (sscanf(line, "pace %ld %ld", &n, &rate) == 2 && n > 0 && rate > 0)
			;
		else if (sscanf(line, "sys %ld", &n) == 1 && n > 0)
			rate = -1;
		else if (sscanf(line, "chain %ld", &n) == 1 && n > 0 && chain_fn)
			rate = -2;
		else if (sscanf(line, "solo %ld", &n) == 1 && n > 0)
			rate = -3;
		else if (sscanf(line, "twin %ld", &n) == 1 && n > 1)
			rate = -4;
		else if (strncmp(line, "quit", 4) == 0)
			break;
		else {
			printf("error %s", line);
			continue;
		}
		wall = wr_bench_descend(depth, n, rate);
		printf("ns %ld %ld\n", wall, loop_cpu_ns);
	}
	return 0;
}
