/*
 * rt_elf.c - the instrumented executable as the runtime sees it: its
 * segments in memory (dl_iterate_phdr), and from its file the symbol
 * table (function names for sites, global names for objects), the build id
 * (which replay files record) and, through rt_dwarf.c, the line table
 * (file:line for sites). The file is read once, at start-up of program
 * mode; nothing here runs during an execution but the lookups.
 *
 * ELF: the System V gABI and the x86-64/AArch64 psABIs (Elf64 only).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_internal.h"

struct rt_image rt_img;

static int first_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	/* the first entry is the executable (dlpi_name "") */
	rt_img.bias = info->dlpi_addr;
	rt_img.lo = UINTPTR_MAX;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + p->p_vaddr, hi = lo + p->p_memsz;
		if (p->p_type == PT_LOAD) {
			if (lo < rt_img.lo)
				rt_img.lo = lo;
			if (hi > rt_img.hi)
				rt_img.hi = hi;
			if (p->p_flags & PF_X) {
				if (!rt_img.text_lo || lo < rt_img.text_lo)
					rt_img.text_lo = lo;
				if (hi > rt_img.text_hi)
					rt_img.text_hi = hi;
			}
			if ((p->p_flags & PF_W) && hi > rt_img.rw_hi) {
				rt_img.rw_lo = lo;
				rt_img.rw_hi = hi;
			}
		} else if (p->p_type == PT_GNU_RELRO) {
			rt_img.relro_hi = hi;
		} else if (p->p_type == PT_TLS && p->p_memsz) {
			rt_img.has_tls = true;
			rt_img.tls_data = info->dlpi_tls_data;
			rt_img.tls_init = (const void *)(info->dlpi_addr + p->p_vaddr);
			rt_img.tls_filesz = p->p_filesz;
			rt_img.tls_memsz = p->p_memsz;
		}
	}
	return 1;
}

static int by_addr(const void *a, const void *b)
{
	const struct rt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address: a sized symbol before an unsized one */
	return (x->size < y->size) - (x->size > y->size);
}

static const ElfW(Shdr) *section(const uint8_t *f, size_t len, const char *name)
{
	const ElfW(Ehdr) *eh = (const void *)f;
	const ElfW(Shdr) *sh = (const void *)(f + eh->e_shoff);

	if (eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	const ElfW(Shdr) *strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset + strs->sh_size > len)
		return NULL;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= strs->sh_size)
			continue;
		const char *n = (const char *)f + strs->sh_offset + sh[i].sh_name;
		if (!strcmp(n, name) && (sh[i].sh_type == SHT_NOBITS ||
					 sh[i].sh_offset + sh[i].sh_size <= len))
			return &sh[i];
	}
	return NULL;
}

/* A section's bytes, or NULL if absent, empty or compressed (we do not
 * inflate: without zlib the lines are just unknown). */
static const uint8_t *section_bytes(const uint8_t *f, size_t len, const char *name, size_t *n)
{
	const ElfW(Shdr) *s = section(f, len, name);

	*n = 0;
	if (!s || s->sh_type == SHT_NOBITS || (s->sh_flags & SHF_COMPRESSED) || !s->sh_size)
		return NULL;
	*n = s->sh_size;
	return f + s->sh_offset;
}

static void read_symbols(const uint8_t *f, size_t len)
{
	const ElfW(Ehdr) *eh = (const void *)f;
	const ElfW(Shdr) *sh = (const void *)(f + eh->e_shoff);
	const ElfW(Shdr) *symtab = section(f, len, ".symtab");

	if (!symtab)
		symtab = section(f, len, ".dynsym");
	if (!symtab || symtab->sh_link >= eh->e_shnum || symtab->sh_entsize != sizeof(ElfW(Sym)))
		return;
	const ElfW(Shdr) *strtab = &sh[symtab->sh_link];
	if (strtab->sh_offset + strtab->sh_size > len)
		return;
	const ElfW(Sym) *sym = (const void *)(f + symtab->sh_offset);
	size_t n = symtab->sh_size / sizeof(*sym);
	rt_img.syms = calloc(n ? n : 1, sizeof(*rt_img.syms));
	if (!rt_img.syms)
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned type = ELF64_ST_TYPE(sym[i].st_info);
		if (sym[i].st_shndx == SHN_UNDEF && sym[i].st_name < strtab->sh_size &&
		    !strcmp((const char *)f + strtab->sh_offset + sym[i].st_name,
			    "__cyg_profile_func_enter"))
			rt_img.cyg_hooks = true;
		if ((type != STT_FUNC && type != STT_OBJECT) || sym[i].st_shndx == SHN_UNDEF ||
		    sym[i].st_name >= strtab->sh_size || !sym[i].st_value)
			continue;
		const char *name = (const char *)f + strtab->sh_offset + sym[i].st_name;
		char *copy = strdup(name);
		if (!copy)
			break;
		struct rt_sym *s = &rt_img.syms[rt_img.nr_syms++];
		s->addr = rt_img.bias + sym[i].st_value;
		s->size = sym[i].st_size;
		s->name = copy;
		s->func = type == STT_FUNC;
	}
	qsort(rt_img.syms, rt_img.nr_syms, sizeof(*rt_img.syms), by_addr);
}

/* A file's identity when it has no build id note: 16 bytes of hash. */
static unsigned file_hash_id(const uint8_t *f, size_t len, uint8_t *id)
{
	uint64_t h = 0xcbf29ce484222325ull, g = 0x84222325cbf29ce4ull;

	for (size_t i = 0; i < len; i++) {
		h = (h ^ f[i]) * 0x100000001b3ull;
		g = (g ^ f[i]) * 0x100000001b3ull + (g >> 29);
	}
	memcpy(id, &h, 8);
	memcpy(id + 8, &g, 8);
	return 16;
}

static void read_build_id(const uint8_t *f, size_t len)
{
	size_t n;
	const uint8_t *p = section_bytes(f, len, ".note.gnu.build-id", &n);

	if (p && n >= 16) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p, 4);
		memcpy(&descsz, p + 4, 4);
		memcpy(&type, p + 8, 4);
		size_t off = 12 + ((namesz + 3) & ~3u);
		if (type == NT_GNU_BUILD_ID && descsz && off + descsz <= n) {
			rt_img.build_id_len = descsz < WEFT_BUILD_ID_MAX ? descsz : WEFT_BUILD_ID_MAX;
			memcpy(rt_img.build_id, p + off, rt_img.build_id_len);
			return;
		}
	}
	/* no build id note (-Wl,--build-id=none): a hash of the whole file */
	rt_img.build_id_len = file_hash_id(f, len, rt_img.build_id);
}

/* The GNU build id note among the PT_NOTE segments of a loaded object. */
static unsigned note_build_id(const struct dl_phdr_info *info, uint8_t *id)
{
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		size_t n = ph->p_memsz, off = 0;
		while (off + 12 <= n) {
			uint32_t namesz, descsz, type;
			memcpy(&namesz, p + off, 4);
			memcpy(&descsz, p + off + 4, 4);
			memcpy(&type, p + off + 8, 4);
			size_t name = off + 12, desc = name + ((namesz + 3) & ~(size_t)3);
			if (desc + descsz > n)
				break;
			if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name, "GNU", 4) &&
			    descsz) {
				unsigned k = descsz < WEFT_BUILD_ID_MAX ? descsz : WEFT_BUILD_ID_MAX;
				memcpy(id, p + desc, k);
				return k;
			}
			off = desc + ((descsz + 3) & ~(size_t)3);
		}
	}
	return 0;
}

struct runtime_id {
	uintptr_t self;   /* an address in this library */
	uint8_t *id;
	unsigned len;
	char path[4096];
};

static int runtime_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct runtime_id *r = data;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && r->self - lo < ph->p_memsz) {
			r->len = note_build_id(info, r->id);
			snprintf(r->path, sizeof(r->path), "%s", info->dlpi_name);
			return 1;
		}
	}
	return 0;
}

/* libweft_rt's own build id (its GNU build id note, else a hash of its
 * file): a replay file records it beside the program's, since a program
 * links the runtime as a shared library and keeps its build id when only
 * the runtime changes. 0 when neither can be read. */
unsigned rt_runtime_build_id(uint8_t *id)
{
	struct runtime_id r = { .self = (uintptr_t)&rt_runtime_build_id, .id = id };

	dl_iterate_phdr(runtime_module, &r);
	if (r.len || !r.path[0])
		return r.len;
	int fd = open(r.path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !st.st_size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	uint8_t *f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return 0;
	unsigned k = file_hash_id(f, (size_t)st.st_size, id);
	munmap(f, (size_t)st.st_size);
	return k;
}

int rt_image_load(void)
{
	dl_iterate_phdr(first_module, NULL);
	if (!rt_img.rw_hi || !rt_img.text_hi)
		return -1;
	if (rt_img.relro_hi < rt_img.rw_lo || rt_img.relro_hi > rt_img.rw_hi)
		rt_img.relro_hi = rt_img.rw_lo;

	ssize_t k = readlink("/proc/self/exe", rt_img.path, sizeof(rt_img.path) - 1);
	if (k <= 0)
		return -1;
	rt_img.path[k] = 0;
	int fd = open(rt_img.path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	size_t len = (size_t)st.st_size;
	uint8_t *f = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return -1;
	const ElfW(Ehdr) *eh = (const void *)f;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > len) {
		munmap(f, len);
		return -1;
	}
	read_build_id(f, len);
	read_symbols(f, len);
	size_t nl, ns;
	const uint8_t *line = section_bytes(f, len, ".debug_line", &nl);
	const uint8_t *line_str = section_bytes(f, len, ".debug_line_str", &ns);
	if (line) {
		/* relative source paths of DWARF 4 are relative to the build
		 * directory, which only .debug_info names; the executable's
		 * directory is the best guess left */
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", rt_img.path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		rt_dwarf_lines(line, nl, line_str, ns, dir);
	}
	munmap(f, len);
	return 0;
}

/* How many of the n entries of an array sorted by address (structs of
 * stride bytes whose first member is their address) start at or before
 * addr: a binary search. */
_Static_assert(offsetof(struct rt_sym, addr) == 0 && offsetof(struct rt_line, addr) == 0,
	       "nr_at_or_before() reads the address at the start of an entry");
static size_t nr_at_or_before(const void *base, size_t n, size_t stride, uintptr_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uintptr_t a;
		memcpy(&a, (const char *)base + mid * stride, sizeof(a));
		if (a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct rt_sym *rt_sym_at(uintptr_t addr)
{
	/* the last symbol starting at or before addr */
	size_t lo = nr_at_or_before(rt_img.syms, rt_img.nr_syms, sizeof(*rt_img.syms), addr);

	for (size_t i = lo; i-- > 0 && lo - i <= 8;) {
		const struct rt_sym *s = &rt_img.syms[i];
		if (addr < s->addr + (s->size ? s->size : 1))
			return s;
		if (s->func && !s->size)
			return s;
	}
	return NULL;
}

bool rt_line_at(uintptr_t pc, const char **file, unsigned *line)
{
	size_t lo = nr_at_or_before(rt_img.lines, rt_img.nr_lines, sizeof(*rt_img.lines), pc);

	if (!lo)
		return false;
	const struct rt_line *l = &rt_img.lines[lo - 1];
	if (!l->line || l->file >= rt_img.nr_files)
		return false;
	*file = rt_img.files[l->file];
	*line = l->line;
	return true;
}

/* -------------------------------------------------------- source lines */

#define SRC_CACHE 32
static struct {
	char *path;
	char *text;        /* the file, with '\n' -> 0 */
	char **line;       /* line[i]: line i + 1 */
	unsigned nr;
} src[SRC_CACHE];
static unsigned nr_src;

static void load_source(unsigned k, const char *path)
{
	FILE *fp = fopen(path, "r");

	src[k].path = strdup(path);
	if (!fp)
		return;
	size_t cap = 1 << 16, n = 0;
	char *t = malloc(cap);
	for (size_t r; t && (r = fread(t + n, 1, cap - n - 1, fp)) > 0;) {
		n += r;
		if (n + 1 >= cap && cap < (64u << 20)) {
			char *g = realloc(t, cap * 2);
			if (!g)
				break;
			t = g;
			cap *= 2;
		} else if (n + 1 >= cap) {
			break;
		}
	}
	fclose(fp);
	if (!t)
		return;
	t[n] = 0;
	unsigned lines = 1;
	for (size_t i = 0; i < n; i++)
		lines += t[i] == '\n';
	src[k].line = calloc(lines, sizeof(char *));
	if (!src[k].line) {
		free(t);
		return;
	}
	char *p = t;
	for (unsigned i = 0; i < lines && p; i++) {
		src[k].line[src[k].nr++] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = 0;
	}
	src[k].text = t;
}

const char *rt_source_line(const char *file, unsigned line)
{
	unsigned k;

	for (k = 0; k < nr_src; k++)
		if (!strcmp(src[k].path, file))
			break;
	if (k == nr_src) {
		if (nr_src == SRC_CACHE)
			return NULL;
		load_source(nr_src++, file);
	}
	if (!src[k].line || !line || line > src[k].nr)
		return NULL;
	const char *s = src[k].line[line - 1];
	while (*s == ' ' || *s == '\t')
		s++;
	return *s ? s : NULL;
}
