/* SPDX-License-Identifier: MIT */
/*
 * westwood_core.h -- the arithmetic core of TCP Westwood (TCPW, seed 000 §2-3), TCPW-TR
 * (seed 001 §II, §IV), TCPW ABSE (seed 004 §2.1) and Westwood+ in integer fixed point,
 * shared by the eBPF congestion control (kernel/tcpw.bpf.c, which includes vmlinux.h
 * first), by native tests (crates/bpf-core, which compiles it with the host C compiler
 * and replays the reference vectors through it) and by the ns-3 module (ns3/westwood, which
 * compiles it as C++).
 *
 * It mirrors crates/algorithms/src/westwood/{acked_count,filter,tcpw,tr,abse,plus,
 * controller}.rs and crates/algorithms/src/reno.rs in semantics.
 *
 * Rules the code keeps so the BPF verifier accepts it:
 *   - no floating point anywhere, no 128-bit arithmetic;
 *   - only unsigned 64-bit (and 32-bit) division and modulo, every divisor guarded
 *     against zero;
 *   - no unbounded loop: the only loops run at most 32 times (constant bound); the
 *     normalising shifts (wwc_shift_to_u32) and ABSE's binary search (wwc_abse_count_le)
 *     are branch-free, so the verifier does not fork on them;
 *   - array indices are masked (ABSE's ring of WWC_ABSE_SLOTS slots).
 *
 * Units and fixed-point formats
 *   time            microseconds, __u64 (the kernel's tp->tcp_mstamp; RTT samples are
 *                   the rtt_us of pkts_acked / rate samples). ABSE works in ns inside
 *                   (now_us * 1000, below 2^63), as its Rust reference does.
 *   BWE, samples    bits per second in Q8 (value * 2^8), __u64: resolution 1/256 bit/s,
 *                   range up to 2^56 bit/s (7e16), far above any link.  wwc_bps() gives
 *                   whole bits/s.
 *   Tustin step     computed as one exact rational expression (see wwc_tustin_step):
 *                   BWE_k = [(2tau - D) BWE_{k-1} + D b_{k-1} + 8e6 * 2^8 * bytes_k] / (2tau + D)
 *                   (D b_k = 8 * bytes_k / D * D needs no division), rounded to nearest
 *                   once; alpha is never rounded on its own, so tiny D (ACK bursts) loses
 *                   no precision. TCPW-TR: [(2r - 1) BWE + b_k + b_{k-1}] / (2r + 1);
 *                   ABSE: [(2tau - D) BWE + D (s_k + s_{k-1})] / (2tau + D), D and tau in ns.
 *                   Interval sampling (TCPW's `sample` option, WWC_SAMPLE_INTERVAL):
 *                   BWE_k = [(2tau - D) BWE_{k-1} + 2 * 8e6 * 2^8 * bytes_k] / (2tau + D),
 *                   i.e. alpha BWE_{k-1} + (1 - alpha) b_k (see wwc_interval_step).
 *   alpha           Q32 (value * 2^32), wwc_tustin_alpha_q32(); used for the decay factor
 *                   ((2m-1)/(2m+1))^h of the virtual samples, by binary exponentiation.
 *                   ABSE's U/U_max is Q32 too; its gains epsilon, beta are in 1/1000.
 *   windows         segments (packets), __u32, like the kernel's snd_cwnd / snd_ssthresh.
 *                   TCPW-TR's threshold reduction factor a is in quarters (4..16).
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

/* C++ (the ns-3 module, ns3/westwood) spells C11's _Static_assert static_assert. */
#ifdef __cplusplus
#define WWC_STATIC_ASSERT static_assert
#else
#define WWC_STATIC_ASSERT _Static_assert
#endif

WWC_STATIC_ASSERT(sizeof(__u32) == 4 && sizeof(__u64) == 8, "kernel integer widths");

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* ---- parameters (defaults of TcpwParams / PlusParams in the Rust reference) ---- */
#define WWC_TCPW_TAU_US 500000u      /* filter time constant tau: 500 ms (seed 000 §4) */
#define WWC_TCPW_M 2u                /* virtual null sample every tau/m of silence, m >= 2 */
#define WWC_PLUS_MIN_WINDOW_US 50000u /* Westwood+ sampling window >= 50 ms (Linux) */
/* TCPW's sampling (crates/algorithms filter.rs `Sampling`): which samples a Tustin step
 * averages. Any value other than WWC_SAMPLE_INTERVAL is the trapezoid. */
#define WWC_SAMPLE_TRAPEZOID 0u /* seed 000 §2.2: (b_k + b_{k-1}) / 2, the default */
#define WWC_SAMPLE_INTERVAL 1u  /* b_k alone: each sample weighted by its own interval */
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
WWC_STATIC_ASSERT(sizeof(struct wwc_tcpw) <= 88, "TCPW state must fit in icsk_ca_priv");
WWC_STATIC_ASSERT(sizeof(struct wwc_plus) <= 88, "Westwood+ state must fit in icsk_ca_priv");

/* ---- TCPW-TR (seed 001 §II, §IV) ---- */
#define WWC_TR_RATIO 10u          /* time-constant to sampling-time ratio r: alpha = (2r-1)/(2r+1) = 19/21 */
#define WWC_TR_RATIO_MAX 1000000u /* largest r accepted (keeps 2r + 1 far below 2^32) */
#define WWC_TR_A_ONE 4u           /* threshold reduction factor a is kept in quarters: a = 1 */
#define WWC_TR_A_MAX 16u          /* a <= 4 */
#define WWC_TR_A_STEP_DUPACKS 1u  /* +0.25 at a 3-DUPACK loss in slow start */
#define WWC_TR_A_STEP_TIMEOUT 4u  /* +1 at a timeout in slow start */

/* TCPW-TR per-connection state: 48 bytes. */
struct wwc_tr {
	__u64 bwe;           /* BWE_{k-1}: bits/s Q8 */
	__u64 prev_sample;   /* b_{k-1}: bits/s Q8 */
	__u64 last_us;       /* time of the last sample, us */
	struct wwc_acked acked;
	__u32 carried_bytes; /* bytes of ACKs with Delta = 0, carried into the next sample */
	__u32 rtt_min_us;    /* RTTmin (valid with WWC_F_HAVE_RTT) */
	__u32 flags;         /* WWC_F_HAVE_ACK | WWC_F_HAVE_TIME | WWC_F_HAVE_RTT */
	__u32 a_quarters;    /* threshold reduction factor a, in quarters: 4..16 (a = 1..4) */
};

/* ---- TCPW ABSE (seed 004 §2.1) ---- */
#define WWC_ABSE_T_MIN_US 50000u       /* T_min: 50 ms */
#define WWC_ABSE_N 10u                 /* N of eq. 6: tau_k from RTT to (1 + N) RTT */
#define WWC_ABSE_N_MAX 1024u           /* largest N accepted */
#define WWC_ABSE_EPSILON_PERMILLE 600u /* throughput filter gain, eq. 3 */
#define WWC_ABSE_BETA_PERMILLE 600u    /* instability filter gain, eq. 5 */
#define WWC_ABSE_SLOT_DIVISOR 32u      /* default history slot width q = T_min / 32 */
#define WWC_ABSE_SLOTS 512u            /* history slots (a power of two: indices are masked) */
#define WWC_ABSE_SLOT_MASK (WWC_ABSE_SLOTS - 1u)
#define WWC_ABSE_SEARCH_STEPS 10       /* binary search over <= 512 slots: log2(512) + 1 rounds */
#define WWC_RTT_US_MAX 0x7fffffffu     /* RTT samples are capped here (2147 s) */
#define WWC_NSEC_PER_USEC 1000u
#define WWC_NSEC_PER_SEC 1000000000u
WWC_STATIC_ASSERT((WWC_ABSE_SLOTS & WWC_ABSE_SLOT_MASK) == 0, "WWC_ABSE_SLOTS must be a power of two");
WWC_STATIC_ASSERT((1u << (WWC_ABSE_SEARCH_STEPS - 1)) == WWC_ABSE_SLOTS, "search rounds for WWC_ABSE_SLOTS");

/* ABSE parameters (AbseParams of the Rust reference). Fill every field, e.g. with
 * WWC_ABSE_PARAMS_DEFAULT: only t_min_us and history_slot_ns treat 0 as "the default". */
struct wwc_abse_params {
	__u32 t_min_us;         /* T_min, us; 0 = 50 ms */
	__u32 n;                /* N (an integer here; clamped to WWC_ABSE_N_MAX) */
	__u32 epsilon_permille; /* epsilon of eq. 3 in 1/1000 (clamped to 1000) */
	__u32 beta_permille;    /* beta of eq. 5 in 1/1000 (clamped to 1000) */
	__u64 u_max_q8;         /* fixed U_max, bits/s Q8; 0 = the running maximum of U */
	__u32 history_slot_ns;  /* history slot width q, ns; 0 = T_min / 32 (1.5625 ms) */
	__u32 reserved;         /* 0 */
};

#define WWC_ABSE_PARAMS_DEFAULT                                                            \
	{                                                                                  \
		.t_min_us = WWC_ABSE_T_MIN_US, .n = WWC_ABSE_N,                            \
		.epsilon_permille = WWC_ABSE_EPSILON_PERMILLE,                             \
		.beta_permille = WWC_ABSE_BETA_PERMILLE, .u_max_q8 = 0, .history_slot_ns = 0, \
		.reserved = 0                                                              \
	}

/* One history slot: the ACKs that arrived less than q after start_ns. cum_bytes is the
 * connection's running byte count through this slot (so a window's bytes are a difference). */
struct wwc_abse_slot {
	__u64 start_ns;  /* arrival time of the slot's first ACK, ns */
	__u64 cum_bytes; /* credited bytes of every ACK up to and including this slot */
};

/* TCPW ABSE per-connection state: 8,312 bytes (a map value, not icsk_ca_priv). All times in
 * ns (now_us * 1000), rates in bits/s Q8. */
struct wwc_abse {
	__u64 est;             /* the estimate s^_k: bits/s Q8 */
	__u64 prev_sample;     /* s_{k-1}: bits/s Q8 */
	__u64 throughput;      /* Th^_k (eq. 3): bits/s Q8 */
	__u64 instability;     /* U_k (eq. 5): bits/s Q8 */
	__u64 max_instability; /* largest U_k so far: bits/s Q8 */
	__u64 last_ack_ns;     /* t_{k-1}, ns */
	__u64 srtt_ns;         /* smoothed RTT: srtt = (7 srtt + rtt) / 8, ns (valid with HAVE_RTT) */
	__u64 total_bytes;     /* credited bytes of every ACK so far (= cum_bytes of the newest slot) */
	__u64 base_bytes;      /* cum_bytes of the last slot dropped from the history (0 at first) */
	__u64 interval_ns;     /* T_k of the last step (eq. 4; diagnostics) */
	__u64 tau_ns;          /* tau_k of the last step (eq. 6; diagnostics) */
	struct wwc_acked acked;
	__u32 rtt_min_us;      /* RTTmin (valid with WWC_F_HAVE_RTT) */
	__u32 flags;           /* WWC_F_HAVE_ACK | _TIME | _RTT | _SAMPLE (Th^ initialised) */
	__u32 head;            /* ring index of the oldest slot */
	__u32 count;           /* slots in use, <= WWC_ABSE_SLOTS */
	__u32 reserved;
	struct wwc_abse_slot slots[WWC_ABSE_SLOTS];
};
WWC_STATIC_ASSERT(sizeof(struct wwc_tr) <= 88, "TCPW-TR state must fit in icsk_ca_priv");

/* ---- the authors' ns-2 agent, UCLA tcp-westwood.cc v1.3 (crates/algorithms ucla.rs) ---- */
#define WWC_UCLA_FILTER_EWMA 0u          /* filter_type_ 0: BWE = a BWE + (1 - a) b */
#define WWC_UCLA_FILTER_RATIO10 1u       /* 1: 0.9047 BWE + 0.0476 (b + b_prev) */
#define WWC_UCLA_FILTER_RATIO15 2u       /* 2: 0.93548 BWE + 0.03225 (b + b_prev) */
#define WWC_UCLA_FILTER_TAU 3u           /* 3: Tustin with tau and idle periods of tau/2 */
#define WWC_UCLA_TAU_US 1000000u         /* tau_: 1 s */
#define WWC_UCLA_ALPHA_PPM 900000u       /* fr_alpha_ 0.9, in millionths */
#define WWC_UCLA_TICK_US 10000u          /* ns-2's tcp_tick_: 10 ms */
#define WWC_UCLA_INITIAL_RTT_MIN_US 5000000u /* RTTmin before the first sample: 5 s */
#define WWC_UCLA_SHORT_REMAINDER_US 10000u   /* filter 3: a remainder under 10 ms gives one period back */
#define WWC_UCLA_A_INITIAL 0u            /* fr_a_ starts at 0 (quarters) */

/* UCLA agent parameters (UclaParams of the Rust reference); 0 in tau_us or tick_us means the
 * default. */
struct wwc_ucla_params {
	__u32 filter;             /* WWC_UCLA_FILTER_* */
	__u32 tau_us;             /* filter 3's tau (an even number of us keeps tau/2 exact) */
	__u32 alpha_ppm;          /* filter 0's fr_alpha_ in millionths (clamped to 10^6) */
	__u32 tick_us;            /* the RTT clock tick */
	__u32 initial_rtt_min_us; /* RTTmin before the first sample */
	__u32 sample;             /* WWC_SAMPLE_TRAPEZOID (the agent's) or WWC_SAMPLE_INTERVAL */
};

/* UCLA agent per-connection state: 56 bytes. */
struct wwc_ucla {
	__u64 bwe;           /* BWE: bits/s Q8 */
	__u64 prev_sample;   /* b_prev: bits/s Q8 */
	__u64 last_us;       /* time of the last sample, us */
	__u64 idle_periods;  /* filter 3's idle periods so far */
	struct wwc_acked acked;
	__u32 carried_bytes; /* bytes of ACKs with Delta = 0, carried into the next sample */
	__u32 rtt_min_us;    /* RTTmin in whole ticks (the initial value before any sample) */
	__u32 a_quarters;    /* fr_a_ in quarters: 0 at the start, then 1..16 */
	__u32 flags;         /* WWC_F_HAVE_ACK | WWC_F_HAVE_TIME */
};
WWC_STATIC_ASSERT(sizeof(struct wwc_ucla) <= 88, "UCLA state must fit in icsk_ca_priv");
WWC_STATIC_ASSERT(sizeof(struct wwc_abse) <= 16384, "ABSE state: a few KB of map value");

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

/* The right shift that brings v below 2^32: the bit length of v >> 32 (0..32), computed
 * without a conditional jump (each step's "is the upper half non-zero" is the carry of
 * adding 2^32 - 1), so the verifier walks it once instead of forking at every bit. */
static __always_inline __u32 wwc_shift_to_u32(__u64 v)
{
	__u64 h = v >> 32, b, n = 0;

	b = ((h >> 16) + WWC_U32_MAX) >> 32;
	n += b << 4;
	h >>= b << 4;
	b = ((h >> 8) + WWC_U32_MAX) >> 32;
	n += b << 3;
	h >>= b << 3;
	b = ((h >> 4) + WWC_U32_MAX) >> 32;
	n += b << 2;
	h >>= b << 2;
	b = ((h >> 2) + WWC_U32_MAX) >> 32;
	n += b << 1;
	h >>= b << 1;
	b = ((h >> 1) + WWC_U32_MAX) >> 32;
	n += b;
	h >>= b;
	return (__u32)(n + h); /* h is 0 or 1 now */
}

/* floor(x * mul / den) for a 64-bit den: den is shifted (with x) below 2^32 first,
 * a relative error below 2^-31 when den >= 2^32 (exact otherwise). */
static __always_inline __u64 wwc_muldiv64(__u64 x, __u32 mul, __u64 den)
{
	__u32 sh = wwc_shift_to_u32(den);

	return wwc_muldiv(x >> sh, mul, (__u32)(den >> sh));
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

/* One interval-sampling step with Delta = delta_us (> 0, <= tau/2 after the virtual samples),
 * the new sample given as the bytes it reports:
 *   BWE_k = alpha BWE_{k-1} + (1 - alpha) b_k,  alpha = (2tau-D)/(2tau+D)
 *         = [(2tau - D) BWE_{k-1} + 2 D b_k] / (2tau + D),  D b_k = 8 bytes (Q8),
 * rounded to nearest once, as wwc_tustin_step. bytes = 0 is a virtual null sample:
 * round(alpha BWE_{k-1}). */
static __always_inline __u64 wwc_interval_step(__u64 bwe, __u64 bytes, __u32 delta_us, __u32 tau_us)
{
	__u64 two_tau = 2ull * wwc_tau(tau_us);
	__u64 d = delta_us;
	__u64 den, q, ra, rb, prod;

	if (d > two_tau)
		d = two_tau; /* alpha = 0: unreachable with m >= 2, kept for safety */
	den = two_tau + d; /* < 2^32: tau <= 1e9 us */
	q = wwc_muldiv_rem(bwe, (__u32)(two_tau - d), (__u32)den, &ra);
	if (bytes > WWC_U32_MAX)
		bytes = WWC_U32_MAX;
	prod = bytes * WWC_BYTE_PER_US_Q8; /* < 2^63 */
	q += 2 * (prod / den);
	rb = 2 * (prod % den); /* < 2^33 */
	return q + (ra + rb + den / 2) / den;
}

/* The TCPW step of the chosen sampling: wwc_interval_step for WWC_SAMPLE_INTERVAL, the
 * trapezoid wwc_tustin_step otherwise. */
static __always_inline __u64 wwc_tcpw_step(__u64 bwe, __u64 prev_sample, __u64 bytes, __u32 delta_us,
					   __u32 tau_us, __u32 sample)
{
	if (sample == WWC_SAMPLE_INTERVAL)
		return wwc_interval_step(bwe, bytes, delta_us, tau_us);
	return wwc_tustin_step(bwe, prev_sample, bytes, delta_us, tau_us);
}

/* ================================ AckedCount (§2.3) ================================ */

/* AckedCount's first step, the same in both rules: cumul_ack = ceil((ack_seq - last) / mss)
 * (bytes, __u32 sequence space), 0 for a DUPACK; an old ACK (before last) counts like a
 * DUPACK, as the reference's saturating subtraction does, and the first ACK ever seen is a
 * DUPACK of itself. The ACK is remembered; *flags carries WWC_F_HAVE_ACK. */
static __always_inline __u64 wwc_ack_advance(struct wwc_acked *a, __u32 *flags, __u32 ack_seq, __u32 mss)
{
	__u32 last = (*flags & WWC_F_HAVE_ACK) ? a->last_ack : ack_seq;
	__s32 adv = (__s32)(ack_seq - last);

	a->last_ack = adv > 0 ? ack_seq : last;
	*flags |= WWC_F_HAVE_ACK;
	if (adv <= 0)
		return 0;
	if (mss == 0)
		mss = 1;
	return ((__u64)(__u32)adv + mss - 1) / mss;
}

/* PROCEDURE AckedCount (seed 000 §2.3): segments to credit for an ACK. A DUPACK counts one
 * (and is accounted for); a cumulative ACK fully covered by earlier DUPACKs counts one and
 * leaves accounted_for - cumul (the first ACK ever seen: credit 1, accounted_for 1). */
static __always_inline __u32 wwc_acked_count(struct wwc_acked *a, __u32 *flags, __u32 ack_seq,
					     __u32 mss)
{
	__u64 cumul = wwc_ack_advance(a, flags, ack_seq, mss);

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
	return (__u32)cumul;
}

/* The UCLA agent's AckedCount (tcp-westwood.cc v1.3; crates/algorithms acked_count.rs,
 * AckedCountRule::Ucla): the cover test comes first (a DUPACK, cumul 0, skips it) and a covered
 * cumulative ACK leaves accounted_for - cumul + 1; then the DUPACK; every credit is capped at
 * WWC_UCLA_ACKED_MAX segments. */
#define WWC_UCLA_ACKED_MAX 2u
#define WWC_ACKED_PAPER 0u
#define WWC_ACKED_UCLA 1u

static __always_inline __u32 wwc_acked_count_ucla(struct wwc_acked *a, __u32 *flags, __u32 ack_seq,
						  __u32 mss)
{
	__u64 cumul = wwc_ack_advance(a, flags, ack_seq, mss);

	if (cumul > 1) {
		if (a->accounted_for >= cumul) {
			a->accounted_for = a->accounted_for - (__u32)cumul + 1;
			cumul = 1;
		} else {
			cumul -= a->accounted_for;
			a->accounted_for = 0;
		}
	}
	if (cumul == 0) {
		a->accounted_for++;
		cumul = 1;
	}
	if (cumul > WWC_UCLA_ACKED_MAX)
		cumul = WWC_UCLA_ACKED_MAX;
	return (__u32)cumul;
}

/* AckedCount's credit for one ACK in bytes (segments * mss), saturated to 32 bits: the d_k of
 * every estimator's sample, by the rule WWC_ACKED_PAPER (seed 000 §2.3) or WWC_ACKED_UCLA. */
static __always_inline __u32 wwc_acked_bytes_rule(struct wwc_acked *a, __u32 *flags, __u32 ack_seq,
						  __u32 mss, __u32 rule)
{
	__u64 segments = rule == WWC_ACKED_UCLA ? wwc_acked_count_ucla(a, flags, ack_seq, mss)
						: wwc_acked_count(a, flags, ack_seq, mss);
	__u64 bytes = segments * (mss ? mss : 1);

	return bytes > WWC_U32_MAX ? WWC_U32_MAX : (__u32)bytes;
}

/* wwc_acked_bytes_rule with the paper's rule. */
static __always_inline __u32 wwc_acked_bytes(struct wwc_acked *a, __u32 *flags, __u32 ack_seq, __u32 mss)
{
	return wwc_acked_bytes_rule(a, flags, ack_seq, mss, WWC_ACKED_PAPER);
}

/* An RTT sample in µs (negative: none) saturated to 32 bits, for the rtt_sample functions. */
static __always_inline __u32 wwc_rtt_us_u32(__s64 rtt_us)
{
	return rtt_us > WWC_U32_MAX ? WWC_U32_MAX : (__u32)rtt_us;
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
 * the last sample time, h = #{j >= 1 : t_{k-1} + j I < now}. The first virtual step is a
 * normal step with a null sample (the trapezoid still averages in b_{k-1}; interval sampling
 * gives round(r BWE)); each later one multiplies BWE by r = (2tau - I)/(2tau + I), so the
 * h - 1 later ones are BWE * r^(h-1), by binary exponentiation of r in Q32 (at most 32
 * rounds; r^(2^32) is 0 in Q32 anyway). Carried bytes are dropped, as in the reference.
 * sample: WWC_SAMPLE_TRAPEZOID or WWC_SAMPLE_INTERVAL. */
static __always_inline void wwc_tcpw_advance_sampled(struct wwc_tcpw *s, __u64 now_us, __u32 tau_us, __u32 m,
						     __u32 sample)
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
	bwe = wwc_tcpw_step(s->bwe, s->prev_sample, 0, interval, tau_us, sample);
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

/* wwc_tcpw_advance_sampled with the paper's trapezoid. */
static __always_inline void wwc_tcpw_advance(struct wwc_tcpw *s, __u64 now_us, __u32 tau_us, __u32 m)
{
	wwc_tcpw_advance_sampled(s, now_us, tau_us, m, WWC_SAMPLE_TRAPEZOID);
}

/* Filter part of an ACK: bytes is AckedCount's credit (segments * mss). The first ACK
 * only starts the clock; an ACK with Delta = 0 is carried into the next sample.
 * sample: WWC_SAMPLE_TRAPEZOID or WWC_SAMPLE_INTERVAL. */
static __always_inline void wwc_tcpw_filter_ack_sampled(struct wwc_tcpw *s, __u64 now_us, __u32 bytes,
							__u32 tau_us, __u32 m, __u32 sample)
{
	__u64 delta, total, b;

	wwc_tcpw_advance_sampled(s, now_us, tau_us, m, sample);
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
	b = wwc_sample_q8(total, delta);
	s->bwe = wwc_tcpw_step(s->bwe, s->prev_sample, total, (__u32)delta, tau_us, sample);
	s->prev_sample = b;
	s->last_us = now_us;
}

/* wwc_tcpw_filter_ack_sampled with the paper's trapezoid. */
static __always_inline void wwc_tcpw_filter_ack(struct wwc_tcpw *s, __u64 now_us, __u32 bytes,
						__u32 tau_us, __u32 m)
{
	wwc_tcpw_filter_ack_sampled(s, now_us, bytes, tau_us, m, WWC_SAMPLE_TRAPEZOID);
}

/* Everything TCPW does on an ACK (new or duplicate), in the reference's order: RTT sample
 * (rtt_us < 0: none), AckedCount by `acked_rule` (WWC_ACKED_PAPER, or WWC_ACKED_UCLA: the
 * `acked_count = "ucla"` option), filter. Returns the credited bytes.
 * sample: WWC_SAMPLE_TRAPEZOID or WWC_SAMPLE_INTERVAL. */
static __always_inline __u32 wwc_tcpw_on_ack_rule(struct wwc_tcpw *s, __u64 now_us, __u32 ack_seq,
						  __u32 mss, __s64 rtt_us, __u32 tau_us, __u32 m,
						  __u32 sample, __u32 acked_rule)
{
	__u32 bytes;

	if (rtt_us >= 0)
		wwc_tcpw_rtt_sample(s, wwc_rtt_us_u32(rtt_us));
	bytes = wwc_acked_bytes_rule(&s->acked, &s->flags, ack_seq, mss, acked_rule);
	wwc_tcpw_filter_ack_sampled(s, now_us, bytes, tau_us, m, sample);
	return bytes;
}

/* wwc_tcpw_on_ack_rule with the paper's AckedCount. */
static __always_inline __u32 wwc_tcpw_on_ack_sampled(struct wwc_tcpw *s, __u64 now_us, __u32 ack_seq,
						     __u32 mss, __s64 rtt_us, __u32 tau_us, __u32 m,
						     __u32 sample)
{
	return wwc_tcpw_on_ack_rule(s, now_us, ack_seq, mss, rtt_us, tau_us, m, sample, WWC_ACKED_PAPER);
}

/* wwc_tcpw_on_ack_sampled with the paper's trapezoid. */
static __always_inline __u32 wwc_tcpw_on_ack(struct wwc_tcpw *s, __u64 now_us, __u32 ack_seq,
					     __u32 mss, __s64 rtt_us, __u32 tau_us, __u32 m)
{
	return wwc_tcpw_on_ack_sampled(s, now_us, ack_seq, mss, rtt_us, tau_us, m, WWC_SAMPLE_TRAPEZOID);
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
	__u32 bytes;

	if (rtt_us >= 0)
		wwc_plus_rtt_sample(s, wwc_rtt_us_u32(rtt_us));
	bytes = wwc_acked_bytes(&s->acked, &s->flags, ack_seq, mss);
	wwc_plus_filter_ack(s, now_us, bytes, min_window_us);
	return bytes;
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

/* max(2, floor(BWE * RTTmin / seg_size / a)) segments with a in quarters (a_quarters >= 1):
 * floor(floor(bwe_q8 * RTTmin * 4 / 1e6) / (2^8 * 8 * mss * a_quarters)), exactly. TCPW-TR's
 * and the UCLA agent's timeout rule. */
static __always_inline __u32 wwc_ssthresh_segs_over(__u64 bwe_q8, __u32 rtt_min_us, int have_rtt, __u32 mss,
						    __u32 a_quarters)
{
	__u64 bits_q8_x4, segs;

	if (!have_rtt)
		return 2;
	if (mss == 0)
		mss = 1;
	if (a_quarters == 0)
		a_quarters = 1;
	bits_q8_x4 = wwc_muldiv(bwe_q8, rtt_min_us, WWC_USEC_PER_SEC / 4);
	segs = bits_q8_x4 / (((__u64)mss * a_quarters) << (WWC_BWE_SHIFT + 3));
	if (segs < 2)
		return 2;
	return segs > WWC_U32_MAX ? WWC_U32_MAX : (__u32)segs;
}

/* TCPW ssthresh at a loss detected at now_us: the virtual samples due by then are applied
 * first (a timeout fires after a silence), with the sampling the ACKs use
 * (WWC_SAMPLE_TRAPEZOID or WWC_SAMPLE_INTERVAL). Segments. */
static __always_inline __u32 wwc_tcpw_ssthresh_sampled(struct wwc_tcpw *s, __u64 now_us, __u32 mss,
						       __u32 tau_us, __u32 m, __u32 sample)
{
	wwc_tcpw_advance_sampled(s, now_us, tau_us, m, sample);
	return wwc_ssthresh_segs(s->bwe, s->rtt_min_us, !!(s->flags & WWC_F_HAVE_RTT), mss);
}

/* wwc_tcpw_ssthresh_sampled with the paper's trapezoid. */
static __always_inline __u32 wwc_tcpw_ssthresh(struct wwc_tcpw *s, __u64 now_us, __u32 mss, __u32 tau_us,
					       __u32 m)
{
	return wwc_tcpw_ssthresh_sampled(s, now_us, mss, tau_us, m, WWC_SAMPLE_TRAPEZOID);
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

/* ============================ TCPW-TR (seed 001 §II, §IV) ============================ */

/* Clamp the time-constant to sampling-time ratio r to [1, WWC_TR_RATIO_MAX] (0: 10). */
static __always_inline __u32 wwc_tr_ratio(__u32 ratio)
{
	if (ratio == 0)
		return WWC_TR_RATIO;
	return ratio > WWC_TR_RATIO_MAX ? WWC_TR_RATIO_MAX : ratio;
}

/* One constant-gain Tustin step (seed 001 §II): alpha = (2r - 1)/(2r + 1), so
 *   BWE_k = alpha BWE_{k-1} + (1 - alpha) (b_k + b_{k-1}) / 2
 *         = [(2r - 1) BWE_{k-1} + b_k + b_{k-1}] / (2r + 1),
 * one rational expression rounded to the nearest Q8 unit once (r = 10: 19/21 and 1/21). */
static __always_inline __u64 wwc_tr_step(__u64 bwe, __u64 sample, __u64 prev_sample, __u32 ratio)
{
	__u64 r = wwc_tr_ratio(ratio);
	__u64 den = 2 * r + 1;
	__u64 q, ra, sum;

	q = wwc_muldiv_rem(bwe, (__u32)(2 * r - 1), (__u32)den, &ra);
	sum = sample + prev_sample; /* samples < 2^62 */
	q += sum / den;
	return q + (ra + sum % den + den / 2) / den;
}

static __always_inline void wwc_tr_init(struct wwc_tr *s)
{
	s->bwe = 0;
	s->prev_sample = 0;
	s->last_us = 0;
	s->acked.last_ack = 0;
	s->acked.accounted_for = 0;
	s->carried_bytes = 0;
	s->rtt_min_us = 0;
	s->flags = 0;
	s->a_quarters = WWC_TR_A_ONE;
}

/* RTTmin over the connection. */
static __always_inline void wwc_tr_rtt_sample(struct wwc_tr *s, __u32 rtt_us)
{
	if (!(s->flags & WWC_F_HAVE_RTT) || rtt_us < s->rtt_min_us)
		s->rtt_min_us = rtt_us;
	s->flags |= WWC_F_HAVE_RTT;
}

/* RTTmin, us; meaningful only when s->flags has WWC_F_HAVE_RTT (0 before the first sample). */
static __always_inline __u32 wwc_tr_rtt_min_us(const struct wwc_tr *s)
{
	return (s->flags & WWC_F_HAVE_RTT) ? s->rtt_min_us : 0;
}

/* The sample clock of the filters without virtual samples (TCPW-TR, the UCLA agent): the first
 * ACK starts it (0: no sample); an ACK at the same instant is carried into the next sample (0);
 * otherwise the gap Delta since the last sample, with *total the bytes this sample reports (its
 * own and those carried, at most 2^32 - 1), and the clock restarted at now_us. */
static __always_inline __u64 wwc_sample_gap(__u32 *flags, __u64 *last_us, __u32 *carried_bytes, __u64 now_us,
					     __u32 bytes, __u64 *total)
{
	__u64 delta;

	if (!(*flags & WWC_F_HAVE_TIME)) {
		*flags |= WWC_F_HAVE_TIME;
		*last_us = now_us;
		return 0;
	}
	delta = now_us > *last_us ? now_us - *last_us : 0;
	*total = (__u64)bytes + *carried_bytes;
	if (*total > WWC_U32_MAX)
		*total = WWC_U32_MAX;
	if (delta == 0) {
		*carried_bytes = (__u32)*total;
		return 0;
	}
	*carried_bytes = 0;
	*last_us = now_us;
	return delta;
}

/* Filter part of an ACK: bytes is AckedCount's credit. As the TCPW filter without virtual
 * samples (wwc_sample_gap), b_k = 8 bytes / Delta. */
static __always_inline void wwc_tr_filter_ack(struct wwc_tr *s, __u64 now_us, __u32 bytes, __u32 ratio)
{
	__u64 delta, total = 0, sample;

	delta = wwc_sample_gap(&s->flags, &s->last_us, &s->carried_bytes, now_us, bytes, &total);
	if (delta == 0)
		return;
	sample = wwc_sample_q8(total, delta); /* <= (2^32 - 1) * 8e6 * 2^8 < 2^63 */
	s->bwe = wwc_tr_step(s->bwe, sample, s->prev_sample, ratio);
	s->prev_sample = sample;
}

/* Everything TCPW-TR does on an ACK (new or duplicate): RTT sample (rtt_us < 0: none),
 * AckedCount, filter. Returns the credited bytes. */
static __always_inline __u32 wwc_tr_on_ack(struct wwc_tr *s, __u64 now_us, __u32 ack_seq, __u32 mss,
					   __s64 rtt_us, __u32 ratio)
{
	__u32 bytes;

	if (rtt_us >= 0)
		wwc_tr_rtt_sample(s, wwc_rtt_us_u32(rtt_us));
	bytes = wwc_acked_bytes(&s->acked, &s->flags, ack_seq, mss);
	wwc_tr_filter_ack(s, now_us, bytes, ratio);
	return bytes;
}

static __always_inline __u64 wwc_tr_bwe_q8(const struct wwc_tr *s)
{
	return s->bwe;
}

/* The threshold reduction factor at a loss (seed 001 §IV-A, §IV-B), in quarters: in slow start
 * a += 0.25 (3 DUPACKs) or a += 1 (timeout), at most 4; in congestion avoidance a = 1. As the
 * reference, "slow start" is cwnd < ssthresh (equality is congestion avoidance). */
static __always_inline __u32 wwc_tr_update_factor(struct wwc_tr *s, int timeout, int in_slow_start)
{
	__u32 a = s->a_quarters;

	if (a < WWC_TR_A_ONE || a > WWC_TR_A_MAX)
		a = WWC_TR_A_ONE;
	if (in_slow_start) {
		a += timeout ? WWC_TR_A_STEP_TIMEOUT : WWC_TR_A_STEP_DUPACKS;
		if (a > WWC_TR_A_MAX)
			a = WWC_TR_A_MAX;
	} else {
		a = WWC_TR_A_ONE;
	}
	s->a_quarters = a;
	return a;
}

/* ssthresh at a loss: update a for (timeout?, in_slow_start?), then
 * max(2, floor(BWE * RTTmin / (8 mss) / a)) segments, exactly:
 * floor(floor(bwe_q8 * RTTmin * 4 / 1e6) / (2^8 * 8 * mss * a_quarters)). No decay (no
 * virtual samples). Without an RTT sample the ideal window is 0, so 2 (a is still updated). */
static __always_inline __u32 wwc_tr_ssthresh(struct wwc_tr *s, int timeout, int in_slow_start, __u32 mss)
{
	__u32 a = wwc_tr_update_factor(s, timeout, in_slow_start);

	return wwc_ssthresh_segs_over(s->bwe, s->rtt_min_us, !!(s->flags & WWC_F_HAVE_RTT), mss, a);
}

/* ============================ TCPW ABSE (seed 004 §2.1) ============================ */

/* floor(x * t_ns / 1e9) for any t_ns (split into whole seconds and the rest); *rem gets the
 * remainder (x * t_ns) mod 1e9. Exact whenever the result fits in 64 bits. */
static __always_inline __u64 wwc_mul_ns(__u64 x, __u64 t_ns, __u64 *rem)
{
	__u64 secs = t_ns / WWC_NSEC_PER_SEC;
	__u32 frac = (__u32)(t_ns % WWC_NSEC_PER_SEC);

	return x * secs + wwc_muldiv_rem(x, frac, WWC_NSEC_PER_SEC, rem);
}

/* floor(x * num / den) for 64-bit num <= den (den > 0): both are shifted below 2^32 first,
 * exact while den < 2^32 (relative error below 2^-31 otherwise). */
static __always_inline __u64 wwc_mul_frac(__u64 x, __u64 num, __u64 den)
{
	__u32 sh = wwc_shift_to_u32(den);

	if (num > den)
		num = den;
	return wwc_muldiv(x, (__u32)(num >> sh), (__u32)(den >> sh));
}

/* A rate over a window: bits/s Q8 of bytes in window_ns, floor(bytes * 8e9 * 2^8 / window). */
static __always_inline __u64 wwc_abse_rate_q8(__u64 bytes, __u64 window_ns)
{
	if (window_ns == 0)
		return 0;
	if (bytes > (1ull << 40))
		bytes = 1ull << 40;
	return wwc_muldiv64(bytes << (WWC_BWE_SHIFT + 3), WWC_NSEC_PER_SEC, window_ns);
}

/* The constant-gain EWMA of eq. 3 and 5: round((g prev + (1000 - g) x) / 1000), g in 1/1000. */
static __always_inline __u64 wwc_ewma_permille(__u64 prev, __u64 x, __u32 g_permille)
{
	__u64 q, ra, rb;

	if (g_permille > 1000)
		g_permille = 1000;
	q = wwc_muldiv_rem(prev, g_permille, 1000, &ra);
	q += wwc_muldiv_rem(x, 1000 - g_permille, 1000, &rb);
	return q + (ra + rb + 500) / 1000;
}

/* U / U_max in Q32, capped at 1 (2^32); 0 when U_max is 0. */
static __always_inline __u64 wwc_ratio_q32(__u64 u, __u64 u_max)
{
	__u32 sh = wwc_shift_to_u32(u_max);

	if (u_max == 0)
		return 0;
	if (u >= u_max)
		return WWC_ONE_Q32;
	u_max >>= sh; /* >= 2^31 if sh > 0, so > 0 */
	return ((u >> sh) << 32) / u_max; /* u >> sh <= u_max < 2^32 */
}

/* tau_k = RTT (1 + N U/U_max) (eq. 6), ns: RTT + floor(N RTT ratio). */
static __always_inline __u64 wwc_abse_tau_ns(__u64 rtt_ns, __u32 n, __u64 ratio_q32)
{
	if (n > WWC_ABSE_N_MAX)
		n = WWC_ABSE_N_MAX;
	return rtt_ns + wwc_mul_q32(rtt_ns * n, ratio_q32); /* rtt_ns < 2^41, n <= 2^10 */
}

/* T_k of eq. 4, ns: T_min when the path is not congested (Th^ RTT > cwin) or cwin is 0, else
 * RTT (cwin - Th^ RTTmin) / cwin, at least T_min. cwin in Q8 bits is cwnd_bytes * 2^11; the
 * comparison Th^ RTT > cwin is exact (Q8 product with its remainder). */
static __always_inline __u64 wwc_abse_interval_ns(__u64 th_q8, __u64 rtt_ns, __u64 rtt_min_ns,
						  __u64 cwnd_bytes, __u64 t_min_ns)
{
	__u64 cwin, in_rtt, in_rtt_min, rem, t;

	if (cwnd_bytes == 0)
		return t_min_ns;
	if (cwnd_bytes > (1ull << 40))
		cwnd_bytes = 1ull << 40;
	cwin = cwnd_bytes << (WWC_BWE_SHIFT + 3);
	in_rtt = wwc_mul_ns(th_q8, rtt_ns, &rem);
	if (in_rtt > cwin || (in_rtt == cwin && rem > 0))
		return t_min_ns;
	in_rtt_min = wwc_mul_ns(th_q8, rtt_min_ns, &rem);
	if (in_rtt_min >= cwin)
		return t_min_ns;
	t = wwc_mul_frac(rtt_ns, cwin - in_rtt_min, cwin);
	return t > t_min_ns ? t : t_min_ns;
}

/* One ABSE filter step (eq. 1) with Delta = delta_ns and tau = tau_ns:
 *   s^_k = [(2tau - D) s^_{k-1} + D (s_k + s_{k-1})] / (2tau + D), rounded once,
 * alpha clamped at 0 (D >= 2tau gives (s_k + s_{k-1})/2). 2tau and D are shifted together
 * until 2tau + D < 2^32 (no shift while 2tau + D < 4.29 s; a relative error of 2^sh / D on D
 * otherwise, with D a whole number of microseconds). */
static __always_inline __u64 wwc_abse_step(__u64 est, __u64 sample, __u64 prev_sample, __u64 delta_ns,
					   __u64 tau_ns)
{
	__u64 two_tau = 2 * tau_ns, d = delta_ns, sum = sample + prev_sample; /* samples < 2^62 */
	__u64 den, q, ra, rb;
	__u32 sh;

	if (d >= two_tau)
		return (sum >> 1) + (sum & 1);
	sh = wwc_shift_to_u32(two_tau + d); /* (2tau >> sh) + (D >> sh) <= (2tau + D) >> sh */
	two_tau >>= sh;
	d >>= sh;
	den = two_tau + d;
	if (den == 0 || den > WWC_U32_MAX)
		return est; /* unreachable: tau_ns < 2^52 */
	q = wwc_muldiv_rem(est, (__u32)(two_tau - d), (__u32)den, &ra);
	q += wwc_muldiv_rem(sum, (__u32)d, (__u32)den, &rb);
	return q + (ra + rb + den / 2) / den;
}

static __always_inline void wwc_abse_init(struct wwc_abse *s)
{
	s->est = 0;
	s->prev_sample = 0;
	s->throughput = 0;
	s->instability = 0;
	s->max_instability = 0;
	s->last_ack_ns = 0;
	s->srtt_ns = 0;
	s->total_bytes = 0;
	s->base_bytes = 0;
	s->interval_ns = 0;
	s->tau_ns = 0;
	s->acked.last_ack = 0;
	s->acked.accounted_for = 0;
	s->rtt_min_us = 0;
	s->flags = 0;
	s->head = 0;
	s->count = 0;
	s->reserved = 0;
	/* The slots are left as they are: only [head, head + count) is ever read. */
}

/* RTTmin and the smoothed RTT of the Rust controller: srtt = (7 srtt + rtt) / 8 in ns (integer
 * division), the first sample taken as it is. */
static __always_inline void wwc_abse_rtt_sample(struct wwc_abse *s, __u32 rtt_us)
{
	__u64 rtt_ns;

	if (rtt_us > WWC_RTT_US_MAX)
		rtt_us = WWC_RTT_US_MAX;
	rtt_ns = (__u64)rtt_us * WWC_NSEC_PER_USEC;
	if (!(s->flags & WWC_F_HAVE_RTT)) {
		s->rtt_min_us = rtt_us;
		s->srtt_ns = rtt_ns;
	} else {
		if (rtt_us < s->rtt_min_us)
			s->rtt_min_us = rtt_us;
		s->srtt_ns = (7 * s->srtt_ns + rtt_ns) / 8;
	}
	s->flags |= WWC_F_HAVE_RTT;
}

static __always_inline __u32 wwc_abse_rtt_min_us(const struct wwc_abse *s)
{
	return (s->flags & WWC_F_HAVE_RTT) ? s->rtt_min_us : 0;
}

/* Ring slot i (0 = oldest) of the history. */
static __always_inline struct wwc_abse_slot *wwc_abse_slot(struct wwc_abse *s, __u32 i)
{
	return &s->slots[(s->head + i) & WWC_ABSE_SLOT_MASK];
}

static __always_inline const struct wwc_abse_slot *wwc_abse_slot_c(const struct wwc_abse *s, __u32 i)
{
	return &s->slots[(s->head + i) & WWC_ABSE_SLOT_MASK];
}

/* Number of history slots whose start time is <= bound (start times strictly increase), by a
 * branch-free binary search: WWC_ABSE_SEARCH_STEPS steps of 512, 256, ..., 1, each adding the
 * step when the slot it lands on exists and started at or before bound. Without conditional
 * jumps the verifier walks it once instead of forking on every step (a branching search
 * forks 2^10 ways, the result being used as an index). The comparisons use the sign bit of
 * differences, so times must stay below 2^63 ns (292 years); counts are below 2^10. */
static __always_inline __u32 wwc_abse_count_le(const struct wwc_abse *s, __u64 bound)
{
	__u64 count = s->count, pos = 0, step = WWC_ABSE_SLOTS, in_range, le;
	int i;

	for (i = 0; i < WWC_ABSE_SEARCH_STEPS; i++) {
		/* 1 iff pos + step <= count, and 1 iff slot[pos + step - 1].start_ns <= bound */
		in_range = ((count - (pos + step)) >> 63) ^ 1;
		le = ((bound - wwc_abse_slot_c(s, (__u32)(pos + step - 1))->start_ns) >> 63) ^ 1;
		pos += step & (0 - (in_range & le));
		step >>= 1;
	}
	return (__u32)pos;
}

/* Drop the n oldest slots (n <= count): their bytes go into base_bytes. */
static __always_inline void wwc_abse_drop(struct wwc_abse *s, __u32 n)
{
	if (n == 0)
		return;
	if (n > s->count)
		n = s->count;
	s->base_bytes = wwc_abse_slot(s, n - 1)->cum_bytes;
	s->head = (s->head + n) & WWC_ABSE_SLOT_MASK;
	s->count -= n;
}

/* Record an ACK of `bytes` at now_ns: merged into the newest slot if that started less than
 * q ago (or later than now), else a new slot (dropping the oldest when all are in use); then
 * drop the slots with start + keep < now_ns. */
static __always_inline void wwc_abse_record(struct wwc_abse *s, __u64 now_ns, __u64 bytes, __u64 keep_ns,
					    __u64 q_ns)
{
	struct wwc_abse_slot *slot;

	if (s->count > WWC_ABSE_SLOTS)
		s->count = WWC_ABSE_SLOTS; /* defensive: never true */
	s->total_bytes += bytes;
	if (s->count > 0) {
		slot = wwc_abse_slot(s, s->count - 1);
		if (now_ns <= slot->start_ns || now_ns - slot->start_ns < q_ns) {
			slot->cum_bytes = s->total_bytes;
			goto prune;
		}
	}
	if (s->count >= WWC_ABSE_SLOTS)
		wwc_abse_drop(s, 1);
	slot = wwc_abse_slot(s, s->count);
	slot->start_ns = now_ns;
	slot->cum_bytes = s->total_bytes;
	s->count++;
prune:
	if (now_ns > keep_ns)
		wwc_abse_drop(s, wwc_abse_count_le(s, now_ns - keep_ns - 1));
}

/* Bytes of the history slots that started in (now - window, now]: all of the history when
 * window > now (as the reference's saturating window start). */
static __always_inline __u64 wwc_abse_bytes_within(const struct wwc_abse *s, __u64 now_ns, __u64 window_ns)
{
	__u32 k;

	if (window_ns > now_ns)
		return s->total_bytes - s->base_bytes;
	k = wwc_abse_count_le(s, now_ns - window_ns);
	if (k == 0)
		return s->total_bytes - s->base_bytes;
	return s->total_bytes - wwc_abse_slot_c(s, k - 1)->cum_bytes;
}

/* Estimator part of an ACK (eq. 1-6): bytes is AckedCount's credit, cwnd_bytes the window
 * before this ACK. RTT is the smoothed RTT (T_min before the first sample), RTTmin the
 * smallest sample (RTT before the first). The first ACK only starts the clock. */
static __always_inline void wwc_abse_filter_ack(struct wwc_abse *s, const struct wwc_abse_params *p,
						__u64 now_ns, __u64 bytes, __u64 cwnd_bytes)
{
	__u64 t_min_ns = (__u64)(p->t_min_us ? p->t_min_us : WWC_ABSE_T_MIN_US) * WWC_NSEC_PER_USEC;
	__u64 q_ns = p->history_slot_ns ? p->history_slot_ns : t_min_ns / WWC_ABSE_SLOT_DIVISOR;
	__u64 rtt_ns, rtt_min_ns, recent, interval, sample, diff, u_max, delta;

	rtt_ns = (s->flags & WWC_F_HAVE_RTT) ? s->srtt_ns : t_min_ns;
	if (rtt_ns == 0)
		rtt_ns = 1;
	rtt_min_ns = (s->flags & WWC_F_HAVE_RTT) ? (__u64)s->rtt_min_us * WWC_NSEC_PER_USEC : rtt_ns;
	wwc_abse_record(s, now_ns, bytes, rtt_ns > t_min_ns ? rtt_ns : t_min_ns, q_ns ? q_ns : 1);
	if (!(s->flags & WWC_F_HAVE_TIME)) {
		s->flags |= WWC_F_HAVE_TIME;
		s->last_ack_ns = now_ns;
		return;
	}

	/* eq. 3: throughput over the last RTT, smoothed (the first value taken as it is). */
	recent = wwc_abse_rate_q8(wwc_abse_bytes_within(s, now_ns, rtt_ns), rtt_ns);
	if (s->flags & WWC_F_HAVE_SAMPLE)
		s->throughput = wwc_ewma_permille(s->throughput, recent, p->epsilon_permille);
	else
		s->throughput = recent;
	s->flags |= WWC_F_HAVE_SAMPLE;

	/* eq. 4, then eq. 2: the sample over T_k. */
	interval = wwc_abse_interval_ns(s->throughput, rtt_ns, rtt_min_ns, cwnd_bytes, t_min_ns);
	s->interval_ns = interval;
	sample = wwc_abse_rate_q8(wwc_abse_bytes_within(s, now_ns, interval), interval);

	/* eq. 5-6: instability and the filter's time constant. */
	diff = sample > s->prev_sample ? sample - s->prev_sample : s->prev_sample - sample;
	s->instability = wwc_ewma_permille(s->instability, diff, p->beta_permille);
	if (s->instability > s->max_instability)
		s->max_instability = s->instability;
	u_max = p->u_max_q8 ? p->u_max_q8 : s->max_instability;
	s->tau_ns = wwc_abse_tau_ns(rtt_ns, p->n, wwc_ratio_q32(s->instability, u_max));

	/* eq. 1 */
	delta = now_ns > s->last_ack_ns ? now_ns - s->last_ack_ns : 0;
	s->est = wwc_abse_step(s->est, sample, s->prev_sample, delta, s->tau_ns);
	s->prev_sample = sample;
	s->last_ack_ns = now_ns;
}

/* Everything TCPW ABSE does on an ACK (new or duplicate), in the reference's order: RTT sample
 * (rtt_us < 0: none), AckedCount, estimator. cwnd_bytes is the congestion window before this
 * ACK (snd_cwnd * mss). Returns the credited bytes. */
static __always_inline __u32 wwc_abse_on_ack(struct wwc_abse *s, const struct wwc_abse_params *p, __u64 now_us,
					     __u32 ack_seq, __u32 mss, __s64 rtt_us, __u64 cwnd_bytes)
{
	__u32 bytes;

	if (rtt_us >= 0)
		wwc_abse_rtt_sample(s, wwc_rtt_us_u32(rtt_us));
	bytes = wwc_acked_bytes(&s->acked, &s->flags, ack_seq, mss);
	wwc_abse_filter_ack(s, p, now_us * WWC_NSEC_PER_USEC, bytes, cwnd_bytes);
	return bytes;
}

static __always_inline __u64 wwc_abse_bwe_q8(const struct wwc_abse *s)
{
	return s->est;
}

/* ABSE ssthresh (seed 004 §2: ABSE * RTTmin / seg_size, at least 2; no decay). Segments. */
static __always_inline __u32 wwc_abse_ssthresh(const struct wwc_abse *s, __u32 mss)
{
	return wwc_ssthresh_segs(s->est, s->rtt_min_us, !!(s->flags & WWC_F_HAVE_RTT), mss);
}

/* ===================== the authors' ns-2 agent (UCLA, 2002) ===================== */

/* The agent's filter (crates/algorithms/src/westwood/ucla.rs has the rules and what we chose
 * where the agent gives none). Filter 3 is seed 000's Tustin step at the sample's interval,
 * wwc_tustin_step / wwc_interval_step with D and tau in us; an idle period of tau/2 is that
 * step with a null sample, 0.6 BWE + 0.2 b_prev. */

static __always_inline void wwc_ucla_init(struct wwc_ucla *s, const struct wwc_ucla_params *p)
{
	s->bwe = 0;
	s->prev_sample = 0;
	s->last_us = 0;
	s->idle_periods = 0;
	s->acked.last_ack = 0;
	s->acked.accounted_for = 0;
	s->carried_bytes = 0;
	s->rtt_min_us = p->initial_rtt_min_us ? p->initial_rtt_min_us : WWC_UCLA_INITIAL_RTT_MIN_US;
	s->a_quarters = WWC_UCLA_A_INITIAL;
	s->flags = 0;
}

static __always_inline __u32 wwc_ucla_tau(const struct wwc_ucla_params *p)
{
	return wwc_tau(p->tau_us ? p->tau_us : WWC_UCLA_TAU_US);
}

/* RTTmin in ns-2's coarse ticks: the smallest max(1, floor(rtt / tick)) * tick (phase 0). */
static __always_inline void wwc_ucla_rtt_sample(struct wwc_ucla *s, const struct wwc_ucla_params *p,
						__u32 rtt_us)
{
	__u32 tick = p->tick_us ? p->tick_us : WWC_UCLA_TICK_US;
	__u64 ticks = rtt_us / tick;
	__u64 coarse;

	if (ticks == 0)
		ticks = 1;
	coarse = ticks * tick;
	if (coarse < s->rtt_min_us)
		s->rtt_min_us = (__u32)coarse;
}

/* w_e BWE + w_s (b + b_prev), or w_e BWE + 2 w_s b with interval sampling; weights num/den. */
static __always_inline __u64 wwc_ucla_constant_step(const struct wwc_ucla *s, __u32 sample, __u64 b,
						    __u32 e_num, __u32 s_num, __u32 den)
{
	__u64 inputs = sample == WWC_SAMPLE_INTERVAL ? 2 * b : b + s->prev_sample;

	return wwc_muldiv(s->bwe, e_num, den) + wwc_muldiv(inputs, s_num, den);
}

/* Filter 3's null samples for `idle` periods of tau/2: the first uses b_prev, the rest
 * multiply by 0.6 (binary exponentiation, at most 32 rounds: no unbounded loop). */
static __always_inline void wwc_ucla_idle(struct wwc_ucla *s, __u64 idle, __u32 tau_us, __u32 sample)
{
	__u32 half = tau_us / 2 ? tau_us / 2 : 1;
	__u64 h = idle, r, bwe;
	int i;

	if (idle == 0)
		return;
	s->idle_periods += idle;
	bwe = sample == WWC_SAMPLE_INTERVAL ? wwc_interval_step(s->bwe, 0, half, tau_us)
					    : wwc_tustin_step(s->bwe, s->prev_sample, 0, half, tau_us);
	s->prev_sample = 0;
	h -= 1;
	r = wwc_tustin_alpha_q32(tau_us, half); /* 0.6 in Q32 */
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

/* One ACK's credit `bytes` at now_us. The first ACK only starts the clock; ACKs at the same
 * instant are carried into the next sample (as the reference). */
static __always_inline void wwc_ucla_filter_ack(struct wwc_ucla *s, const struct wwc_ucla_params *p,
						__u64 now_us, __u32 bytes)
{
	__u32 tau_us = wwc_ucla_tau(p);
	__u32 sample = p->sample == WWC_SAMPLE_INTERVAL ? WWC_SAMPLE_INTERVAL : WWC_SAMPLE_TRAPEZOID;
	__u64 gap, total = 0, b, d, idle, alpha;

	gap = wwc_sample_gap(&s->flags, &s->last_us, &s->carried_bytes, now_us, bytes, &total);
	if (gap == 0)
		return;
	if (p->filter == WWC_UCLA_FILTER_TAU || p->filter > WWC_UCLA_FILTER_TAU) {
		/* idle = floor(2 gap / tau) periods of tau/2 out of the gap; a remainder under
		 * 10 ms (with idle > 0) gives one back as the sample's interval. */
		idle = (2 * gap) / tau_us;
		d = gap - idle * (tau_us / 2);
		if (d < WWC_UCLA_SHORT_REMAINDER_US && idle > 0) {
			d = tau_us / 2;
			idle -= 1;
		}
		wwc_ucla_idle(s, idle, tau_us, sample);
		if (d == 0)
			d = 1;
		if (d > WWC_U32_MAX)
			d = WWC_U32_MAX;
		b = wwc_sample_q8(total, d);
		s->bwe = sample == WWC_SAMPLE_INTERVAL
				 ? wwc_interval_step(s->bwe, total, (__u32)d, tau_us)
				 : wwc_tustin_step(s->bwe, s->prev_sample, total, (__u32)d, tau_us);
		s->prev_sample = b;
		return;
	}
	b = wwc_sample_q8(total, gap);
	if (p->filter == WWC_UCLA_FILTER_EWMA) {
		alpha = p->alpha_ppm > 1000000u ? 1000000u : p->alpha_ppm;
		s->bwe = wwc_muldiv(s->bwe, (__u32)alpha, 1000000u) +
			 wwc_muldiv(b, (__u32)(1000000u - alpha), 1000000u);
	} else if (p->filter == WWC_UCLA_FILTER_RATIO10) {
		s->bwe = wwc_ucla_constant_step(s, sample, b, 9047u, 476u, 10000u);
	} else {
		s->bwe = wwc_ucla_constant_step(s, sample, b, 93548u, 3225u, 100000u);
	}
	s->prev_sample = b;
}

/* Everything the agent does on an ACK (new or duplicate): RTT sample (rtt_us < 0: none), its
 * AckedCount (acked_rule: WWC_ACKED_UCLA, the agent's, or WWC_ACKED_PAPER), the filter.
 * Returns the credited bytes. */
static __always_inline __u32 wwc_ucla_on_ack(struct wwc_ucla *s, const struct wwc_ucla_params *p, __u64 now_us,
					     __u32 ack_seq, __u32 mss, __s64 rtt_us, __u32 acked_rule)
{
	__u32 bytes;

	if (rtt_us >= 0)
		wwc_ucla_rtt_sample(s, p, wwc_rtt_us_u32(rtt_us));
	bytes = wwc_acked_bytes_rule(&s->acked, &s->flags, ack_seq, mss, acked_rule);
	wwc_ucla_filter_ack(s, p, now_us, bytes);
	return bytes;
}

static __always_inline __u64 wwc_ucla_bwe_q8(const struct wwc_ucla *s)
{
	return s->bwe;
}

/* The agent's threshold at a loss (no decay: its filter moves only on ACKs). fr_a_ moves at
 * both kinds of loss (slow start: +0.25 at 3 DUPACKs, +1 at a timeout, at most 4; congestion
 * avoidance: 1) but divides only the timeout's threshold. Segments. */
static __always_inline __u32 wwc_ucla_ssthresh(struct wwc_ucla *s, int timeout, int in_slow_start, __u32 mss)
{
	__u32 a = s->a_quarters;

	if (a > WWC_TR_A_MAX)
		a = WWC_TR_A_MAX;
	if (in_slow_start) {
		a += timeout ? WWC_TR_A_STEP_TIMEOUT : WWC_TR_A_STEP_DUPACKS;
		if (a > WWC_TR_A_MAX)
			a = WWC_TR_A_MAX;
	} else {
		a = WWC_TR_A_ONE;
	}
	s->a_quarters = a;
	return wwc_ssthresh_segs_over(s->bwe, s->rtt_min_us, 1, mss, timeout ? a : WWC_TR_A_ONE);
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
