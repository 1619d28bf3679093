/* Plain extern entry points over the static inline functions of westwood_core.h, so the
 * Rust tests (crates/bpf-core) can call exactly the code the BPF program inlines. */
#include <stddef.h>
#include "westwood_core.h"

/* --- layout, for the Rust mirrors of the structs --- */
size_t wwc_ffi_sizeof_tcpw(void) { return sizeof(struct wwc_tcpw); }
size_t wwc_ffi_sizeof_plus(void) { return sizeof(struct wwc_plus); }
size_t wwc_ffi_sizeof_reno(void) { return sizeof(struct wwc_reno); }
size_t wwc_ffi_offsetof_tcpw_flags(void) { return offsetof(struct wwc_tcpw, flags); }
size_t wwc_ffi_offsetof_plus_flags(void) { return offsetof(struct wwc_plus, flags); }

/* --- fixed-point helpers --- */
__u64 wwc_ffi_muldiv64(__u64 x, __u32 mul, __u64 den) { return wwc_muldiv64(x, mul, den); }
__u32 wwc_ffi_shift_to_u32(__u64 v) { return wwc_shift_to_u32(v); }
__u64 wwc_ffi_tustin_alpha_q32(__u32 tau_us, __u32 delta_us) { return wwc_tustin_alpha_q32(tau_us, delta_us); }
__u64 wwc_ffi_tustin_step(__u64 bwe, __u64 prev_sample, __u64 bytes, __u32 delta_us, __u32 tau_us)
{
	return wwc_tustin_step(bwe, prev_sample, bytes, delta_us, tau_us);
}

/* --- AckedCount --- */
__u32 wwc_ffi_acked_count(struct wwc_acked *a, __u32 *flags, __u32 ack_seq, __u32 mss)
{
	return wwc_acked_count(a, flags, ack_seq, mss);
}

/* --- TCPW --- */
void wwc_ffi_tcpw_init(struct wwc_tcpw *s) { wwc_tcpw_init(s); }
void wwc_ffi_tcpw_advance(struct wwc_tcpw *s, __u64 now_us, __u32 tau_us, __u32 m)
{
	wwc_tcpw_advance(s, now_us, tau_us, m);
}
void wwc_ffi_tcpw_filter_ack(struct wwc_tcpw *s, __u64 now_us, __u32 bytes, __u32 tau_us, __u32 m)
{
	wwc_tcpw_filter_ack(s, now_us, bytes, tau_us, m);
}
__u32 wwc_ffi_tcpw_on_ack(struct wwc_tcpw *s, __u64 now_us, __u32 ack_seq, __u32 mss, __s64 rtt_us,
			  __u32 tau_us, __u32 m)
{
	return wwc_tcpw_on_ack(s, now_us, ack_seq, mss, rtt_us, tau_us, m);
}
__u64 wwc_ffi_tcpw_bwe_q8(const struct wwc_tcpw *s) { return wwc_tcpw_bwe_q8(s); }
__u32 wwc_ffi_tcpw_ssthresh(struct wwc_tcpw *s, __u64 now_us, __u32 mss, __u32 tau_us, __u32 m)
{
	return wwc_tcpw_ssthresh(s, now_us, mss, tau_us, m);
}

/* --- TCPW with a sampling choice (WWC_SAMPLE_TRAPEZOID / WWC_SAMPLE_INTERVAL) --- */
__u64 wwc_ffi_interval_step(__u64 bwe, __u64 bytes, __u32 delta_us, __u32 tau_us)
{
	return wwc_interval_step(bwe, bytes, delta_us, tau_us);
}
void wwc_ffi_tcpw_advance_sampled(struct wwc_tcpw *s, __u64 now_us, __u32 tau_us, __u32 m, __u32 sample)
{
	wwc_tcpw_advance_sampled(s, now_us, tau_us, m, sample);
}
void wwc_ffi_tcpw_filter_ack_sampled(struct wwc_tcpw *s, __u64 now_us, __u32 bytes, __u32 tau_us, __u32 m,
				     __u32 sample)
{
	wwc_tcpw_filter_ack_sampled(s, now_us, bytes, tau_us, m, sample);
}
__u32 wwc_ffi_tcpw_on_ack_sampled(struct wwc_tcpw *s, __u64 now_us, __u32 ack_seq, __u32 mss, __s64 rtt_us,
				  __u32 tau_us, __u32 m, __u32 sample)
{
	return wwc_tcpw_on_ack_sampled(s, now_us, ack_seq, mss, rtt_us, tau_us, m, sample);
}
__u32 wwc_ffi_tcpw_ssthresh_sampled(struct wwc_tcpw *s, __u64 now_us, __u32 mss, __u32 tau_us, __u32 m,
				    __u32 sample)
{
	return wwc_tcpw_ssthresh_sampled(s, now_us, mss, tau_us, m, sample);
}

/* --- Westwood+ --- */
void wwc_ffi_plus_init(struct wwc_plus *s) { wwc_plus_init(s); }
void wwc_ffi_plus_rtt_sample(struct wwc_plus *s, __u32 rtt_us) { wwc_plus_rtt_sample(s, rtt_us); }
void wwc_ffi_plus_filter_ack(struct wwc_plus *s, __u64 now_us, __u32 bytes, __u32 min_window_us)
{
	wwc_plus_filter_ack(s, now_us, bytes, min_window_us);
}
__u32 wwc_ffi_plus_on_ack(struct wwc_plus *s, __u64 now_us, __u32 ack_seq, __u32 mss, __s64 rtt_us,
			  __u32 min_window_us)
{
	return wwc_plus_on_ack(s, now_us, ack_seq, mss, rtt_us, min_window_us);
}
__u64 wwc_ffi_plus_bwe_q8(const struct wwc_plus *s) { return wwc_plus_bwe_q8(s); }
__u32 wwc_ffi_plus_ssthresh(const struct wwc_plus *s, __u32 mss) { return wwc_plus_ssthresh(s, mss); }

/* --- window rules --- */
__u32 wwc_ffi_ssthresh_segs(__u64 bwe_q8, __u32 rtt_min_us, int have_rtt, __u32 mss)
{
	return wwc_ssthresh_segs(bwe_q8, rtt_min_us, have_rtt, mss);
}
__u32 wwc_ffi_cwnd_after_dupacks(__u32 cwnd, __u32 ssthresh) { return wwc_cwnd_after_dupacks(cwnd, ssthresh); }
__u32 wwc_ffi_cwnd_after_timeout(void) { return wwc_cwnd_after_timeout(); }

/* --- reference Reno growth --- */
void wwc_ffi_reno_init(struct wwc_reno *r, __u32 cwnd, __u32 ssthresh) { wwc_reno_init(r, cwnd, ssthresh); }
void wwc_ffi_reno_set(struct wwc_reno *r, __u32 cwnd, __u32 ssthresh) { wwc_reno_set(r, cwnd, ssthresh); }
void wwc_ffi_reno_grow(struct wwc_reno *r, __u32 newly_acked_bytes) { wwc_reno_grow(r, newly_acked_bytes); }

/* --- TCPW-TR --- */
size_t wwc_ffi_sizeof_tr(void) { return sizeof(struct wwc_tr); }
size_t wwc_ffi_offsetof_tr_flags(void) { return offsetof(struct wwc_tr, flags); }
size_t wwc_ffi_offsetof_tr_a_quarters(void) { return offsetof(struct wwc_tr, a_quarters); }
__u64 wwc_ffi_tr_step(__u64 bwe, __u64 sample, __u64 prev_sample, __u32 ratio)
{
	return wwc_tr_step(bwe, sample, prev_sample, ratio);
}
void wwc_ffi_tr_init(struct wwc_tr *s) { wwc_tr_init(s); }
void wwc_ffi_tr_rtt_sample(struct wwc_tr *s, __u32 rtt_us) { wwc_tr_rtt_sample(s, rtt_us); }
void wwc_ffi_tr_filter_ack(struct wwc_tr *s, __u64 now_us, __u32 bytes, __u32 ratio)
{
	wwc_tr_filter_ack(s, now_us, bytes, ratio);
}
__u32 wwc_ffi_tr_on_ack(struct wwc_tr *s, __u64 now_us, __u32 ack_seq, __u32 mss, __s64 rtt_us, __u32 ratio)
{
	return wwc_tr_on_ack(s, now_us, ack_seq, mss, rtt_us, ratio);
}
__u64 wwc_ffi_tr_bwe_q8(const struct wwc_tr *s) { return wwc_tr_bwe_q8(s); }
__u32 wwc_ffi_tr_update_factor(struct wwc_tr *s, int timeout, int in_slow_start)
{
	return wwc_tr_update_factor(s, timeout, in_slow_start);
}
__u32 wwc_ffi_tr_ssthresh(struct wwc_tr *s, int timeout, int in_slow_start, __u32 mss)
{
	return wwc_tr_ssthresh(s, timeout, in_slow_start, mss);
}

/* --- TCPW ABSE --- */
size_t wwc_ffi_sizeof_abse(void) { return sizeof(struct wwc_abse); }
size_t wwc_ffi_sizeof_abse_params(void) { return sizeof(struct wwc_abse_params); }
size_t wwc_ffi_sizeof_abse_slot(void) { return sizeof(struct wwc_abse_slot); }
size_t wwc_ffi_offsetof_abse_acked(void) { return offsetof(struct wwc_abse, acked); }
size_t wwc_ffi_offsetof_abse_flags(void) { return offsetof(struct wwc_abse, flags); }
size_t wwc_ffi_offsetof_abse_count(void) { return offsetof(struct wwc_abse, count); }
size_t wwc_ffi_offsetof_abse_slots(void) { return offsetof(struct wwc_abse, slots); }
size_t wwc_ffi_offsetof_abse_params_u_max_q8(void) { return offsetof(struct wwc_abse_params, u_max_q8); }
size_t wwc_ffi_offsetof_abse_params_history_slot_ns(void)
{
	return offsetof(struct wwc_abse_params, history_slot_ns);
}
void wwc_ffi_abse_params_default(struct wwc_abse_params *p)
{
	struct wwc_abse_params d = WWC_ABSE_PARAMS_DEFAULT;

	*p = d;
}
__u64 wwc_ffi_ratio_q32(__u64 u, __u64 u_max) { return wwc_ratio_q32(u, u_max); }
__u64 wwc_ffi_abse_tau_ns(__u64 rtt_ns, __u32 n, __u64 ratio_q32) { return wwc_abse_tau_ns(rtt_ns, n, ratio_q32); }
__u64 wwc_ffi_abse_interval_ns(__u64 th_q8, __u64 rtt_ns, __u64 rtt_min_ns, __u64 cwnd_bytes, __u64 t_min_ns)
{
	return wwc_abse_interval_ns(th_q8, rtt_ns, rtt_min_ns, cwnd_bytes, t_min_ns);
}
__u64 wwc_ffi_abse_step(__u64 est, __u64 sample, __u64 prev_sample, __u64 delta_ns, __u64 tau_ns)
{
	return wwc_abse_step(est, sample, prev_sample, delta_ns, tau_ns);
}
void wwc_ffi_abse_init(struct wwc_abse *s) { wwc_abse_init(s); }
void wwc_ffi_abse_rtt_sample(struct wwc_abse *s, __u32 rtt_us) { wwc_abse_rtt_sample(s, rtt_us); }
__u32 wwc_ffi_abse_rtt_min_us(const struct wwc_abse *s) { return wwc_abse_rtt_min_us(s); }
void wwc_ffi_abse_record(struct wwc_abse *s, __u64 now_ns, __u64 bytes, __u64 keep_ns, __u64 q_ns)
{
	wwc_abse_record(s, now_ns, bytes, keep_ns, q_ns);
}
__u64 wwc_ffi_abse_bytes_within(const struct wwc_abse *s, __u64 now_ns, __u64 window_ns)
{
	return wwc_abse_bytes_within(s, now_ns, window_ns);
}
void wwc_ffi_abse_filter_ack(struct wwc_abse *s, const struct wwc_abse_params *p, __u64 now_ns, __u64 bytes,
			     __u64 cwnd_bytes)
{
	wwc_abse_filter_ack(s, p, now_ns, bytes, cwnd_bytes);
}
__u32 wwc_ffi_abse_on_ack(struct wwc_abse *s, const struct wwc_abse_params *p, __u64 now_us, __u32 ack_seq,
			  __u32 mss, __s64 rtt_us, __u64 cwnd_bytes)
{
	return wwc_abse_on_ack(s, p, now_us, ack_seq, mss, rtt_us, cwnd_bytes);
}
__u64 wwc_ffi_abse_bwe_q8(const struct wwc_abse *s) { return wwc_abse_bwe_q8(s); }
__u32 wwc_ffi_abse_ssthresh(const struct wwc_abse *s, __u32 mss) { return wwc_abse_ssthresh(s, mss); }

/* --- TCPW with a chosen AckedCount rule, and the UCLA agent --- */
__u32 wwc_ffi_tcpw_on_ack_rule(struct wwc_tcpw *s, __u64 now_us, __u32 ack_seq, __u32 mss, __s64 rtt_us,
			       __u32 tau_us, __u32 m, __u32 sample, __u32 acked_rule)
{
	return wwc_tcpw_on_ack_rule(s, now_us, ack_seq, mss, rtt_us, tau_us, m, sample, acked_rule);
}
size_t wwc_ffi_sizeof_ucla(void) { return sizeof(struct wwc_ucla); }
size_t wwc_ffi_sizeof_ucla_params(void) { return sizeof(struct wwc_ucla_params); }
void wwc_ffi_ucla_init(struct wwc_ucla *s, const struct wwc_ucla_params *p) { wwc_ucla_init(s, p); }
__u32 wwc_ffi_ucla_on_ack(struct wwc_ucla *s, const struct wwc_ucla_params *p, __u64 now_us, __u32 ack_seq,
			  __u32 mss, __s64 rtt_us, __u32 acked_rule)
{
	return wwc_ucla_on_ack(s, p, now_us, ack_seq, mss, rtt_us, acked_rule);
}
__u64 wwc_ffi_ucla_bwe_q8(const struct wwc_ucla *s) { return wwc_ucla_bwe_q8(s); }
__u32 wwc_ffi_ucla_ssthresh(struct wwc_ucla *s, int timeout, int in_slow_start, __u32 mss)
{
	return wwc_ucla_ssthresh(s, timeout, in_slow_start, mss);
}
