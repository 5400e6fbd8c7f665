/* contract.c - the names of contract.h as strings, for userspace. */
#include "protocol/contract.h"

const struct wr_entry wr_entry_points[WR_FN_COUNT_] = {
#define WR_X_(id, name, n) [WR_FN_##id] = { #name, n },
	WR_ENTRY_POINTS(WR_X_)
#undef WR_X_
};

const char *const wr_map_names[WR_MAP_COUNT_] = {
#define WR_X_(id, name) [WR_MAP_##id] = #name,
	WR_MAPS(WR_X_)
#undef WR_X_
};

const char *const wr_config_names[WR_CFG_COUNT_] = {
#define WR_X_(id, name) [WR_CFG_##id] = #name,
	WR_CONFIG(WR_X_)
#undef WR_X_
};

const char *const wr_program_names[WR_PROG_COUNT_] = {
#define WR_X_(id, name) [WR_PROG_##id] = #name,
	WR_PROGRAMS(WR_X_)
#undef WR_X_
};

const char *const wr_own_names[WR_OWN_COUNT_] = {
#define WR_X_(id, name) [WR_OWN_##id] = #name,
	WR_OWN_NAMES(WR_X_)
#undef WR_X_
};
