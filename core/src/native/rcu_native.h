/* rcu_native.h - RCU of the native build as native.c calls it (native/ only). */
#ifndef WEFT_RCU_NATIVE_H
#define WEFT_RCU_NATIVE_H

#include <weft/weft.h>

/* RCU's per-iteration reset (host, before setup) and its check at the end
 * of a model thread (rcu_native.c, called by native.c). */
void weft_rcu_native_reset(const struct weft_scenario *sc);
void weft_rcu_native_thread_end(void);

#endif
