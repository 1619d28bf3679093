/* SPDX-License-Identifier: MIT */
/*
 * westwood_core.h -- the arithmetic core of TCP Westwood (TCPW, seed 000 §2-3) and
 * Westwood+ in integer fixed point, shared by the eBPF congestion control
 * (kernel/tcpw.bpf.c, which includes vmlinux.h first) and by native tests
 * (crates/bpf-core, which compiles it with the host C compiler and replays the
 * reference vectors through it).
 *
 * It mirrors crates/algorithms/src/westwood/{acked_count,filter,tcpw,plus,controller}.rs
 * and crates/algorithms/src/reno.rs in semantics.
 *
 * Rules the code keeps so the BPF verifier accepts it:
 *   - no floating point anywhere;
 *   - only unsigned 64-bit (and 32-bit) division and modulo, every divisor guarded
 *     against zero;
 *   - no unbounded loop: the only loops run at most 32 times (constant bound).
 *
 * Units and fixed-point formats
 *   time            microseconds, __u64 (the kernel's tp->tcp_mstamp; RTT samples are
 *                   the rtt_us of pkts_acked / rate samples)
 *   BWE, samples    bits per second in Q8 (value * 2^8), __u64: resolution 1/256 bit/s,
 *                   range up to 2^56 bit/s (7e16), far above any link.  wwc_bps() gives
 *                   whole bits/s.
 *   Tustin step     computed as one exact rational expression (see wwc_tustin_step):
 *                   BWE_k = [(2tau - D) BWE_{k-1} + D b_{k-1} + 8e6 * 2^8 * bytes_k] / (2tau + D)
 *                   (D b_k = 8 * bytes_k / D * D needs no division), rounded to nearest
 *                   once; alpha is never rounded on its own, so tiny D (ACK bursts) loses
 *                   no precision.
 *   alpha           Q32 (value * 2^32), wwc_tustin_alpha_q32(); used for the decay factor
 *                   ((2m-1)/(2m+1))^h of the virtual samples, by binary exponentiation.
 *   windows         segments (packets), __u32, like the kernel's snd_cwnd / snd_ssthresh.
 *   AckedCount      sequence numbers are the kernel's __u32 byte sequence numbers, compared
 *                   with wrap-around (after()/before() semantics); credits are in segments
 *                   of mss bytes (rounded up), and the filters get segments * mss bytes.
 */
#ifndef WESTWOOD_CORE_H
#define WESTWOOD_CORE_H

/* ---- compat: kernel types natively; in BPF vmlinux.h (included first) has them ---- */
#if !defined(__bpf__) && !defined(__VMLINUX_H__) && !defined(WWC_HAVE_KERNEL_TYPES) && \
	!defined(_LINUX_TYPES_H) && !defined(__ASM_GENERIC_INT_LL64_H)
/* The base types of the kernel's asm-generic/int-ll64.h (not <stdint.h>'s, where uint64_t may
 * be unsigned long), so a later <linux/types.h> repeats identical typedefs (legal in C11). */
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef int __s32;
typedef long long __s64;
#endif
_Static_assert(sizeof(__u32) == 4 && sizeof(__u64) == 8, "kernel integer widths");

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* ---- parameters (defaults of TcpwParams / PlusParams in the Rust reference) ---- */
#define WWC_TCPW_TAU_US 500000u      /* filter time constant tau: 500 ms (seed 000 §4) */
#define WWC_TCPW_M 2u                /* virtual null sample every tau/m of silence, m >= 2 */
#define WWC_PLUS_MIN_WINDOW_US 50000u /* Westwood+ sampling window >= 50 ms (Linux) */
/* Largest tau accepted: keeps 2tau + Delta (Delta <= tau/2) below 2^32. */
#define WWC_TCPW_TAU_MAX_US 1000000000u

#define WWC_BWE_SHIFT 8 /* BWE and samples: bits/s in Q8 */
#define WWC_USEC_PER_SEC 1000000u
/* bits/s Q8 contributed by one byte over one microsecond: 8 * 1e6 * 2^8 (< 2^31). */
#define WWC_BYTE_PER_US_Q8 (8u * WWC_USEC_PER_SEC << WWC_BWE_SHIFT)
#define WWC_ONE_Q32 (1ull << 32)
#define WWC_U32_MAX 0xffffffffu

/* state flags */
#define WWC_F_HAVE_ACK 1u    /* AckedCount has seen an ACK (last_ack valid) */
#define WWC_F_HAVE_TIME 2u   /* filter clock started / Westwood+ window opened */
#define WWC_F_HAVE_RTT 4u    /* rtt_min_us (and Westwood+ rtt_us) valid */
#define WWC_F_HAVE_SAMPLE 8u /* Westwood+: first sample taken (initialised both EWMAs) */

/* AckedCount state (seed 000 §2.3). */
struct wwc_acked {
	__u32 last_ack;      /* last_ack_seqno, bytes (kernel sequence space) */
	__u32 accounted_for; /* segments reported by DUPACKs not yet covered by a cumulative ACK */
};

/* TCPW per-connection state: 48 bytes. */
struct wwc_tcpw {
	__u64 bwe;          /* BWE_{k-1}: bits/s Q8 */
	__u64 prev_sample;  /* b_{k-1}: bits/s Q8 */
	__u64 last_us;      /* t_{k-1}: time of the last real or virtual sample, us */
	struct wwc_acked acked;
	__u32 carried_bytes; /* bytes of ACKs with Delta = 0, carried into the next sample */
	__u32 rtt_min_us;    /* RTTmin: smallest RTT sample of the connection */
	__u32 flags;         /* WWC_F_* */
	__u32 virtual_samples; /* count of virtual null samples applied (saturating; diagnostics) */
};

/* Westwood+ per-connection state: 56 bytes. */
struct wwc_plus {
	__u64 bw_ns_est;    /* first EWMA stage: bits/s Q8 */
	__u64 bw_est;       /* second stage, the estimate: bits/s Q8 */
	__u64 win_start_us; /* start of the current sampling window, us */
	__u64 win_bytes;    /* bytes credited in the current window */
	struct wwc_acked acked;
	__u32 rtt_us;       /* latest RTT sample, us (sets the window length) */
	__u32 rtt_min_us;   /* RTTmin */
	__u32 flags;        /* WWC_F_* */
	__u32 samples;      /* samples taken (saturating; diagnostics) */
};

/* Reference Reno window (segments). Used by the native replay of the vectors; the BPF
 * program may instead leave growth to the kernel (tcp_reno_cong_avoid /
 * tcp_slow_start / tcp_cong_avoid_ai kfuncs). */
struct wwc_reno {
	__u32 cwnd;     /* segments */
	__u32 ssthresh; /* segments */
	__u32 cnt;      /* ACKs counted towards the next congestion-avoidance increment */
};

/* The kernel gives a congestion control ICSK_CA_PRIV_SIZE = 13 * 8 = 104 bytes; leave
 * room for the BPF program's own fields. */
_Static_assert(sizeof(struct wwc_tcpw) <= 88, "TCPW state must fit in icsk_ca_priv");
_Static_assert(sizeof(struct wwc_plus) <= 88, "Westwood+ state must fit in icsk_ca_priv");

/* =============================== fixed-point helpers =============================== */

/* floor(x * mul / den) without overflow for mul, den < 2^32 (den > 0): x = q den + r,
 * x mul / den = q mul + r mul / den with r mul < 2^64. *rem gets (x mul) mod den.
 * Exact whenever the quotient fits in 64 bits. den == 0 gives 0. */
static __always_inline __u64 wwc_muldiv_rem(__u64 x, __u32 mul, __u32 den, __u64 *rem)
{
	__u64 q, r, lo;

	if (den == 0) {
		*rem = 0;
		return 0;
	}
	q = x / den;
	r = x % den;
	lo = r * mul;
	*rem = lo % den;
	return q * mul + lo / den;
}

static __always_inline __u64 wwc_muldiv(__u64 x, __u32 mul, __u32 den)
{
	__u64 rem;

	return wwc_muldiv_rem(x, mul, den, &rem);
}

/* floor(x * mul / den) for a 64-bit den: den is shifted (with x) below 2^32 first,
 * a relative error below 2^-31 when den >= 2^32 (exact otherwise). */
static __always_inline __u64 wwc_muldiv64(__u64 x, __u32 mul, __u64 den)
{
	int i;

	for (i = 0; i < 32; i++) {
		if (den <= WWC_U32_MAX)
			break;
		den >>= 1;
		x >>= 1;
	}
	return wwc_muldiv(x, mul, (__u32)den);
}

/* floor(x * f / 2^32) for a Q32 factor f <= 2^32. */
static __always_inline __u64 wwc_mul_q32(__u64 x, __u64 f)
{
	return (x >> 32) * f + (((x & WWC_U32_MAX) * f) >> 32);
}

/* Whole bits/s of a Q8 value. */
static __always_inline __u64 wwc_bps(__u64 q8)
{
	return q8 >> WWC_BWE_SHIFT;
}

/* Clamp tau to (0, WWC_TCPW_TAU_MAX_US] (0 means the default). */
static __always_inline __u32 wwc_tau(__u32 tau_us)
{
	if (tau_us == 0)
		return WWC_TCPW_TAU_US;
	if (tau_us > WWC_TCPW_TAU_MAX_US)
		return WWC_TCPW_TAU_MAX_US;
	return tau_us;
}

/* Virtual-sample spacing tau/m, m >= 2 enforced (Nyquist, seed 000 §2.2); never 0. */
static __always_inline __u32 wwc_virtual_interval_us(__u32 tau_us, __u32 m)
{
	__u32 interval;

	if (m < 2)
		m = 2;
	interval = wwc_tau(tau_us) / m;
	return interval ? interval : 1;
}

/* alpha = (2tau - D) / (2tau + D) in Q32 (0 when D >= 2tau). */
static __always_inline __u64 wwc_tustin_alpha_q32(__u32 tau_us, __u32 delta_us)
{
	__u64 two_tau = 2ull * wwc_tau(tau_us);

	if ((__u64)delta_us >= two_tau)
		return 0;
	return wwc_muldiv(WWC_ONE_Q32, (__u32)(two_tau - delta_us), (__u32)(two_tau + delta_us));
}

/* A bandwidth sample b = 8 bytes / D in bits/s Q8 (0 when D == 0). */
static __always_inline __u64 wwc_sample_q8(__u64 bytes, __u64 delta_us)
{
	if (delta_us == 0)
		return 0;
	return wwc_muldiv64(bytes, WWC_BYTE_PER_US_Q8, delta_us);
}

/* One Tustin step (seed 000 §2.2) with Delta = delta_us (> 0, <= tau/2 after the virtual
 * samples) and the new sample given as the bytes it reports:
 *   BWE_k = alpha BWE_{k-1} + (1 - alpha) (b_k + b_{k-1}) / 2,  alpha = (2tau-D)/(2tau+D)
 *         = [(2tau - D) BWE_{k-1} + D b_{k-1} + D b_k] / (2tau + D),  D b_k = 8 bytes (Q8),
 * each term split into quotient and remainder by (2tau + D), rounded to nearest once. */
static __always_inline __u64 wwc_tustin_step(__u64 bwe, __u64 prev_sample, __u64 bytes,
					     __u32 delta_us, __u32 tau_us)
{
	__u64 two_tau = 2ull * wwc_tau(tau_us);
	__u64 d = delta_us;
	__u64 den, q, ra, rb, rc, prod;

	if (d > two_tau)
		d = two_tau; /* alpha = 0: unreachable with m >= 2, kept for safety */
	den = two_tau + d; /* < 2^32: tau <= 1e9 us */
	q = wwc_muldiv_rem(bwe, (__u32)(two_tau - d), (__u32)den, &ra);
	q += wwc_muldiv_rem(prev_sample, (__u32)d, (__u32)den, &rc);
	if (bytes > WWC_U32_MAX)
		bytes = WWC_U32_MAX;
	prod = bytes * WWC_BYTE_PER_US_Q8; /* < 2^63 */
	q += prod / den;
	rb = prod % den;
	return q + (ra + rb + rc + den / 2) / den;
}

/* ================================ AckedCount (§2.3) ================================ */

/* PROCEDURE AckedCount: segments to credit for an ACK with cumulative ack ack_seq (bytes,
 * __u32 sequence space). cumul_ack = ceil((ack_seq - last) / mss); an old ACK (before
 * last) counts like a DUPACK, as the reference's saturating subtraction does. The first
 * ACK ever seen is a DUPACK of itself (credit 1, accounted_for 1), as in the reference.
 * *flags carries WWC_F_HAVE_ACK. */
static __always_inline __u32 wwc_acked_count(struct wwc_acked *a, __u32 *flags, __u32 ack_seq,
					     __u32 mss)
{
	__u32 last = (*flags & WWC_F_HAVE_ACK) ? a->last_ack : ack_seq;
	__s32 adv = (__s32)(ack_seq - last);
	__u64 cumul = 0;

	if (mss == 0)
		mss = 1;
	if (adv > 0)
		cumul = ((__u64)(__u32)adv + mss - 1) / mss;
	if (cumul == 0) {
		a->accounted_for++;
		cumul = 1;
	}
	if (cumul > 1) {
		if (a->accounted_for >= cumul) {
			a->accounted_for -= (__u32)cumul;
			cumul = 1;
		} else {
			cumul -= a->accounted_for;
			a->accounted_for = 0;
		}
	}
	a->last_ack = adv > 0 ? ack_seq : last;
	*flags |= WWC_F_HAVE_ACK;
	return (__u32)cumul;
}

/* ============================== TCPW estimator (§2.2) ============================== */

static __always_inline void wwc_tcpw_init(struct wwc_tcpw *s)
{
	s->bwe = 0;
	s->prev_sample = 0;
	s->last_us = 0;
	s->acked.last_ack = 0;
	s->acked.accounted_for = 0;
	s->carried_bytes = 0;
	s->rtt_min_us = 0;
	s->flags = 0;
	s->virtual_samples = 0;
}

/* RTTmin over the connection. */
static __always_inline void wwc_tcpw_rtt_sample(struct wwc_tcpw *s, __u32 rtt_us)
{
	if (!(s->flags & WWC_F_HAVE_RTT) || rtt_us < s->rtt_min_us)
		s->rtt_min_us = rtt_us;
	s->flags |= WWC_F_HAVE_RTT;
}

/* Apply the virtual null samples due strictly before now_us: with I = tau/m and t_{k-1}
 * the last sample time, h = #{j >= 1 : t_{k-1} + j I < now}. The first virtual step still
 * averages in b_{k-1}; each later one multiplies BWE by r = (2tau - I)/(2tau + I), so the
 * h - 1 later ones are BWE * r^(h-1), by binary exponentiation of r in Q32 (at most 32
 * rounds; r^(2^32) is 0 in Q32 anyway). Carried bytes are dropped, as in the reference. */
static __always_inline void wwc_tcpw_advance(struct wwc_tcpw *s, __u64 now_us, __u32 tau_us, __u32 m)
{
	__u32 interval = wwc_virtual_interval_us(tau_us, m);
	__u64 gap, h, r, bwe;
	int i;

	if (!(s->flags & WWC_F_HAVE_TIME) || now_us <= s->last_us)
		return;
	gap = now_us - s->last_us;
	if (gap <= interval)
		return;
	h = (gap - 1) / interval; /* >= 1 */
	s->last_us += h * interval;
	s->virtual_samples = s->virtual_samples + h > WWC_U32_MAX ? WWC_U32_MAX
								  : (__u32)(s->virtual_samples + h);
	bwe = wwc_tustin_step(s->bwe, s->prev_sample, 0, interval, tau_us);
	s->prev_sample = 0;
	s->carried_bytes = 0;
	h -= 1;
	r = wwc_tustin_alpha_q32(tau_us, interval);
	for (i = 0; i < 32; i++) {
		if (h == 0)
			break;
		if (h & 1)
			bwe = wwc_mul_q32(bwe, r);
		h >>= 1;
		r = wwc_mul_q32(r, r);
	}
	if (h)
		bwe = 0;
	s->bwe = bwe;
}

/* Filter part of an ACK: bytes is AckedCount's credit (segments * mss). The first ACK
 * only starts the clock; an ACK with Delta = 0 is carried into the next sample. */
static __always_inline void wwc_tcpw_filter_ack(struct wwc_tcpw *s, __u64 now_us, __u32 bytes,
						__u32 tau_us, __u32 m)
{
	__u64 delta, total, sample;

	wwc_tcpw_advance(s, now_us, tau_us, m);
	if (!(s->flags & WWC_F_HAVE_TIME)) {
		s->flags |= WWC_F_HAVE_TIME;
		s->last_us = now_us;
		return;
	}
	delta = now_us > s->last_us ? now_us - s->last_us : 0;
	total = (__u64)bytes + s->carried_bytes;
	if (total > WWC_U32_MAX)
		total = WWC_U32_MAX;
	if (delta == 0) {
		s->carried_bytes = (__u32)total;
		return;
	}
	if (delta > WWC_U32_MAX)
		delta = WWC_U32_MAX; /* unreachable after wwc_tcpw_advance (delta <= tau/m) */
	s->carried_bytes = 0;
	sample = wwc_sample_q8(total, delta);
	s->bwe = wwc_tustin_step(s->bwe, s->prev_sample, total, (__u32)delta, tau_us);
	s->prev_sample = sample;
	s->last_us = now_us;
}

/* Everything TCPW does on an ACK (new or duplicate), in the reference's order: RTT sample
 * (rtt_us < 0: none), AckedCount, filter. Returns the credited bytes. */
static __always_inline __u32 wwc_tcpw_on_ack(struct wwc_tcpw *s, __u64 now_us, __u32 ack_seq,
					     __u32 mss, __s64 rtt_us, __u32 tau_us, __u32 m)
{
	__u64 bytes;

	if (rtt_us >= 0)
		wwc_tcpw_rtt_sample(s, rtt_us > WWC_U32_MAX ? WWC_U32_MAX : (__u32)rtt_us);
	bytes = (__u64)wwc_acked_count(&s->acked, &s->flags, ack_seq, mss) * (mss ? mss : 1);
	if (bytes > WWC_U32_MAX)
		bytes = WWC_U32_MAX;
	wwc_tcpw_filter_ack(s, now_us, (__u32)bytes, tau_us, m);
	return (__u32)bytes;
}

/* BWE in bits/s Q8 as of the last event. */
static __always_inline __u64 wwc_tcpw_bwe_q8(const struct wwc_tcpw *s)
{
	return s->bwe;
}

/* ============================ Westwood+ estimator ============================ */

static __always_inline void wwc_plus_init(struct wwc_plus *s)
{
	s->bw_ns_est = 0;
	s->bw_est = 0;
	s->win_start_us = 0;
	s->win_bytes = 0;
	s->acked.last_ack = 0;
	s->acked.accounted_for = 0;
	s->rtt_us = 0;
	s->rtt_min_us = 0;
	s->flags = 0;
	s->samples = 0;
}

/* Latest RTT (window length) and RTTmin. */
static __always_inline void wwc_plus_rtt_sample(struct wwc_plus *s, __u32 rtt_us)
{
	if (!(s->flags & WWC_F_HAVE_RTT) || rtt_us < s->rtt_min_us)
		s->rtt_min_us = rtt_us;
	s->rtt_us = rtt_us;
	s->flags |= WWC_F_HAVE_RTT;
}

/* Estimator part of an ACK: bytes is AckedCount's credit. Counts bytes over a window of
 * max(latest RTT, min_window_us); when an ACK arrives after the window has elapsed, one
 * sample bytes / elapsed goes through two 7/8 EWMAs (the first sample initialises both).
 * No window closes before the first RTT sample. */
static __always_inline void wwc_plus_filter_ack(struct wwc_plus *s, __u64 now_us, __u32 bytes,
						__u32 min_window_us)
{
	__u64 elapsed, window, sample;

	if (!(s->flags & WWC_F_HAVE_TIME)) {
		s->flags |= WWC_F_HAVE_TIME;
		s->win_start_us = now_us;
		s->win_bytes = bytes;
		return;
	}
	s->win_bytes += bytes;
	if (!(s->flags & WWC_F_HAVE_RTT))
		return;
	elapsed = now_us > s->win_start_us ? now_us - s->win_start_us : 0;
	window = s->rtt_us > min_window_us ? s->rtt_us : min_window_us;
	if (elapsed <= window)
		return;
	sample = wwc_sample_q8(s->win_bytes, elapsed);
	if (!(s->flags & WWC_F_HAVE_SAMPLE)) {
		s->bw_ns_est = sample;
		s->bw_est = sample;
		s->flags |= WWC_F_HAVE_SAMPLE;
	} else {
		s->bw_ns_est = (7 * s->bw_ns_est + sample) >> 3;
		s->bw_est = (7 * s->bw_est + s->bw_ns_est) >> 3;
	}
	if (s->samples != WWC_U32_MAX)
		s->samples++;
	s->win_bytes = 0;
	s->win_start_us = now_us;
}

/* Everything Westwood+ does on an ACK: RTT sample (rtt_us < 0: none), AckedCount,
 * estimator. Returns the credited bytes. */
static __always_inline __u32 wwc_plus_on_ack(struct wwc_plus *s, __u64 now_us, __u32 ack_seq,
					     __u32 mss, __s64 rtt_us, __u32 min_window_us)
{
	__u64 bytes;

	if (rtt_us >= 0)
		wwc_plus_rtt_sample(s, rtt_us > WWC_U32_MAX ? WWC_U32_MAX : (__u32)rtt_us);
	bytes = (__u64)wwc_acked_count(&s->acked, &s->flags, ack_seq, mss) * (mss ? mss : 1);
	if (bytes > WWC_U32_MAX)
		bytes = WWC_U32_MAX;
	wwc_plus_filter_ack(s, now_us, (__u32)bytes, min_window_us);
	return (__u32)bytes;
}

static __always_inline __u64 wwc_plus_bwe_q8(const struct wwc_plus *s)
{
	return s->bw_est;
}

/* ============================ window rules (§3.1, §3.2) ============================ */

/* ssthresh = max(2, floor(BWE * RTTmin / seg_size)) in segments, seg_size = 8 * mss bits;
 * without an RTT sample (have_rtt == 0) the ideal window is 0, so 2. Exact floor:
 * floor(floor(bwe_q8 * rtt / 1e6) / (2^8 * 8 * mss)). */
static __always_inline __u32 wwc_ssthresh_segs(__u64 bwe_q8, __u32 rtt_min_us, int have_rtt, __u32 mss)
{
	__u64 bits_q8, segs;

	if (!have_rtt)
		return 2;
	if (mss == 0)
		mss = 1;
	bits_q8 = wwc_muldiv(bwe_q8, rtt_min_us, WWC_USEC_PER_SEC);
	segs = bits_q8 / ((__u64)mss << (WWC_BWE_SHIFT + 3));
	if (segs < 2)
		return 2;
	return segs > WWC_U32_MAX ? WWC_U32_MAX : (__u32)segs;
}

/* TCPW ssthresh at a loss detected at now_us: the virtual samples due by then are applied
 * first (a timeout fires after a silence). Segments. */
static __always_inline __u32 wwc_tcpw_ssthresh(struct wwc_tcpw *s, __u64 now_us, __u32 mss, __u32 tau_us,
					       __u32 m)
{
	wwc_tcpw_advance(s, now_us, tau_us, m);
	return wwc_ssthresh_segs(s->bwe, s->rtt_min_us, !!(s->flags & WWC_F_HAVE_RTT), mss);
}

/* Westwood+ ssthresh (the estimate does not decay). Segments. */
static __always_inline __u32 wwc_plus_ssthresh(const struct wwc_plus *s, __u32 mss)
{
	return wwc_ssthresh_segs(s->bw_est, s->rtt_min_us, !!(s->flags & WWC_F_HAVE_RTT), mss);
}

/* cwnd after n DUPACKs (§3.1): capped at ssthresh, at least 1 segment. */
static __always_inline __u32 wwc_cwnd_after_dupacks(__u32 cwnd, __u32 ssthresh)
{
	__u32 c = cwnd < ssthresh ? cwnd : ssthresh;

	return c ? c : 1;
}

/* cwnd after a coarse timeout (§3.2): 1 segment. */
static __always_inline __u32 wwc_cwnd_after_timeout(void)
{
	return 1;
}

/* ============== reference Reno growth (native replay; BPF may use kfuncs) ============== */

static __always_inline void wwc_reno_init(struct wwc_reno *r, __u32 cwnd, __u32 ssthresh)
{
	r->cwnd = cwnd ? cwnd : 1;
	r->ssthresh = ssthresh < 2 ? 2 : ssthresh;
	r->cnt = 0;
}

/* Set both (loss rules): cwnd >= 1, ssthresh >= 2, increment credit reset. */
static __always_inline void wwc_reno_set(struct wwc_reno *r, __u32 cwnd, __u32 ssthresh)
{
	wwc_reno_init(r, cwnd, ssthresh);
}

/* Growth on an ACK of new data outside recovery (the caller skips DUPACKs and ACKs in
 * recovery), as crates/algorithms/src/reno.rs with full-sized segments: slow start
 * (cwnd < ssthresh) +1 segment per ACK (min(acked, mss) bytes); congestion avoidance +1
 * segment per cwnd ACKs. Note: the kernel's tcp_slow_start adds every acked packet (2 for
 * a delayed ACK) and tcp_cong_avoid_ai counts acked packets, not ACKs. */
static __always_inline void wwc_reno_grow(struct wwc_reno *r, __u32 newly_acked_bytes)
{
	if (newly_acked_bytes == 0)
		return;
	if (r->cwnd < r->ssthresh) {
		r->cwnd++;
		r->cnt = 0;
	} else {
		r->cnt++;
		if (r->cnt >= r->cwnd) {
			r->cnt -= r->cwnd;
			r->cwnd++;
		}
	}
}

#endif /* WESTWOOD_CORE_H */
