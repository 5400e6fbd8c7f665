/* blob.c - a BPF object in memory (see blob.h). */
#include "protocol/blob.h"

#include <stdlib.h>

void bpf_blob_release(struct bpf_blob *b)
{
	free(b->data);
	free(b->prog_name);
	free(b->site_params);
	b->data = NULL;
	b->prog_name = NULL;
	b->site_params = NULL;
	b->n_site_params = 0;
	b->site_table = false;
	b->size = 0;
}
