/* maps.c - reading what /proc tells about a process: its memory mappings
 * (which file is mapped where, so a probe address can be turned into a
 * runtime address and back), its executable and name, and whether a PID is
 * something we can trace at all.
 *
 * The maps parser is strict: every field of a line must be there and well
 * formed, because a line we misread would put a uprobe at a wrong address.
 * Paths are taken verbatim to the end of the line (they may contain
 * spaces); only the kernel's " (deleted)" suffix is split off into a flag.
 */
#include "proc/maps.h"

#include "util/error.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000u
#define DELETED_SUFFIX " (deleted)"

/* Reads a number of at least one digit in @base (16 or 10) at *p. */
static bool parse_num(const char **p, unsigned base, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d;

	while ((d = hex_digit_value(*s)) >= 0 && (unsigned)d < base) {
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return false;
		v = v * base + (uint64_t)d;
		s++;
	}
	if (s == *p)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool expect(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

static bool parse_perms(const char **p, char perms[5])
{
	const char *s = *p;

	if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 'p' && s[3] != 's'))
		return false;
	memcpy(perms, s, 4);
	perms[4] = '\0';
	*p = s + 4;
	return true;
}

static void set_path(struct proc_mapping *m, const char *s, size_t len)
{
	size_t suffix = strlen(DELETED_SUFFIX);

	if (len > suffix && memcmp(s + len - suffix, DELETED_SUFFIX, suffix) == 0) {
		m->deleted = true;
		len -= suffix;
	}
	m->path = xstrndup(s, len);
}

/* One line without its newline: "start-end perms offset maj:min inode [path]". */
static int parse_line(const char *s, size_t len, struct proc_mapping *m)
{
	const char *end = s + len;
	uint64_t major, minor;

	memset(m, 0, sizeof(*m));
	if (!parse_num(&s, 16, &m->start) || !expect(&s, '-') || !parse_num(&s, 16, &m->end) ||
	    !expect(&s, ' ') || !parse_perms(&s, m->perms) || !expect(&s, ' ') ||
	    !parse_num(&s, 16, &m->offset) || !expect(&s, ' ') || !parse_num(&s, 16, &major) ||
	    !expect(&s, ':') || !parse_num(&s, 16, &minor) || !expect(&s, ' ') ||
	    !parse_num(&s, 10, &m->inode))
		return -WR_EPROTO;
	if (s > end || m->end < m->start || major > UINT32_MAX || minor > UINT32_MAX)
		return -WR_EPROTO;
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;
	if (s < end && *s != ' ')
		return -WR_EPROTO;
	while (s < end && *s == ' ')
		s++;
	set_path(m, s, (size_t)(end - s));
	return 0;
}

int proc_maps_parse(const char *text, struct proc_maps *out)
{
	const char *line = text;
	int err = 0;

	memset(out, 0, sizeof(*out));
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > 0) {
			out->v = xgrow(out->v, &out->cap, out->n + 1, sizeof(*out->v));
			err = parse_line(line, len, &out->v[out->n]);
			if (err)
				goto out_release;
			out->n++;
		}
		line += len + (nl ? 1 : 0);
	}
	return 0;

out_release:
	proc_maps_release(out);
	return err;
}

int proc_maps_read(pid_t pid, struct proc_maps *out)
{
	char path[64];
	char *text;
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	err = file_read(path, &text, NULL);
	if (err)
		return err;
	err = proc_maps_parse(text, out);
	free(text);
	return err;
}

void proc_maps_release(struct proc_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

bool proc_mapping_is_code(const struct proc_mapping *m)
{
	if (m->perms[2] != 'x' || !m->path || m->path[0] == '\0')
		return false;
	/* [vdso], [vsyscall], [uprobes] and friends have no file to read
	 * symbols from or to attach a uprobe to. */
	return m->path[0] != '[';
}

int proc_exe_path(pid_t pid, char **out)
{
	char link[64];
	size_t cap = 256;
	char *buf = NULL;

	*out = NULL;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	for (;;) {
		ssize_t r;

		buf = xrealloc(buf, cap);
		r = readlink(link, buf, cap);
		if (r < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if ((size_t)r < cap) {
			buf[r] = '\0';
			break;
		}
		cap *= 2;
	}
	*out = buf;
	return 0;
}

int proc_tgid(pid_t tid, pid_t *tgid)
{
	char path[64], *text, *line;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	err = file_read(path, &text, NULL);
	if (err)
		return err;
	line = strstr(text, "\nTgid:");
	err = line ? 0 : -WR_EPROTO;
	if (line)
		*tgid = (pid_t)strtol(line + strlen("\nTgid:"), NULL, 10);
	free(text);
	return err;
}

bool proc_thread_alive(pid_t tgid, pid_t tid)
{
	char path[64], *text = NULL;
	const char *p;
	bool alive;

	/* The state is the third field of stat, after "(comm)". */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tgid, (int)tid);
	if (file_read(path, &text, NULL))
		return false;
	p = strrchr(text, ')');
	alive = p && p[1] == ' ' && p[2] && p[2] != 'Z' && p[2] != 'X';
	free(text);
	return alive;
}

int proc_comm(pid_t pid, char **out)
{
	char path[64];
	size_t len;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	err = file_read(path, out, NULL);
	if (err)
		return err;
	len = strlen(*out);
	if (len > 0 && (*out)[len - 1] == '\n')
		(*out)[len - 1] = '\0';
	return 0;
}

/* State (field 3) and flags (field 9) of /proc/PID/stat.  The command name
 * (field 2) may hold spaces and parentheses, so fields are counted from the
 * last ')'. */
static int read_stat(pid_t pid, char *state, uint64_t *flags)
{
	char path[64];
	const char *p;
	char *text, *end9;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	err = file_read(path, &text, NULL);
	if (err)
		return err;
	err = -WR_EPROTO;
	p = strrchr(text, ')');
	if (!p || p[1] != ' ' || !p[2])
		goto out_free;
	*state = p[2];
	p += 3;
	for (int field = 4; field < 9; field++) {
		char *end;

		strtoll(p, &end, 10);
		if (end == p)
			goto out_free;
		p = end;
	}
	*flags = strtoull(p, &end9, 10);
	if (end9 == p)
		goto out_free;
	err = 0;

out_free:
	free(text);
	return err;
}

/* The fallback test for a kernel thread: no executable and no mappings. */
static bool looks_like_kthread(pid_t pid)
{
	char *exe = NULL, *maps = NULL;
	char path[64];
	bool kthread = false;
	int err;

	err = proc_exe_path(pid, &exe);
	free(exe);
	if (err != -ENOENT)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (file_read(path, &maps, NULL) == 0)
		kthread = maps[0] == '\0';
	free(maps);
	return kthread;
}

int proc_check_pid(pid_t pid)
{
	char path[64];
	struct stat st;
	uint64_t flags = 0;
	char state = 0;
	int err;

	if (pid <= 0)
		return -WR_ENOPROC;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) != 0)
		return errno == ENOENT ? -WR_ENOPROC : -errno;
	err = read_stat(pid, &state, &flags);
	if (err == -ENOENT || err == -ESRCH)
		return -WR_ENOPROC;
	if (err == 0 && (flags & PF_KTHREAD))
		return -WR_EKTHREAD;
	/* A zombie has lost its address space as well; it is not a kernel
	 * thread, and there is nothing left to trace. */
	if (err == 0 && (state == 'Z' || state == 'X'))
		return -ESRCH;
	if (looks_like_kthread(pid))
		return -WR_EKTHREAD;
	return 0;
}
