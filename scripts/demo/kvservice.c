/* kvservice.c - wraith's bundled demo: a tiny in-memory key-value "service"
 * that serves a stream of generated requests forever.  Built -O2
 * -fomit-frame-pointer like a production binary, so a frame-pointer walker
 * cannot unwind it and wraith's CFI unwinder can.
 *
 * Request path: main -> serve_forever -> handle_request -> do_get / do_put
 *               -> store_lookup / store_insert -> hash_key
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 64

struct entry {
	char key[32];
	long value;
	struct entry *next;
};

struct request {
	int op; /* 0 get, 1 put */
	char key[32];
	long value;
};

static struct entry *table[BUCKETS];
static unsigned long served;

__attribute__((noinline)) unsigned hash_key(const char *key)
{
	unsigned h = 2166136261u;

	while (*key)
		h = (h ^ (unsigned char)*key++) * 16777619u;
	return h % BUCKETS;
}

__attribute__((noinline)) struct entry *store_lookup(const char *key)
{
	struct entry *e = table[hash_key(key)];

	while (e && strcmp(e->key, key) != 0)
		e = e->next;
	return e;
}

__attribute__((noinline)) void store_insert(const char *key, long value)
{
	struct entry *e = store_lookup(key);
	unsigned h;

	if (e) {
		e->value = value;
		return;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->value = value;
	h = hash_key(key);
	e->next = table[h];
	table[h] = e;
}

__attribute__((noinline)) long do_get(const struct request *r)
{
	struct entry *e = store_lookup(r->key);

	return e ? e->value : -1;
}

__attribute__((noinline)) long do_put(const struct request *r)
{
	store_insert(r->key, r->value);
	return r->value;
}

__attribute__((noinline)) long handle_request(const struct request *r)
{
	long result = r->op ? do_put(r) : do_get(r);

	served++;
	return result;
}

static void next_request(struct request *r, unsigned long n)
{
	r->op = (n % 3) == 0;
	snprintf(r->key, sizeof(r->key), "user:%lu", n % 17);
	r->value = (long)(n * 7);
}

__attribute__((noinline)) void serve_forever(long interval_us)
{
	struct request r;

	for (unsigned long n = 0;; n++) {
		next_request(&r, n);
		handle_request(&r);
		if (interval_us > 0)
			usleep((useconds_t)interval_us);
	}
}

int main(int argc, char **argv)
{
	long interval = argc > 1 ? atol(argv[1]) : 200000;

	printf("kvservice: pid %d, one request every %ld us\n", (int)getpid(), interval);
	fflush(stdout);
	serve_forever(interval);
	return 0;
}
