/*
 * hash_set.h - a growable set of 64-bit hashes for the tests that compare
 * two searches by the final states or trace classes they reach (tests/dpor,
 * tests/differential): add each execution's hash, then ask whether the
 * other search reached it. Free .h when done.
 */
#ifndef WEFT_TEST_HASH_SET_H
#define WEFT_TEST_HASH_SET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct hash_set {
	uint64_t *h;
	size_t n, cap;
};

static inline bool hash_set_has(const struct hash_set *s, uint64_t h)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->h[i] == h)
			return true;
	return false;
}

/* True if h is new to s. */
static inline bool hash_set_add(struct hash_set *s, uint64_t h)
{
	if (hash_set_has(s, h))
		return false;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->h = realloc(s->h, s->cap * sizeof(*s->h));
		if (!s->h)
			abort();
	}
	s->h[s->n++] = h;
	return true;
}

#endif
