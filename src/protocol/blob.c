/* blob.c - a BPF object in memory (see blob.h). */
#include "protocol/blob.h"

#include <stdlib.h>

void bpf_blob_release(struct bpf_blob *b)
{
	free(b->data);
	free(b->prog_name);
	b->data = NULL;
	b->prog_name = NULL;
	b->size = 0;
}
