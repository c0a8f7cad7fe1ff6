/*
 * replay_exec.c - from an execution to a replay file, and back: capture
 * the last execution, re-execute a file under the replay strategy and
 * decide whether it reproduced (same decisions, same periodic state
 * hashes, same verdict, same trace hash) or diverged (DESYNC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/replay.h>

static void side_from(struct weft_replay_side *s, const struct weft_access *a)
{
	memset(s, 0, sizeof(*s));
	s->tid = s->cpu = 0xff;
	if (!a->valid)
		return;
	s->site_id = a->site ? a->site->id : 0;
	s->step = a->step;
	if (a->tid >= 0) {
		s->tid = (uint8_t)a->tid;
		s->cpu = (uint8_t)a->cpu;
	}
}

int weft_replay_from_last(struct weft_replay *rf, const struct weft_run_opts *o,
			  const struct weft_exec_result *r, const char *strategy,
			  const uint8_t *raw, size_t raw_len)
{
	const struct weft_scenario *sc = o->sc;
	size_t nd, nc, nw, nh;
	const struct weft_decision_rec *d = weft_last_decisions(&nd);
	const uint32_t *c = weft_last_choices(&nc);
	const uint8_t *w = weft_last_workload(&nw);
	const uint64_t *h = weft_last_state_hashes(&nh);

	memset(rf, 0, sizeof(*rf));
	rf->version_major = WEFT_REPLAY_VERSION_MAJOR;
	rf->version_minor = WEFT_REPLAY_VERSION_MINOR;
	if (strlen(sc->name) > WEFT_REPLAY_MAX_NAME || !sc->nr_variants ||
	    strlen(sc->variants[o->variant].name) > WEFT_REPLAY_MAX_NAME ||
	    nd > WEFT_REPLAY_MAX_DECISIONS || nw > WEFT_INPUT_MAX)
		return WEFT_EINVAL;
	snprintf(rf->scenario, sizeof(rf->scenario), "%s", sc->name);
	snprintf(rf->variant, sizeof(rf->variant), "%s", sc->variants[o->variant].name);
	snprintf(rf->strategy, sizeof(rf->strategy), "%s", strategy ? strategy : "unknown");
	snprintf(rf->tool, sizeof(rf->tool), "weft %s", WEFT_VERSION_STRING);
	rf->fingerprint = weft_scenario_fingerprint(sc);
	rf->nr_cpus = (uint8_t)sc->nr_cpus;
	/* the threads the decisions may name: the scenario's, its interrupt
	 * handlers' and those the execution spawned */
	rf->nr_threads = (uint8_t)weft_last_nr_threads();
	rf->lock = (uint8_t)o->lock;
	rf->checks = o->checks;
	const struct weft_program *pg = weft_program_self();
	if (pg) {
		size_t used = 0;
		rf->has_program = strlen(pg->path) < sizeof(rf->program.path) &&
				  strlen(pg->options) < sizeof(rf->program.options);
		snprintf(rf->program.path, sizeof(rf->program.path), "%s", pg->path);
		memcpy(rf->program.build_id, pg->build_id, pg->build_id_len);
		rf->program.build_id_len = pg->build_id_len;
		memcpy(rf->program.runtime_id, pg->runtime_id, pg->runtime_id_len);
		rf->program.runtime_id_len = pg->runtime_id_len;
		for (unsigned i = 0; i < pg->argc && rf->has_program; i++) {
			size_t n = strlen(pg->argv[i]) + 1;
			if (used + n > sizeof(rf->program.args)) {
				rf->has_program = false;
				break;
			}
			memcpy(rf->program.args + used, pg->argv[i], n);
			used += n;
		}
		rf->program.argc = pg->argc;
		snprintf(rf->program.options, sizeof(rf->program.options), "%s", pg->options);
		if (!rf->has_program)
			return WEFT_EINVAL;
	}
	if (r->kind != WEFT_KIND_NONE) {
		size_t nf;
		const struct weft_lockdep_fact *f = weft_lockdep_last_witness(&nf);
		if (nf > WEFT_LOCKDEP_MAX_FACTS)
			nf = WEFT_LOCKDEP_MAX_FACTS;
		memcpy(rf->lockdep, f, nf * sizeof(*f));
		rf->nr_lockdep = nf;
	}

	memcpy(rf->workload, w, nw);
	rf->workload_len = nw;
	rf->input_len = weft_last_input_nodelays(sc, rf->input, sizeof(rf->input));
	if (!rf->input_len && raw && raw_len && raw_len <= sizeof(rf->input)) {
		memcpy(rf->input, raw, raw_len);
		rf->input_len = raw_len;
	}

	/* trailing zero choices are implied (the replay strategy answers 0) */
	while (nc && !c[nc - 1])
		nc--;
	if (nh > WEFT_REPLAY_MAX_HASHES)
		nh = WEFT_REPLAY_MAX_HASHES;
	rf->dec = malloc((nd ? nd : 1) * sizeof(*rf->dec));
	rf->choices = malloc((nc ? nc : 1) * sizeof(*rf->choices));
	rf->state_hashes = malloc((nh ? nh : 1) * sizeof(*rf->state_hashes));
	if (!rf->dec || !rf->choices || !rf->state_hashes) {
		weft_replay_free(rf);
		return WEFT_ENOMEM;
	}
	if (nd)
		memcpy(rf->dec, d, nd * sizeof(*d));
	if (nc)
		memcpy(rf->choices, c, nc * sizeof(*c));
	if (nh)
		memcpy(rf->state_hashes, h, nh * sizeof(*h));
	rf->nr_dec = nd;
	rf->nr_choices = nc;
	rf->memory = (uint8_t)weft_last_memory();
	if (rf->memory) {
		size_t ny;
		const uint8_t *y = weft_last_delays(&ny);
		while (ny && !y[ny - 1])   /* trailing zeros are implied */
			ny--;
		rf->delays = malloc(ny ? ny : 1);
		if (!rf->delays) {
			weft_replay_free(rf);
			return WEFT_ENOMEM;
		}
		if (ny)
			memcpy(rf->delays, y, ny);
		rf->nr_delays = ny;
	}
	rf->nr_state_hashes = o->record ? nh : 0;

	rf->kind = r->kind;
	side_from(&rf->here, &r->report.here);
	side_from(&rf->other, &r->report.other);
	const struct weft_site *s = r->report.here.valid ? r->report.here.site : NULL;
	if (s) {
		char where[sizeof(rf->site_text)];
		size_t k;
		weft_site_where(where, sizeof(where), s, r->report.here_caller);
		k = strlen(where);
		snprintf(rf->site_text, sizeof(rf->site_text), "%.*s: %s", (int)k, where, s->what);
	}
	snprintf(rf->object, sizeof(rf->object), "%s", r->report.object);
	snprintf(rf->msg, sizeof(rf->msg), "%s", r->report.msg);
	/* text fields are printable ASCII by format rule */
	for (char *p = rf->site_text; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	for (char *p = rf->object; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	for (char *p = rf->msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	rf->trace_hash = r->trace_hash;
	rf->steps = r->steps;
	rf->preemptions = r->preemptions;
	return 0;
}

static const char *site_name(uint32_t id, char *buf, size_t n)
{
	const struct weft_site *s = weft_site_by_id(id);

	if (id == WEFT_SITE_ANY)
		snprintf(buf, n, "a site not stored in the file");
	else if (!id)
		snprintf(buf, n, "(a free switch: block, end or start)");
	else if (s)
		snprintf(buf, n, "%s in %s() at %s:%u", s->what, s->func, weft_site_file(s),
			 s->line);
	else
		snprintf(buf, n, "site %08x (not in this build)", id);
	return buf;
}

/* The replay strategy, with the sites a file does not store filled in
 * from the execution (the trace hash still covers them): replay's hooks
 * but fill_pick. */
struct fill_sites {
	struct weft_replay_strategy rs;   /* first: to replay's hooks a fill_sites is its rs */
	struct weft_decision_rec *dec;
	size_t nd;
};

static int fill_pick(void *st, const struct weft_decision *d)
{
	struct fill_sites *f = st;

	if (d->index < f->nd && f->dec[d->index].site_id == WEFT_SITE_ANY)
		f->dec[d->index].site_id = d->site ? d->site->id : 0;
	return weft_strategy_replay.pick_next(&f->rs, d);
}

/* weft_strategy_replay with fill_pick (set by weft_replay_execute()) */
static struct weft_strategy_ops fill_sites_ops;

void weft_replay_run_opts(const struct weft_replay *rf, const struct weft_scenario *sc,
			  unsigned vi, struct weft_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sc = sc;
	o->variant = vi;
	o->lock = (enum weft_lock_model)rf->lock;
	o->checks = rf->checks;
	o->lockdep_seed = rf->lockdep;
	o->nr_lockdep_seed = rf->nr_lockdep;
	o->memory = rf->memory;
	o->continue_kinds = weft_continue_kinds(rf->checks, rf->kind != WEFT_KIND_NONE
							     ? 1ull << rf->kind : ~0ull);
}

/* The bytes strategy with the file's store delays (a struct weft_bytes
 * first: to the bytes hooks it is their state). */
struct input_delays {
	struct weft_bytes b;
	const uint8_t *delays;
	size_t nr_delays;
};

static uint32_t input_delay(void *st, uint32_t index, uint32_t ncodes)
{
	struct input_delays *d = st;

	return index < d->nr_delays ? d->delays[index] % ncodes : 0;
}

int weft_replay_run_input(const struct weft_replay *rf, const struct weft_scenario *sc,
			  unsigned vi, bool record, struct weft_run_opts *o,
			  struct weft_exec_result *r)
{
	bool needs = false;

	for (size_t i = 0; i < rf->nr_dec; i++)
		needs |= rf->dec[i].chosen != rf->dec[i].dflt;
	if (!rf->input_len && needs)
		return WEFT_EINVAL;
	struct input_delays *d = malloc(sizeof(*d));
	struct weft_strategy_ops ops = weft_strategy_bytes;

	if (!d)
		return WEFT_ENOMEM;
	weft_replay_run_opts(rf, sc, vi, o);
	o->record = record;
	weft_bytes_init(&d->b, sc, rf->input, rf->input_len);
	d->delays = rf->delays;
	d->nr_delays = rf->nr_delays;
	ops.pick_delay = input_delay;
	int rc = weft_execute(o, &ops, d, r);
	free(d);
	return rc;
}

int weft_replay_execute(const struct weft_replay *rf, const struct weft_scenario *sc,
			unsigned vi, struct weft_replay_check *c)
{
	struct fill_sites fs;
	struct weft_replay_strategy *rsp = &fs.rs;
	struct weft_run_opts o;
	int rc;

	weft_replay_run_opts(rf, sc, vi, &o);
	o.record = true;

	memset(c, 0, sizeof(*c));
	c->desync_index = UINT32_MAX;
	fs.nd = rf->nr_dec;
	fs.dec = malloc((fs.nd ? fs.nd : 1) * sizeof(*fs.dec));
	if (!fs.dec)
		return WEFT_ENOMEM;
	if (fs.nd)
		memcpy(fs.dec, rf->dec, fs.nd * sizeof(*fs.dec));
	weft_replay_strategy_init(&fs.rs, rf->workload, rf->workload_len, fs.dec, fs.nd,
				  rf->choices, rf->nr_choices);
	weft_replay_strategy_delays(&fs.rs, rf->delays, rf->nr_delays);
	fill_sites_ops = weft_strategy_replay;
	fill_sites_ops.pick_next = fill_pick;
	rc = weft_execute(&o, &fill_sites_ops, &fs, &c->r);
	free(fs.dec);
	if (rc)
		return rc;
	struct weft_replay_strategy rs = *rsp;
	if (rs.desync) {
		char a[200], b[200];
		c->desync = true;
		c->desync_index = rs.desync_index;
		c->expected = rs.expected;
		c->got = rs.got;
		c->have_views = true;
		c->desync_step = rs.got.step ? rs.got.step : rs.expected.step;
		if (rs.desync_index < rf->nr_dec && rs.got.step == 0 && rs.got.runnable == 0)
			c->desync_step = rs.expected.step;
		if (rs.expected.site_id != rs.got.site_id)
			snprintf(c->why, sizeof(c->why), "%s (recorded at %s; replayed at %s)",
				 rs.why, site_name(rs.expected.site_id, a, sizeof(a)),
				 site_name(rs.got.site_id, b, sizeof(b)));
		else
			snprintf(c->why, sizeof(c->why), "%s, at %s", rs.why,
				 site_name(rs.got.site_id, b, sizeof(b)));
		return 0;
	}
	size_t nh, ne;
	const uint64_t *h = weft_last_state_hashes(&nh);
	const struct weft_event *ev = weft_last_events(&ne);
	size_t n = nh < rf->nr_state_hashes ? nh : rf->nr_state_hashes;
	for (size_t i = 0; i < n; i++) {
		if (h[i] == rf->state_hashes[i])
			continue;
		size_t lo = i * WEFT_STATE_HASH_EVERY, hi = (i + 1) * WEFT_STATE_HASH_EVERY - 1;
		c->desync = true;
		c->desync_step = lo < ne ? ev[lo].step : 0;
		snprintf(c->why, sizeof(c->why),
			 "the state hash after event %zu differs: the model computed other values "
			 "between steps %u and %u with the same decisions",
			 hi, lo < ne ? ev[lo].step : 0, hi < ne ? ev[hi].step : 0);
		return 0;
	}
	if (nh != rf->nr_state_hashes && rf->nr_state_hashes) {
		c->desync = true;
		c->desync_step = c->r.steps < rf->steps ? c->r.steps : rf->steps;
		snprintf(c->why, sizeof(c->why),
			 "the execution traced %s events than recorded (%zu state hashes, %zu "
			 "recorded)", nh < rf->nr_state_hashes ? "fewer" : "more", nh,
			 rf->nr_state_hashes);
		return 0;
	}
	uint32_t site = c->r.report.here.valid && c->r.report.here.site ? c->r.report.here.site->id
								       : 0;
	if (c->r.kind != rf->kind || (rf->kind != WEFT_KIND_NONE &&
				      (site != rf->here.site_id || c->r.report.here.step !=
								   rf->here.step))) {
		char a[200], b[200];
		c->desync = true;
		if (c->r.kind == WEFT_KIND_NONE) {
			/* it ran every recorded decision and ended clean: no
			 * step diverged, the verdict is missing at the end */
			c->desync_step = c->r.steps;
			c->ended = true;
			snprintf(c->why, sizeof(c->why),
				 "the execution ended at step %u without the recorded verdict "
				 "(%s at step %u, %s): the model may have changed since the "
				 "recording", c->r.steps, weft_kind_name(rf->kind), rf->here.step,
				 site_name(rf->here.site_id, a, sizeof(a)));
			return 0;
		}
		c->desync_step = c->r.report.here.step < rf->here.step ? c->r.report.here.step
								       : rf->here.step;
		snprintf(c->why, sizeof(c->why),
			 "the verdict differs: recorded %s at step %u (%s), got %s at step %u (%s)",
			 weft_kind_name(rf->kind), rf->here.step,
			 site_name(rf->here.site_id, a, sizeof(a)), weft_kind_name(c->r.kind),
			 c->r.report.here.step, site_name(site, b, sizeof(b)));
		return 0;
	}
	if (c->r.trace_hash != rf->trace_hash) {
		c->desync = true;
		c->desync_step = c->r.steps;
		snprintf(c->why, sizeof(c->why),
			 "the trace hash differs: recorded %016llx, got %016llx",
			 (unsigned long long)rf->trace_hash, (unsigned long long)c->r.trace_hash);
		return 0;
	}
	c->reproduced = true;
	return 0;
}
