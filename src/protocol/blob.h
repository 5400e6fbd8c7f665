/* blob.h - a BPF ELF object in memory: what the code generator produces
 * and the runtime loads.
 *
 * Layer rule: protocol/, beside the wire format and the contract: what
 * crosses to the kernel, shared by the stage that makes it (codegen/
 * fills blobs) and the one that loads it (runtime/ reads them), neither
 * of which includes the other.  Depends on nothing.
 */
#ifndef WRAITH_PROTOCOL_BLOB_H
#define WRAITH_PROTOCOL_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where codegen/ got a probe's object (for -v): runtime/ does not care. */
enum bpf_blob_origin {
	BPF_BLOB_COMPILED,   /* optimised and emitted now */
	BPF_BLOB_SHAPE,      /* a copy of an earlier probe's object of the same shape */
	BPF_BLOB_DISK_CACHE, /* read from the probe cache on disk (codegen/probe_cache.h) */
};

struct bpf_blob {
	void *data;      /* owned ELF object bytes */
	size_t size;
	char *prog_name; /* owned: name of the probe program in the object (NULL for base) */
	enum bpf_blob_origin origin;
	/* A program that reads its site's data (a site table, codegen/plan.h):
	 * this site's values, written into the entry of the site's wire id
	 * (wire.h: struct wr_site_params) before it is attached.  Owned. */
	uint64_t *site_params;
	unsigned n_site_params;
	bool site_table; /* the program reads its site's entry (even an empty one) */
};

/* Free what @b owns and empty it; an empty blob is a no-op. */
void bpf_blob_release(struct bpf_blob *b);

#endif
