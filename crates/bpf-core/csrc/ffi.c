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
__u64 wwc_ffi_muldiv(__u64 x, __u32 mul, __u32 den) { return wwc_muldiv(x, mul, den); }
__u64 wwc_ffi_muldiv64(__u64 x, __u32 mul, __u64 den) { return wwc_muldiv64(x, mul, den); }
__u64 wwc_ffi_mul_q32(__u64 x, __u64 f) { return wwc_mul_q32(x, f); }
__u64 wwc_ffi_tustin_alpha_q32(__u32 tau_us, __u32 delta_us) { return wwc_tustin_alpha_q32(tau_us, delta_us); }
__u64 wwc_ffi_tustin_step(__u64 bwe, __u64 prev_sample, __u64 bytes, __u32 delta_us, __u32 tau_us)
{
	return wwc_tustin_step(bwe, prev_sample, bytes, delta_us, tau_us);
}
__u64 wwc_ffi_sample_q8(__u64 bytes, __u64 delta_us) { return wwc_sample_q8(bytes, delta_us); }
__u32 wwc_ffi_virtual_interval_us(__u32 tau_us, __u32 m) { return wwc_virtual_interval_us(tau_us, m); }

/* --- AckedCount --- */
__u32 wwc_ffi_acked_count(struct wwc_acked *a, __u32 *flags, __u32 ack_seq, __u32 mss)
{
	return wwc_acked_count(a, flags, ack_seq, mss);
}

/* --- TCPW --- */
void wwc_ffi_tcpw_init(struct wwc_tcpw *s) { wwc_tcpw_init(s); }
void wwc_ffi_tcpw_rtt_sample(struct wwc_tcpw *s, __u32 rtt_us) { wwc_tcpw_rtt_sample(s, rtt_us); }
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
