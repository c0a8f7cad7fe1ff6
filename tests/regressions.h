/*
 * regressions.h - the walk over a folder of .weft replay files that the
 * replay and race-diagram tests share: the next file, loaded; a file that
 * does not load is a CHECK failure and is passed over.
 */
#ifndef WEFT_TEST_REGRESSIONS_H
#define WEFT_TEST_REGRESSIONS_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <weft/replay.h>

#include "check.h"

/* The next *.weft of d (opened on dir): its path in path[0..n) and its
 * contents in *rf (weft_replay_free() it). false at the end. */
static inline bool regression_next(DIR *d, const char *dir, char *path, size_t n,
				   struct weft_replay *rf)
{
	struct dirent *de;
	char err[300];

	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".weft"))
			continue;
		snprintf(path, n, "%s/%s", dir, de->d_name);
		if (!weft_replay_load(path, rf, err, sizeof(err)))
			return true;
		CHECK(0, "%s: %s", path, err);
	}
	return false;
}

#endif
