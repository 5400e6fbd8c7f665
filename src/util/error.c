/* error.c - messages for wraith's error codes (see error.h). */
#include "util/error.h"

#include <string.h>

const char *wr_strerror(int err)
{
	static const char *const texts[] = {
#define WR_ERROR_TEXT(name, text) [name - WR_ERROR_BASE] = text,
		WR_ERROR_TABLE(WR_ERROR_TEXT)
#undef WR_ERROR_TEXT
	};
	int code = err < 0 ? -err : err;

	if (code > WR_EFIRST_ && code < WR_ELAST_)
		return texts[code - WR_ERROR_BASE];
	if (code == 0)
		return "success";
	return strerror(code);
}
