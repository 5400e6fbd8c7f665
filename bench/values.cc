// values.cc - the process bench/values.py traces: a std::vector<int> and a
// std::map<std::string, int> of argv[1] elements each (default 200),
// passed by reference to a function the probes print them at, about every
// 20 microseconds.  Prints "ready <pid>" once they are built.
#include <cstdio>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" __attribute__((noinline)) int wr_bench_vector(const std::vector<int> &v)
{
	asm volatile("" : : "r"(&v) : "memory");
	return (int)v.size();
}

extern "C" __attribute__((noinline)) int wr_bench_map(const std::map<std::string, int> &m)
{
	asm volatile("" : : "r"(&m) : "memory");
	return (int)m.size();
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	std::vector<int> v;
	std::map<std::string, int> m;
	char key[32];

	for (int i = 0; i < n; i++) {
		v.push_back(i);
		snprintf(key, sizeof(key), "key-%04d", i);
		m[key] = i;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		wr_bench_vector(v);
		wr_bench_map(m);
		usleep(20);
	}
}
