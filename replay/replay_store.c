/*
 * replay_store.c - writing artifacts without ever losing or overwriting
 * one: a temporary file in the target directory, fsync, link(2) to the
 * final name (atomic, and it fails if the name exists), unlink the
 * temporary, fsync the directory. A crash at any point leaves either no
 * artifact or a complete one (plus, at worst, a ".tmp" file).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weft/replay.h>

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static void fsync_dir_of(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n >= sizeof(dir))
		return;
	if (n == 0 && slash)
		n = 1;   /* "/x" */
	memcpy(dir, slash ? path : ".", slash ? n : 1);
	dir[slash ? n : 1] = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int weft_replay_write_new(const char *path, const uint8_t *buf, size_t len)
{
	char tmp[4200];
	int fd, e;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid()) >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return WEFT_EIO;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return WEFT_EIO;
	if (write_all(fd, buf, len) || fsync(fd)) {
		e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return WEFT_EIO;
	}
	if (close(fd)) {
		e = errno;
		unlink(tmp);
		errno = e;
		return WEFT_EIO;
	}
	if (link(tmp, path)) {
		e = errno;
		unlink(tmp);
		errno = e;
		return WEFT_EIO;
	}
	unlink(tmp);
	fsync_dir_of(path);
	return 0;
}

/* Is the file at path exactly buf? */
static bool same_bytes(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	bool same = true;
	size_t i = 0;
	int c;

	if (!f)
		return false;
	while ((c = fgetc(f)) != EOF) {
		if (i >= len || (uint8_t)c != buf[i]) {
			same = false;
			break;
		}
		i++;
	}
	fclose(f);
	return same && i == len;
}

/* Does the replay file at path record the same execution as rf (same
 * model, scenario, variant, lock, verdict and trace hash)? */
static bool same_trace(const char *path, const struct weft_replay *rf)
{
	struct weft_replay old;
	char err[256];
	bool same;

	if (weft_replay_load(path, &old, err, sizeof(err)))
		return false;
	same = old.trace_hash == rf->trace_hash && old.kind == rf->kind &&
	       old.lock == rf->lock && old.fingerprint == rf->fingerprint &&
	       !strcmp(old.scenario, rf->scenario) && !strcmp(old.variant, rf->variant);
	weft_replay_free(&old);
	return same;
}

/*
 * The name is <kind>-<scenario>-<variant>-<trace hash, 32 bits>.weft: one
 * execution, one name, however it was found or encoded (two inputs that
 * differ only in an argument the model ignores, or in the strategy that
 * found them, are one trace). A file of that name with the same trace is
 * the same finding: nothing is written and *existed says so. Another
 * trace under the same 32 bits gets "-2", "-3", ...: nothing is ever
 * overwritten.
 */
int weft_replay_mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(tmp, 0777) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(tmp, 0777) && errno != EEXIST ? -1 : 0;
}

int weft_replay_save(const struct weft_replay *rf, const char *dir, char *path, size_t pathn,
		     bool *existed)
{
	uint8_t *buf;
	size_t len;
	int rc = weft_replay_encode(rf, &buf, &len);

	*existed = false;
	if (rc)
		return rc;
	if (weft_replay_mkdirs(dir)) {
		free(buf);
		return WEFT_EIO;
	}
	uint64_t h = rf->trace_hash;
	const char *kind = rf->kind == WEFT_KIND_NONE ? "clean" : weft_kind_name(rf->kind);
	for (unsigned k = 1; k < 100; k++) {
		char sfx[8] = "";
		if (k > 1)
			snprintf(sfx, sizeof(sfx), "-%u", k);
		if ((size_t)snprintf(path, pathn, "%s/%s-%s-%s-%08x%s.weft", dir, kind, rf->scenario,
				     rf->variant, (unsigned)(h ^ (h >> 32)), sfx) >= pathn) {
			free(buf);
			errno = ENAMETOOLONG;
			return WEFT_EIO;
		}
		rc = weft_replay_write_new(path, buf, len);
		if (rc == 0 || errno != EEXIST)
			break;
		if (same_bytes(path, buf, len) || same_trace(path, rf)) {
			*existed = true;
			rc = 0;
			break;
		}
	}
	free(buf);
	return rc;
}
