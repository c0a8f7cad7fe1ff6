/*
 * target_replay_reader.c - fuzz target of the .weft reader (every engine:
 * libFuzzer, AFL++, and the plain regression driver).
 *
 * Each input is tried twice: as a whole file (header, zstd frame) and as
 * decompressed content (the sections), since a mutated zstd frame rarely
 * survives its checksum. Whatever decodes must re-encode to content that
 * decodes to the same content (a reader/writer disagreement aborts), must
 * bind or be refused cleanly, and a bound file with a bounded decision
 * list is replayed: the replay strategy must cope with any structurally
 * valid decision list.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <weft/replay.h>

#define REPLAY_MAX_DECISIONS 4096

static void exercise(const struct weft_replay *rf)
{
	uint8_t *c1, *c2;
	size_t n1, n2;
	struct weft_replay back;
	char err[256];

	if (weft_replay_encode_content(rf, &c1, &n1))
		abort();   /* a decoded file must re-encode */
	if (weft_replay_decode_content(c1, n1, &back, err, sizeof(err)))
		abort();   /* ... to content its own reader accepts */
	if (weft_replay_encode_content(&back, &c2, &n2))
		abort();
	if (n1 != n2 || memcmp(c1, c2, n1))
		abort();   /* ... and that is a fixed point */
	free(c1);
	free(c2);
	weft_replay_free(&back);

	const struct weft_scenario *sc;
	unsigned vi;
	int rc = weft_replay_bind(rf, &sc, &vi, err, sizeof(err));
	if ((rc == 0 || rc == WEFT_ESTALE) && sc && rf->nr_dec <= REPLAY_MAX_DECISIONS) {
		struct weft_replay_check c;
		weft_replay_execute(rf, sc, vi, &c);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The machine (fibers, site ids) once, before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return weft_machine_init();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct weft_replay rf;
	char err[256];

	if (weft_replay_decode(data, size, &rf, err, sizeof(err)) == 0) {
		exercise(&rf);
		weft_replay_free(&rf);
	} else if (!err[0]) {
		abort();   /* every refusal says why */
	}
	if (weft_replay_decode_content(data, size, &rf, err, sizeof(err)) == 0) {
		exercise(&rf);
		weft_replay_free(&rf);
	} else if (!err[0]) {
		abort();
	}
	return 0;
}
