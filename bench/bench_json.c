/*
 * bench_json.c - a strict parser for the one-object lines the subcommands
 * print (harness.h, struct jnode): RFC 8259 values, nesting bounded, no
 * trailing garbage. Strings keep ASCII; other \u escapes become '?'.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

struct jparser {
	const char *p, *end;
	int depth;
	bool err;
};

void bench_jfree(struct jnode *n)
{
	while (n) {
		struct jnode *next = n->next;
		bench_jfree(n->kid);
		free(n->str);
		free(n->key);
		free(n);
		n = next;
	}
}

static void jws(struct jparser *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static char *jstring(struct jparser *j)
{
	size_t cap = 32, n = 0;
	char *s;

	if (j->p >= j->end || *j->p != '"' || !(s = malloc(cap))) {
		j->err = true;
		return NULL;
	}
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;
		if ((unsigned char)c < 0x20)
			goto bad;
		if (c == '\\') {
			if (j->p >= j->end)
				goto bad;
			c = *j->p++;
			switch (c) {
			case '"': case '\\': case '/': break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				unsigned v = 0;
				for (int k = 0; k < 4; k++) {
					if (j->p >= j->end)
						goto bad;
					char h = *j->p++;
					v <<= 4;
					if (h >= '0' && h <= '9')
						v |= (unsigned)(h - '0');
					else if (h >= 'a' && h <= 'f')
						v |= (unsigned)(h - 'a' + 10);
					else if (h >= 'A' && h <= 'F')
						v |= (unsigned)(h - 'A' + 10);
					else
						goto bad;
				}
				c = v && v < 0x80 ? (char)v : '?';
				break;
			}
			default:
				goto bad;
			}
		}
		if (n + 1 >= cap) {
			char *t = realloc(s, cap *= 2);
			if (!t)
				goto bad;
			s = t;
		}
		s[n++] = c;
	}
	if (j->p >= j->end)
		goto bad;
	j->p++;
	s[n] = 0;
	return s;
bad:
	free(s);
	j->err = true;
	return NULL;
}

static bool jlit(struct jparser *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
		return false;
	j->p += n;
	return true;
}

static struct jnode *jvalue(struct jparser *j)
{
	struct jnode *n;

	jws(j);
	if (j->p >= j->end || ++j->depth > 16 || !(n = calloc(1, sizeof(*n)))) {
		j->err = true;
		return NULL;
	}
	char c = *j->p;
	if (c == '{' || c == '[') {
		struct jnode **tail = &n->kid;
		char close = c == '{' ? '}' : ']';
		n->t = c == '{' ? J_OBJ : J_ARR;
		j->p++;
		jws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			goto out;
		}
		for (;;) {
			char *key = NULL;
			jws(j);
			if (n->t == J_OBJ) {
				key = jstring(j);
				jws(j);
				if (j->err || j->p >= j->end || *j->p++ != ':') {
					free(key);
					goto bad;
				}
			}
			struct jnode *k = jvalue(j);
			if (!k) {
				free(key);
				goto bad;
			}
			k->key = key;
			*tail = k;
			tail = &k->next;
			jws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == close) {
				j->p++;
				break;
			}
			goto bad;
		}
	} else if (c == '"') {
		n->t = J_STR;
		n->str = jstring(j);
		if (j->err)
			goto bad;
	} else if (jlit(j, "true")) {
		n->t = J_BOOL;
		n->b = true;
	} else if (jlit(j, "false")) {
		n->t = J_BOOL;
	} else if (jlit(j, "null")) {
		n->t = J_NULL;
	} else {
		/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
		const char *s = j->p;
		if (j->p < j->end && *j->p == '-')
			j->p++;
		if (j->p < j->end && *j->p == '0')
			j->p++;
		else if (j->p < j->end && *j->p >= '1' && *j->p <= '9')
			while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
				j->p++;
		else
			goto bad;
		if (j->p < j->end && *j->p == '.') {
			j->p++;
			if (j->p >= j->end || *j->p < '0' || *j->p > '9')
				goto bad;
			while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
				j->p++;
		}
		if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
			j->p++;
			if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
				j->p++;
			if (j->p >= j->end || *j->p < '0' || *j->p > '9')
				goto bad;
			while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
				j->p++;
		}
		char buf[64];
		size_t len = (size_t)(j->p - s);
		if (len >= sizeof(buf))
			goto bad;
		memcpy(buf, s, len);
		buf[len] = 0;
		n->t = J_NUM;
		n->num = strtod(buf, NULL);
	}
out:
	j->depth--;
	return n;
bad:
	j->err = true;
	bench_jfree(n);
	return NULL;
}

struct jnode *bench_jparse(const char *s, size_t len)
{
	struct jparser j = { s, s + len, 0, false };
	struct jnode *n = jvalue(&j);

	jws(&j);
	if (n && (j.err || j.p != j.end)) {
		bench_jfree(n);
		return NULL;
	}
	return n;
}

const struct jnode *bench_jget(const struct jnode *o, const char *key)
{
	if (!o || o->t != J_OBJ)
		return NULL;
	for (const struct jnode *k = o->kid; k; k = k->next)
		if (k->key && !strcmp(k->key, key))
			return k;
	return NULL;
}

double bench_jnum(const struct jnode *o, const char *key, double dflt)
{
	const struct jnode *n = bench_jget(o, key);

	return n && n->t == J_NUM ? n->num : dflt;
}

const char *bench_jstr(const struct jnode *o, const char *key)
{
	const struct jnode *n = bench_jget(o, key);

	return n && n->t == J_STR ? n->str : NULL;
}
