/* status.c - lookups in the status and error-code tables (see status.h). */
#include "render/status.h"
#include "protocol/wire.h"

#include <string.h>

struct status_info {
	const char *label;
	enum span_tone tone;
	const char *explain;
	const char *fix;
};

static const struct status_info statuses[] = {
#define STATUS_ROW(code, label, tone, explain, fix) [code] = { label, tone, explain, fix },
	WR_BT_STATUS_TABLE(STATUS_ROW)
#undef STATUS_ROW
};

static const struct status_info errors[] = {
#define ERROR_ROW(code, label, explain) [code] = { label, SPAN_TONE_NONE, explain, NULL },
	WR_BT_ERROR_TABLE(ERROR_ROW)
#undef ERROR_ROW
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *bt_status_label(unsigned status)
{
	return status < N_OF(statuses) ? statuses[status].label : "unknown";
}

const char *bt_status_explain(unsigned status)
{
	return status < N_OF(statuses) ? statuses[status].explain : "a status this version does not know";
}

const char *bt_status_fix(unsigned status)
{
	return status < N_OF(statuses) ? statuses[status].fix : "upgrade wraith";
}

enum span_tone bt_status_tone(unsigned status)
{
	return status < N_OF(statuses) ? statuses[status].tone : SPAN_TONE_BAD;
}

const char *bt_error_label(unsigned error)
{
	return error < N_OF(errors) ? errors[error].label : "unknown";
}

const char *bt_error_explain(unsigned error)
{
	return error < N_OF(errors) ? errors[error].explain : "an error code this version does not know";
}

int bt_status_from_label(const char *label)
{
	for (unsigned i = 0; i < N_OF(statuses); i++)
		if (strcmp(statuses[i].label, label) == 0)
			return (int)i;
	return -1;
}
