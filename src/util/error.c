/* error.c - messages for wraith's error codes (see error.h). */
#include "util/error.h"

#include <string.h>

/* Codes the kernel returns from inside (include/linux/errno.h), which
 * strerror() knows no text for. */
static const char *kernel_internal(int code)
{
	switch (code) {
	case 512: case 513: case 514: case 516:
		return "interrupted by a signal";
	case 515:
		return "not supported by this device";
	case 517:
		return "a driver it needs is not ready";
	case 524:
		return "not supported by the kernel";
	case 525:
		return "buffer too small";
	case 527:
		return "type not supported by the kernel";
	default:
		return NULL;
	}
}

const char *wr_strerror(int err)
{
	static const char *const texts[] = {
#define WR_ERROR_TEXT(name, text) [name - WR_ERROR_BASE] = text,
		WR_ERROR_TABLE(WR_ERROR_TEXT)
#undef WR_ERROR_TEXT
	};
	int code = err < 0 ? -err : err;
	const char *text;

	if (code > WR_EFIRST_ && code < WR_ELAST_)
		return texts[code - WR_ERROR_BASE];
	if (code == 0)
		return "success";
	text = kernel_internal(code);
	if (text)
		return text;
	text = strerror(code);
	/* glibc's text for a code it does not know carries the number */
	return strncmp(text, "Unknown error", 13) == 0 ? "an error the kernel gave no name" : text;
}
