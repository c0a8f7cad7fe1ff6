/*
 * report.c - the text form of a report: an ERROR: line, both sides of the
 * race, the last events of the trace ring, a SUMMARY: line. Front ends add
 * the artifact path and the command that replays it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <weft/weft.h>

static const char *ev_name(unsigned ev)
{
	switch (ev) {
	case WEFT_EV_READ: return "read";
	case WEFT_EV_WRITE: return "write";
	case WEFT_EV_RMW: return "rmw";
	case WEFT_EV_LOCK: return "lock";
	case WEFT_EV_TRYLOCK: return "trylock";
	case WEFT_EV_UNLOCK: return "unlock";
	case WEFT_EV_BLOCK: return "block";
	case WEFT_EV_YIELD: return "yield";
	case WEFT_EV_BARRIER: return "barrier";
	case WEFT_EV_CHOICE: return "choice";
	case WEFT_EV_FREE: return "free";
	case WEFT_EV_ALLOC: return "alloc";
	case WEFT_EV_NOTE: return "note";
	case WEFT_EV_OP: return "op";
	case WEFT_EV_SPAWN: return "spawn";
	case WEFT_EV_JOIN: return "join";
	case WEFT_EV_WAIT: return "wait";
	case WEFT_EV_WAKE: return "wake";
	case WEFT_EV_END: return "end";
	case WEFT_EV_IRQ_ENTER: return "irq";
	case WEFT_EV_IRQ_EXIT: return "irq-ret";
	case WEFT_EV_CTX: return "ctx";
	case WEFT_EV_FLUSH: return "flush";
	}
	return "?";
}

const char *weft_ev_name(unsigned ev)
{
	return ev_name(ev);
}

static void print_side(FILE *f, const char *label, const struct weft_access *a,
		       const struct weft_caller *c, uint32_t since)
{
	if (!a->valid) {
		fprintf(f, "  %-6s (unknown)\n", label);
		return;
	}
	if (a->tid < 0)
		fprintf(f, "  %-6s setup/audit  step %-5" PRIu32, label, a->step);
	else if (since != a->step)   /* a sleeper: where it fell asleep */
		fprintf(f, "  %-6s T%d on CPU%d  step %" PRIu32 " (asleep; stuck at step %" PRIu32 ")",
			label, a->tid, a->cpu, since, a->step);
	else
		fprintf(f, "  %-6s T%d on CPU%d  step %-5" PRIu32, label, a->tid, a->cpu, a->step);
	if (a->site && c)   /* a helper's site: name the model's call */
		fprintf(f, "  %s [%s]  in %s() at %s:%u\n", a->site->what, c->what, c->func,
			weft_caller_file(c), c->line);
	else if (a->site)
		fprintf(f, "  %s  in %s() at %s:%u\n", a->site->what, a->site->func,
			weft_site_file(a->site), a->site->line);
	else
		fprintf(f, "\n");
}

size_t weft_name_object_len(const char *s)
{
	size_t i = 0;

	while (s[i] && s[i] != '.' && strncmp(s + i, " ->", 3) && strncmp(s + i, "->", 2))
		i++;
	return i;
}

static size_t separator(const char *s)
{
	return *s == '.' ? 1 : !strncmp(s, " ->", 3) ? 3 : !strncmp(s, "->", 2) ? 2 : 0;
}

/*
 * What a world pointer points at. describe() names the innermost field at
 * an offset, but an object and its first field share their offset: a
 * pointer names the largest thing that starts there. The byte before
 * shares the path components of everything that started earlier ("page 0
 * ->flags" before "page 0 ->lru.next": the pointer is "page 0 ->lru"; a
 * byte of page 2 before "page 3 ->count": "page 3"). The race diagram
 * does the same (tools/race_diagram.c, weft_trace_pointer_name).
 */
void weft_describe_pointer(const struct weft_scenario *sc, uint32_t off, char *buf, size_t n)
{
	char prev[96] = "";
	char *a = buf;
	const char *b = prev;

	weft_describe_loc(sc, off, buf, n);
	if (off)
		weft_describe_loc(sc, off - 1, prev, sizeof(prev));
	for (;;) {
		size_t la = weft_name_object_len(a), lb = weft_name_object_len(b);
		if (la != lb || strncmp(a, b, la) || !separator(a + la) || !separator(b + lb)) {
			a[la] = 0;
			return;
		}
		a += la + separator(a + la);
		b += lb + separator(b + lb);
	}
}

/* A traced value, by the type of the field that holds it
 * (weft_value_form()): world pointers (traced as 1 << 63 | offset, see
 * trace_val in sched.h) print as "&object". */
static void print_value(FILE *f, const struct weft_scenario *sc, const struct weft_event *e,
			const char *field, uint64_t x)
{
	char name[96];

	switch (weft_value_form(x, field, e->site ? e->site->what : NULL)) {
	case WEFT_VALUE_POINTER:
		weft_describe_pointer(sc, (uint32_t)(x & 0xffffffffu), name, sizeof(name));
		fprintf(f, "&%s", name);
		break;
	case WEFT_VALUE_HEX:
		fprintf(f, "0x%02" PRIx64, x);
		break;
	case WEFT_VALUE_SIGNED32:
		fprintf(f, "%" PRId32, (int32_t)(uint32_t)x);
		break;
	case WEFT_VALUE_SIGNED64:
		fprintf(f, "%" PRId64, (int64_t)x);
		break;
	default:
		fprintf(f, "%" PRIu64, x);
		break;
	}
}

void weft_report_print(FILE *f, const struct weft_run_opts *o, const struct weft_exec_result *r)
{
	const struct weft_report *rp = &r->report;
	const struct weft_scenario *sc = o->sc;
	const char *vname = sc->nr_variants ? sc->variants[o->variant].name : "";
	struct weft_event ring[WEFT_TRACE_RING];
	size_t n;

	if (r->kind == WEFT_KIND_NONE)
		return;
	fprintf(f, "ERROR: weft: %s%s%s in %s:%s: %s\n", weft_kind_name(r->kind),
		rp->object[0] ? " on " : "", rp->object, sc->name, vname, rp->msg);
	print_side(f, "here:", &rp->here, rp->here_caller,
		   r->kind == WEFT_KIND_LOST_WAKEUP ? rp->here_since : rp->here.step);
	if (rp->stack[0])
		fprintf(f, "  called from %s\n", rp->stack);
	if (rp->other.valid)
		print_side(f, "before:", &rp->other, rp->other_caller, rp->other.step);
	fprintf(f, "  lock model %s, %" PRIu32 " step%s, %" PRIu32 " preemption%s, trace %016" PRIx64
		   "\n",
		o->lock == WEFT_LOCK_TICKET ? "ticket" : "tas", r->steps, r->steps == 1 ? "" : "s",
		r->preemptions, r->preemptions == 1 ? "" : "s", r->trace_hash);
	n = weft_last_ring(ring, WEFT_TRACE_RING);
	size_t from = n > 16 ? n - 16 : 0;
	if (n)
		fprintf(f, "  last events:\n");
	for (size_t i = from; i < n; i++) {
		const struct weft_event *e = &ring[i];
		char obj[64] = "";
		if (e->loc != WEFT_NO_LOC)
			weft_describe_loc(sc, e->loc, obj, sizeof(obj));
		if (e->tid == 0xff)
			fprintf(f, "    %5" PRIu32 "  --    ", e->step);
		else
			fprintf(f, "    %5" PRIu32 "  T%u/C%u%s", e->step, e->tid, e->cpu,
				e->flags & WEFT_EVF_PREEMPTED ? "*" : " ");
		char label[96];
		weft_site_label(e->caller && !(e->caller->flags & WEFT_CALLER_KIT) ? e->caller->what
				: e->site ? e->site->what : "?", label, sizeof(label));
		fprintf(f, " %-7s %-44s %s", ev_name(e->ev), label, obj);
		if (e->ev == WEFT_EV_RMW || e->ev == WEFT_EV_WRITE) {
			fprintf(f, "  ");
			print_value(f, sc, e, obj, e->old);
			fprintf(f, " -> ");
			print_value(f, sc, e, obj, e->val);
		} else if (e->ev == WEFT_EV_READ) {
			fprintf(f, "  = ");
			print_value(f, sc, e, obj, e->val);
		}
		fprintf(f, "\n");
	}
	const struct weft_site *s = rp->here.site;
	fprintf(f, "SUMMARY: weft: %s %s:%s", weft_kind_name(r->kind), sc->name, vname);
	if (s && rp->here_caller)
		fprintf(f, " in %s %s:%u", rp->here_caller->func,
			weft_caller_file(rp->here_caller), rp->here_caller->line);
	else if (s)
		fprintf(f, " in %s %s:%u", s->func, weft_site_file(s), s->line);
	fprintf(f, "\n");
}
