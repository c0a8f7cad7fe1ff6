/*
 * rt_dwarf.c - the DWARF line-number program (.debug_line), versions 2 to
 * 5, run into a sorted table of (address, file, line): what a site of an
 * instrumented program shows as file:line.
 *
 * Follows DWARF 5 (dwarf.org, 2017), section 6.2 "Line Number
 * Information": the unit header (6.2.4, with the entry formats of 6.2.4.1
 * for version 5), the state machine (6.2.2) and its standard, extended
 * and special opcodes (6.2.5). The bytes come from the executable's file,
 * which the user built: still, every read is bounds-checked and a
 * malformed unit is skipped, never trusted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t u(struct cursor *c, unsigned n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return v;
}

static int64_t sleb(struct cursor *c)
{
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0x80;

	while (c->p < c->end && (b & 0x80)) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
	}
	if (b & 0x80)
		c->bad = true;
	else if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

static const char *cstr(struct cursor *c)
{
	const uint8_t *s = c->p;

	while (c->p < c->end && *c->p)
		c->p++;
	if (c->p == c->end) {
		c->bad = true;
		return "";
	}
	c->p++;
	return (const char *)s;
}

/* ------------------------------------------------------------ tables */

static size_t cap_lines, cap_files;

/* A line table's file: its name, under its directory, under the unit's
 * compilation directory (base) when that directory is relative (DWARF 5,
 * 6.2.4.1: include directories other than 0 may be relative to it; clang
 * writes a #line path under the build tree so). */
static uint32_t add_file(const char *base, const char *dir, const char *name)
{
	char path[4096];

	if (name[0] == '/' || !dir || !dir[0])
		snprintf(path, sizeof(path), "%s", name);
	else if (dir[0] != '/' && base && base[0] == '/' && dir != base)
		snprintf(path, sizeof(path), "%s/%s/%s", base, dir, name);
	else
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (size_t i = rt_img.nr_files; i-- > 0;)
		if (!strcmp(rt_img.files[i], path))
			return (uint32_t)i;
	if (rt_img.nr_files == cap_files) {
		size_t cap = cap_files ? cap_files * 2 : 64;
		char **f = realloc(rt_img.files, cap * sizeof(*f));
		if (!f)
			return UINT32_MAX;
		rt_img.files = f;
		cap_files = cap;
	}
	char *copy = strdup(path);
	if (!copy)
		return UINT32_MAX;
	rt_img.files[rt_img.nr_files] = copy;
	return (uint32_t)rt_img.nr_files++;
}

static void add_row(uint64_t addr, uint32_t file, uint32_t line)
{
	if (rt_img.nr_lines == cap_lines) {
		size_t cap = cap_lines ? cap_lines * 2 : 4096;
		struct rt_line *l = realloc(rt_img.lines, cap * sizeof(*l));
		if (!l)
			return;
		rt_img.lines = l;
		cap_lines = cap;
	}
	struct rt_line *r = &rt_img.lines[rt_img.nr_lines++];
	r->addr = rt_img.bias + addr;
	r->file = file;
	r->line = line;
}

static int by_addr(const void *a, const void *b)
{
	const struct rt_line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address a real row wins over the end of another sequence */
	return (x->line == 0) - (y->line == 0);
}

/* ------------------------------------------------------- one unit */

enum {
	DW_LNCT_path = 1,
	DW_LNCT_directory_index = 2,
	DW_FORM_block = 0x09, DW_FORM_block1 = 0x0a, DW_FORM_data1 = 0x0b, DW_FORM_data2 = 0x05,
	DW_FORM_data4 = 0x06, DW_FORM_data8 = 0x07, DW_FORM_data16 = 0x1e,
	DW_FORM_string = 0x08, DW_FORM_strp = 0x0e, DW_FORM_udata = 0x0f,
	DW_FORM_line_strp = 0x1f, DW_FORM_strx = 0x1a, DW_FORM_strx1 = 0x25,
	DW_FORM_strx2 = 0x26, DW_FORM_strx4 = 0x28,
};

struct unit {
	unsigned version, offset_size;
	const uint8_t *line_str;
	size_t line_str_len;
	const char *dirs[256];
	unsigned nr_dirs;
	uint32_t *files;       /* unit file index -> rt_img.files */
	unsigned nr_files;
};

/* One attribute value of a version 5 directory or file entry: a string
 * (*s) or a number (*v); false for a form we cannot read. */
static bool form_value(struct cursor *c, struct unit *un, uint64_t form, const char **s,
		       uint64_t *v)
{
	*s = NULL;
	*v = 0;
	switch (form) {
	case DW_FORM_string: *s = cstr(c); return true;
	case DW_FORM_line_strp: {
		uint64_t off = u(c, un->offset_size);
		if (un->line_str && off < un->line_str_len &&
		    memchr(un->line_str + off, 0, un->line_str_len - off))
			*s = (const char *)un->line_str + off;
		else
			*s = "?";
		return true;
	}
	case DW_FORM_strp: u(c, un->offset_size); *s = "?"; return true;  /* .debug_str: not read */
	case DW_FORM_strx: case DW_FORM_udata: *v = uleb(c); return true;
	case DW_FORM_strx1: case DW_FORM_data1: *v = u(c, 1); return true;
	case DW_FORM_strx2: case DW_FORM_data2: *v = u(c, 2); return true;
	case DW_FORM_strx4: case DW_FORM_data4: *v = u(c, 4); return true;
	case DW_FORM_data8: *v = u(c, 8); return true;
	case DW_FORM_data16: u(c, 8); u(c, 8); return true;
	case DW_FORM_block: { uint64_t n = uleb(c); if (n > (uint64_t)(c->end - c->p)) c->bad = true; else c->p += n; return true; }
	case DW_FORM_block1: { uint64_t n = u(c, 1); if (n > (uint64_t)(c->end - c->p)) c->bad = true; else c->p += n; return true; }
	}
	return false;
}

/* Version 5 entry list (directories or files). */
static bool v5_entries(struct cursor *c, struct unit *un, bool files)
{
	uint64_t fmt[16][2];
	unsigned nfmt = (unsigned)u(c, 1);

	if (nfmt > 16)
		return false;
	for (unsigned i = 0; i < nfmt; i++) {
		fmt[i][0] = uleb(c);
		fmt[i][1] = uleb(c);
	}
	uint64_t n = uleb(c);
	if (c->bad || n > 65536)
		return false;
	if (files) {
		un->files = calloc(n ? n : 1, sizeof(*un->files));
		if (!un->files)
			return false;
	}
	for (uint64_t k = 0; k < n; k++) {
		const char *path = "?";
		uint64_t dir = 0;
		for (unsigned i = 0; i < nfmt; i++) {
			const char *s;
			uint64_t v;
			if (!form_value(c, un, fmt[i][1], &s, &v) || c->bad)
				return false;
			if (fmt[i][0] == DW_LNCT_path && s)
				path = s;
			else if (fmt[i][0] == DW_LNCT_directory_index)
				dir = v;
		}
		if (files)
			un->files[un->nr_files++] =
				add_file(un->nr_dirs ? un->dirs[0] : NULL,
					 dir < un->nr_dirs ? un->dirs[dir] : NULL, path);
		else if (un->nr_dirs < 256)
			un->dirs[un->nr_dirs++] = path;
	}
	return true;
}

static void run_unit(const uint8_t *p, const uint8_t *end, const uint8_t *line_str,
		     size_t line_str_len, const char *dir_hint)
{
	struct cursor c = { p, end, false };
	struct unit un = { .line_str = line_str, .line_str_len = line_str_len };

	un.version = (unsigned)u(&c, 2);
	un.offset_size = 4;   /* 32-bit DWARF (64-bit units are skipped) */
	if (un.version < 2 || un.version > 5)
		return;
	if (un.version >= 5) {
		unsigned asz = (unsigned)u(&c, 1);
		u(&c, 1);   /* segment selector size */
		if (asz != 8)
			return;
	}
	(void)dir_hint;
	uint64_t hlen = u(&c, 4);
	const uint8_t *prog = c.p + hlen;
	if (hlen > (uint64_t)(end - c.p))
		return;
	unsigned min_inst = (unsigned)u(&c, 1);
	if (un.version >= 4)
		u(&c, 1);   /* maximum operations per instruction (VLIW) */
	bool default_stmt = u(&c, 1) != 0;
	int line_base = (int8_t)u(&c, 1);
	unsigned line_range = (unsigned)u(&c, 1);
	unsigned opcode_base = (unsigned)u(&c, 1);
	uint8_t std_len[256] = { 0 };
	if (!line_range || !opcode_base)
		return;
	for (unsigned i = 1; i < opcode_base; i++)
		std_len[i] = (uint8_t)u(&c, 1);
	if (un.version >= 5) {
		if (!v5_entries(&c, &un, false) || !v5_entries(&c, &un, true))
			goto out;
	} else {
		un.dirs[un.nr_dirs++] = dir_hint;   /* index 0: the build directory */
		for (;;) {
			const char *d = cstr(&c);
			if (c.bad || !*d)
				break;
			if (un.nr_dirs < 256)
				un.dirs[un.nr_dirs++] = d;
		}
		un.files = calloc(1024, sizeof(*un.files));
		if (!un.files)
			return;
		un.files[un.nr_files++] = UINT32_MAX;   /* files are numbered from 1 */
		for (;;) {
			const char *name = cstr(&c);
			if (c.bad || !*name)
				break;
			uint64_t d = uleb(&c);
			uleb(&c);
			uleb(&c);
			if (un.nr_files < 1024)
				un.files[un.nr_files++] =
					add_file(un.dirs[0], d < un.nr_dirs ? un.dirs[d] : NULL, name);
		}
	}
	if (c.bad)
		goto out;

	/* the state machine (6.2.2) */
	c.p = prog;
	uint64_t addr = 0, file = 1, line = 1;
	bool stmt = default_stmt;
	(void)stmt;
	while (c.p < c.end && !c.bad) {
		unsigned op = (unsigned)u(&c, 1);
		if (op >= opcode_base) {
			unsigned adj = op - opcode_base;
			addr += (uint64_t)(adj / line_range) * min_inst;
			line += (uint64_t)(line_base + (int)(adj % line_range));
			add_row(addr, file < un.nr_files ? un.files[file] : UINT32_MAX,
				(uint32_t)line);
			continue;
		}
		switch (op) {
		case 0: {   /* extended */
			uint64_t len = uleb(&c);
			const uint8_t *next = c.p + len;
			if (len == 0 || len > (uint64_t)(c.end - c.p)) {
				c.bad = true;
				break;
			}
			unsigned sub = (unsigned)u(&c, 1);
			if (sub == 1) {          /* end_sequence */
				add_row(addr, UINT32_MAX, 0);
				addr = 0;
				file = 1;
				line = 1;
				stmt = default_stmt;
			} else if (sub == 2 && len == 9) {   /* set_address */
				addr = u(&c, 8);
			}
			c.p = next;
			break;
		}
		case 1: add_row(addr, file < un.nr_files ? un.files[file] : UINT32_MAX, (uint32_t)line); break;
		case 2: addr += uleb(&c) * min_inst; break;
		case 3: line += (uint64_t)sleb(&c); break;
		case 4: file = uleb(&c); break;
		case 5: uleb(&c); break;
		case 6: stmt = !stmt; break;
		case 7: break;
		case 8: addr += (uint64_t)((255 - opcode_base) / line_range) * min_inst; break;
		case 9: addr += u(&c, 2); break;
		case 10: case 11: break;
		case 12: uleb(&c); break;
		default:
			for (unsigned i = 0; i < std_len[op]; i++)
				uleb(&c);
		}
	}
out:
	free(un.files);
}

void rt_dwarf_lines(const uint8_t *line, size_t line_len, const uint8_t *line_str,
		    size_t line_str_len, const char *dir_hint)
{
	struct cursor c = { line, line + line_len, false };

	while (c.p < c.end && !c.bad) {
		uint64_t len = u(&c, 4);
		if (len == 0xffffffffu || len > (uint64_t)(c.end - c.p))
			break;   /* 64-bit DWARF: not emitted for these programs */
		run_unit(c.p, c.p + len, line_str, line_str_len, dir_hint);
		c.p += len;
	}
	/* rows whose file is unknown carry no line */
	for (size_t i = 0; i < rt_img.nr_lines; i++)
		if (rt_img.lines[i].file == UINT32_MAX)
			rt_img.lines[i].line = 0;
	qsort(rt_img.lines, rt_img.nr_lines, sizeof(*rt_img.lines), by_addr);
}
