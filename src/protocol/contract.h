/* contract.h - the names the BPF templates define and userspace uses:
 * the entry points the code generator calls (with how many arguments), the
 * maps and programs runtime/ looks up in the base object, the wr_cfg_*
 * globals the generator fixes, and the names wraith gives what it makes
 * itself (the maps of each module's rows, its own programs).  The one
 * list: the templates check that they define each one (wraith.bpf.c),
 * codegen/ and runtime/ name them only through it, and no "wr_" string
 * stands anywhere else in src/, ui/ or bpf-templates/.
 *
 * Layer rule: like wire.h, included by the BPF templates (clang -target
 * bpf: the lists only) and by userspace (the lists, the enums and the
 * names in contract.c); depends on nothing.
 *
 * Each list is an X-macro: WR_ENTRY_POINTS(X) expands X(ID, name, arity)
 * once per entry point, the others X(ID, name).  The enums below number
 * them WR_FN_ID, WR_MAP_ID, WR_CFG_ID, WR_PROG_ID and WR_OWN_ID.
 */
#ifndef WRAITH_PROTOCOL_CONTRACT_H
#define WRAITH_PROTOCOL_CONTRACT_H

/* The template functions a probe calls (bpf-templates/), with the number
 * of parameters each takes. */
#define WR_ENTRY_POINTS(X)                      \
	X(EVENT_BEGIN, wr_event_begin, 2)       \
	X(EVENT_END, wr_event_end, 2)           \
	X(EVENT_DROP_EMPTY, wr_event_drop_empty, 1) \
	X(ITEM_OPEN, wr_item_open, 3)           \
	X(ITEM_CLOSE, wr_item_close, 2)         \
	X(ITEM_EMPTY, wr_item_empty, 3)         \
	X(ARG_SCALAR, wr_arg_scalar, 4)         \
	X(ARG_CSTR, wr_arg_cstr, 4)             \
	X(ARG_WSTR, wr_arg_wstr, 4)             \
	X(ARG_USER_BYTES, wr_arg_user_bytes, 4) \
	X(ARG_PIECES, wr_arg_pieces, 2)         \
	X(ARG_WORD, wr_arg_word, 5)             \
	X(READ_USER, wr_read_user, 3)           \
	X(READ_USER_STR, wr_read_user_str, 3)   \
	X(PROBE_COOKIE, wr_probe_cookie, 1)     \
	X(SITE_PARAMS, wr_site_params_of, 1)    \
	X(SITE_REG, wr_site_reg, 2)             \
	X(PID_TGID, wr_pid_tgid, 0)             \
	X(KTIME, wr_ktime, 0)                   \
	X(NS_PID_TGID, wr_ns_pid_tgid, 2)       \
	X(THREAD_POINTER, wr_thread_pointer, 1) \
	X(CMP_BUF, wr_cmp_buf, 0)               \
	X(MEM_EQUAL, wr_mem_equal, 4)           \
	X(EXPR_ERROR, wr_expr_error, 3)         \
	X(ARG_DUMP, wr_arg_dump, 4)             \
	X(BT, wr_bt, 5)                         \
	X(COUNT_BT, wr_count_bt, 6)             \
	X(WALK_OP, wr_walk_op, 6)               \
	X(WALK, wr_walk, 3)                     \
	X(WALK_PIECES, wr_walk_pieces, 3)       \
	X(ARG_STATIC, wr_arg_static, 5)

/* The maps of the base object, which every probe object shares. */
#define WR_MAPS(X)                          \
	X(RINGBUF, wr_ringbuf)              \
	X(PERFBUF, wr_perfbuf)              \
	X(EVENT, wr_event)                  \
	X(BT_STATE, wr_bt_state)            \
	X(CFI_ROWS, wr_cfi_rows)            \
	X(CFI_RULES, wr_cfi_rules)          \
	X(PROC_MAPS, wr_proc_maps)          \
	X(PROC_SLOT, wr_proc_slot)          \
	X(FRAME_CACHE, wr_frame_cache)      \
	X(PROGS, wr_progs)                  \
	X(STATS, wr_stats)                  \
	X(GATE, wr_gate)                    \
	X(STACK_COUNTS, wr_stack_counts)    \
	X(STACKS, wr_stacks)                \
	X(COUNT_SLOTS, wr_count_slots)      \
	X(SITE_PARAMS, wr_site_params)      \
	X(OUTER_SLOTS, wr_outer_slots)      \
	X(OUTER_INDEX, wr_outer_index)      \
	X(MEMBERS, wr_members)              \
	X(WATCH, wr_watch)

/* The globals that configure a template: fixed at build time per probe
 * template, or by the generator after lowering. */
#define WR_CONFIG(X)                        \
	X(TRANSPORT, wr_cfg_transport)      \
	X(FAULT_IN, wr_cfg_fault_in)        \
	X(HAS_BT, wr_cfg_has_bt)            \
	X(BT_SLOTS, wr_cfg_bt_slots)        \
	X(SENDS, wr_cfg_sends)

/* The programs of the base object. */
#define WR_PROGRAMS(X)                      \
	X(BT_STEP, wr_bt_step)              \
	X(OUTER_WALKS, wr_outer_walks)      \
	X(RING_WARM, wr_ring_warm)          \
	X(MEMBER_EXEC, wr_member_exec)      \
	X(MEMBER_FORK, wr_member_fork)      \
	X(MEMBER_EXIT, wr_member_exit)

/* What wraith names itself: each module's rules and rows maps (made by
 * runtime/, reached through wr_cfi_rules and wr_cfi_rows), the program
 * that tells whether the kernel loads sleepable uprobes, the one that
 * tells whether it makes multi-uprobe links (runtime/ulink.c), and the probe
 * functions the generator lowers only for a shape or for constants. */
#define WR_OWN_NAMES(X)                     \
	X(RULES_MAP, wr_rules)              \
	X(ROWS_MAP, wr_rows)                \
	X(FAULT_IN_CHECK, wr_fault_in)      \
	X(ULINK_CHECK, wr_ulink_probe)      \
	X(SHAPE_FN, wr_shape)               \
	X(EVAL_FN, wr_eval)

/* Every template function whose name starts so is an entry point or a
 * template global, made internal to each probe (codegen.c). */
#define WR_NAME_PREFIX "wr_"
/* A probe program's name: wr<pid>_<probe id> (printf format), zero-padded
 * to one width (15 characters, the kernel's limit, for any pid up to
 * 2^22 and probe id up to 99999): an object from the probe cache carries
 * the name of the run that compiled it, which is replaced in place, and a
 * name can take a name's place only if it is no longer. */
#define WR_PROBE_NAME_FMT "wr%07d_%05u"

enum wr_entry_point {
#define WR_X_(id, name, n) WR_FN_##id,
	WR_ENTRY_POINTS(WR_X_)
#undef WR_X_
	WR_FN_COUNT_
};
enum wr_map_id {
#define WR_X_(id, name) WR_MAP_##id,
	WR_MAPS(WR_X_)
#undef WR_X_
	WR_MAP_COUNT_
};
enum wr_config_id {
#define WR_X_(id, name) WR_CFG_##id,
	WR_CONFIG(WR_X_)
#undef WR_X_
	WR_CFG_COUNT_
};
enum wr_program_id {
#define WR_X_(id, name) WR_PROG_##id,
	WR_PROGRAMS(WR_X_)
#undef WR_X_
	WR_PROG_COUNT_
};
enum wr_own_name {
#define WR_X_(id, name) WR_OWN_##id,
	WR_OWN_NAMES(WR_X_)
#undef WR_X_
	WR_OWN_COUNT_
};

#ifndef __bpf__
/* Userspace: the names as strings (contract.c). */
struct wr_entry {
	const char *name;
	unsigned n_params;
};
extern const struct wr_entry wr_entry_points[WR_FN_COUNT_];
extern const char *const wr_map_names[WR_MAP_COUNT_];
extern const char *const wr_config_names[WR_CFG_COUNT_];
extern const char *const wr_program_names[WR_PROG_COUNT_];
extern const char *const wr_own_names[WR_OWN_COUNT_];
#endif

#endif
