/* state.c -- the recorder's shared state (state.h).  Defined here, apart
 * from the files that use it, so that each of them depends on this file
 * and none on another for it. */
#include "state.h"

__thread struct ctrace__thread ctrace__state_tls CTRACE_STATE_SELF_ATTR;

struct ctrace__gate_page ctrace__state_gate;

uint8_t ctrace__state_capture_on;
uint8_t ctrace__state_entry_regs_on;
uint8_t ctrace__state_exit_regs_on;

__thread uint8_t ctrace__state_self __attribute__((tls_model("initial-exec")));

uint32_t ctrace__state_max_depth; /* CTRACE_DEPTH */
uint64_t ctrace__state_min_ticks; /* CTRACE_MIN_DURATION */
