// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tcpw.bpf.c -- the TCP Westwood family as BPF struct_ops congestion controls:
 *
 *   tcpw       TCPW (seed 000 §2-3): Tustin filter with alpha_k from the ACK gap, virtual samples
 *              (trapezoid input, or interval-weighted with the load option --sample interval)
 *   tcpw_tr    TCPW with the threshold reduction factor a (seed 001 §II, §IV): constant-gain filter
 *   tcpw_abse  TCPW ABSE (seed 004 §2.1): adaptive sampling interval and filter gain
 *   tcpw_plus  Westwood+ (Grieco & Mascolo; Linux tcp_westwood): one sample per RTT, 7/8 EWMAs
 *
 * The arithmetic (AckedCount, the estimators, the loss rules) is kernel/westwood_core.h, shared
 * with the native tests that replay the reference vectors; this file only wires it to the
 * kernel's hooks, the same way for every variant:
 *
 *   init          estimator state (icsk_ca_priv; tcpw_abse: socket storage, it keeps an ACK
 *                 history); AckedCount starts at the current snd_una; the watch record. A socket
 *                 given the control before connect() gets in_ack_event and pkts_acked for the
 *                 SYN-ACK before init (tcp_ack runs before tcp_init_transfer): every callback
 *                 ignores the socket until init has run
 *   pkts_acked    an RTT sample (rtt_us > 0) is kept, and handed to the estimator (RTTmin, the
 *                 RTTs ABSE and Westwood+ use) with the next event it is fed: the ACK it came with
 *                 (6.18 calls pkts_acked first), else the next fed ACK or loss reaction -- so the
 *                 estimator's inputs are exactly the trace's rows, also for ACKs it is not fed
 *                 (window updates), whose samples would otherwise be invisible in the trace
 *   in_ack_event  every ACK: tcp_mstamp (us) is t_k, snd_una the cumulative ACK. An ACK that does
 *                 not advance snd_una is a DUPACK (AckedCount credits one segment) when data is
 *                 outstanding and the window did not change (RFC 5681's definition); otherwise
 *                 (window update, data-only segment) it reports no delivery and is not fed
 *   ssthresh      entering fast recovery / CWR, and at an RTO: max(2, BWE*RTTmin/mss [/a]) after
 *                 applying the virtual samples due by now; cwnd capped at it (§3.1 lowers cwnd
 *                 only if it was above the threshold)
 *   cwnd_event    CA_EVENT_LOSS (the RTO, right after ssthresh): the timeout rule (tcpw_tr: its
 *                 factor steps as for a timeout, not a 3-DUPACK loss); CA_EVENT_COMPLETE_CWR: the
 *                 kernel has just set cwnd = ssthresh, put back min(cwnd at the loss, ssthresh)
 *   set_state     the loss reaction is committed when the kernel enters Recovery / CWR (a
 *                 "recovery") or Loss (a "timeout"): counted, and traced. An RTO inside a loss
 *                 episode (during Recovery, or again in Loss without progress) reaches Loss
 *                 without ssthresh / CA_EVENT_LOSS, since tcp_enter_loss keeps the episode's
 *                 threshold: counted as a timeout and traced as "timeout_held" (so is the Loss
 *                 that tcp_simple_retransmit enters after an MTU drop). Loss rows carry the
 *                 state they enter, as the trace's ca_state is the state after the row's event
 *   cong_avoid    the kernel's Reno (tcp_reno_cong_avoid kfunc); undo_cwnd: tcp_reno_undo_cwnd
 *   release       drops the socket storage
 *
 * Observation is optional and never blocks registration: the watch record lives in socket
 * storage (read by the iterators of kernel/tcpw_watch.bpf.c, loaded separately), and the per-ACK
 * trace goes to a ring buffer only while a consumer has switched it on; the loader may compile
 * the trace out (tcpw_trace_available = 0) where the kernel will not create the ring buffer.
 *
 * Fixed point only; every division is in westwood_core.h, which guards every divisor.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "westwood_core.h"
#include "tcpw_watch.bpf.h"

char _license[] SEC("license") = "Dual MIT/GPL";

/* Parameters; the loader may set them before loading (`load --tau-ms --m ...`). */
const volatile __u32 tcpw_tau_us = WWC_TCPW_TAU_US;
const volatile __u32 tcpw_m = WWC_TCPW_M;
/* tcpw's filter input: WWC_SAMPLE_TRAPEZOID (seed 000's (b_k + b_{k-1})/2) or
 * WWC_SAMPLE_INTERVAL (each sample weighted by its own interval); docs/westwood.md. */
const volatile __u32 tcpw_sample = WWC_SAMPLE_TRAPEZOID;
const volatile __u32 tcpw_tr_ratio = WWC_TR_RATIO;
const volatile __u32 tcpw_abse_t_min_us = WWC_ABSE_T_MIN_US;
const volatile __u32 tcpw_abse_n = WWC_ABSE_N;
const volatile __u32 tcpw_abse_epsilon_permille = WWC_ABSE_EPSILON_PERMILLE;
const volatile __u32 tcpw_abse_beta_permille = WWC_ABSE_BETA_PERMILLE;
const volatile __u64 tcpw_abse_u_max_q8 = 0; /* 0: the running maximum */
const volatile __u32 tcpw_plus_min_window_us = WWC_PLUS_MIN_WINDOW_US;
/* 0: the ring buffer was not created; the verifier drops the trace code as dead. */
const volatile __u32 tcpw_trace_available = 1;

#define TCPW_INFINITE_SSTHRESH 0x7fffffffu

/* Kernel Reno, exported to BPF congestion controls as kfuncs (5.13+). */
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

/* The watch record of every tcpw* socket (kernel/tcpw_watch.bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tcpw_sk_info);
} tcpw_sk_stor SEC(".maps");

/* tcpw_abse's estimator: scalars and an ACK history, too big for icsk_ca_priv. */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct wwc_abse);
} tcpw_abse_stor SEC(".maps");

/* Per-ACK trace records (struct tcpw_ack_event). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} tcpw_acks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tcpw_trace_ctl);
} tcpw_trace_ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tcpw_counters);
} tcpw_counters SEC(".maps");

/* ca->flags */
#define CA_F_RTT_KEPT 1u     /* rtt_kept_us waits for the next event the estimator is fed */
#define CA_F_LOSS_PENDING 2u /* ssthresh ran; set_state commits (or an undo forgets) it */
#define CA_F_NO_STATE 4u     /* tcpw_abse without its storage: Reno halving */
#define CA_F_READY 8u        /* init has run (the kernel zeroes icsk_ca_priv when it assigns a control) */

/* Private state in icsk_ca_priv (ICSK_CA_PRIV_SIZE = 104 bytes). */
struct tcpw_ca {
	union {
		struct wwc_tcpw tcpw;
		struct wwc_tr tr;
		struct wwc_plus plus;
	} core; /* tcpw_abse keeps its estimator in tcpw_abse_stor */
	__u32 conn_id;
	__u32 start_una;      /* snd_una when the control started: the trace's ACK origin */
	__u32 prior_una;      /* snd_una after the last ACK fed to the estimator */
	__u32 rtt_kept_us;    /* pkts_acked's latest sample not yet given to the estimator */
	__u32 rtt_taken_us;   /* the sample the current event gave it (trace), 0: none */
	__u32 acks;
	__u32 dupacks;
	__u16 flags;          /* CA_F_* */
	__u8 tr_a_before;     /* tcpw_tr's factor (quarters) before the pending loss */
	__u8 pad;
};

_Static_assert(sizeof(struct tcpw_ca) <= 104, "tcpw state must fit in icsk_ca_priv");

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct tcpw_ca *ca_of(const struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline __u32 mss_of(const struct tcp_sock *tp)
{
	__u32 mss = tp->mss_cache;

	return mss ? mss : 1;
}

static __always_inline struct wwc_abse *abse_of(struct sock *sk)
{
	return bpf_sk_storage_get(&tcpw_abse_stor, sk, 0, 0);
}

static __always_inline struct tcpw_sk_info *info_of(struct sock *sk)
{
	return bpf_sk_storage_get(&tcpw_sk_stor, sk, 0, 0);
}

static __always_inline struct tcpw_trace_ctl *trace_ctl(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&tcpw_trace_ctl, &zero);
}

static __always_inline struct tcpw_counters *counters(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&tcpw_counters, &zero);
}

/*
 * Classify an ACK (in_ack_event, snd_una already updated). Returns 0 when the ACK reports no
 * delivery (snd_una unchanged and: nothing outstanding, or the window changed / the segment
 * carried data, which the kernel flags as CA_ACK_WIN_UPDATE), 1 for an ACK of new data, 2 for
 * a DUPACK.
 */
static __always_inline int ack_kind(const struct tcp_sock *tp, const struct tcpw_ca *ca, __u32 flags)
{
	if ((__s32)(tp->snd_una - ca->prior_una) <= 0) {
		if (tp->packets_out == 0 || (flags & CA_ACK_WIN_UPDATE))
			return 0;
		return 2;
	}
	return 1;
}

/* ================================ estimator dispatch ================================ */
/* `algo` is a constant in every program (see WESTWOOD_OPS), so each switch folds away. */

static __always_inline struct wwc_abse_params abse_params(void)
{
	struct wwc_abse_params p = {
		.t_min_us = tcpw_abse_t_min_us,
		.n = tcpw_abse_n,
		.epsilon_permille = tcpw_abse_epsilon_permille,
		.beta_permille = tcpw_abse_beta_permille,
		.u_max_q8 = tcpw_abse_u_max_q8,
	};

	return p;
}

/* What the watch record and the trace show of an estimator. */
struct estimate {
	__u64 bwe_q8;
	__u32 rtt_min_us;
	int have_rtt_min;
};

static __always_inline struct estimate estimate_of(struct sock *sk, struct tcpw_ca *ca, __u32 algo)
{
	struct estimate e = {};
	struct wwc_abse *abse;

	switch (algo) {
	case TCPW_ALGO_TCPW:
		e.bwe_q8 = wwc_tcpw_bwe_q8(&ca->core.tcpw);
		e.rtt_min_us = ca->core.tcpw.rtt_min_us;
		e.have_rtt_min = !!(ca->core.tcpw.flags & WWC_F_HAVE_RTT);
		break;
	case TCPW_ALGO_TR:
		e.bwe_q8 = wwc_tr_bwe_q8(&ca->core.tr);
		e.rtt_min_us = ca->core.tr.rtt_min_us;
		e.have_rtt_min = !!(ca->core.tr.flags & WWC_F_HAVE_RTT);
		break;
	case TCPW_ALGO_PLUS:
		e.bwe_q8 = wwc_plus_bwe_q8(&ca->core.plus);
		e.rtt_min_us = ca->core.plus.rtt_min_us;
		e.have_rtt_min = !!(ca->core.plus.flags & WWC_F_HAVE_RTT);
		break;
	case TCPW_ALGO_ABSE:
		abse = abse_of(sk);
		if (abse) {
			e.bwe_q8 = wwc_abse_bwe_q8(abse);
			e.rtt_min_us = abse->rtt_min_us;
			e.have_rtt_min = !!(abse->flags & WWC_F_HAVE_RTT);
		}
		break;
	}
	return e;
}

/* Start AckedCount at snd_una: the SYN is acknowledged, so the first data ACK is credited with
 * what it acknowledges rather than taken for a DUPACK. */
static __always_inline void start_acked_count(struct wwc_acked *acked, __u32 *flags, __u32 snd_una)
{
	acked->last_ack = snd_una;
	*flags |= WWC_F_HAVE_ACK;
}

static __always_inline void estimator_init(struct sock *sk, struct tcpw_ca *ca, __u32 algo)
{
	__u32 una = tcp_sk(sk)->snd_una;
	struct wwc_abse *abse;

	switch (algo) {
	case TCPW_ALGO_TCPW:
		wwc_tcpw_init(&ca->core.tcpw);
		start_acked_count(&ca->core.tcpw.acked, &ca->core.tcpw.flags, una);
		break;
	case TCPW_ALGO_TR:
		wwc_tr_init(&ca->core.tr);
		start_acked_count(&ca->core.tr.acked, &ca->core.tr.flags, una);
		break;
	case TCPW_ALGO_PLUS:
		wwc_plus_init(&ca->core.plus);
		start_acked_count(&ca->core.plus.acked, &ca->core.plus.flags, una);
		break;
	case TCPW_ALGO_ABSE:
		abse = bpf_sk_storage_get(&tcpw_abse_stor, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
		if (!abse) {
			ca->flags |= CA_F_NO_STATE;
			break;
		}
		wwc_abse_init(abse);
		start_acked_count(&abse->acked, &abse->flags, una);
		break;
	}
}

static __always_inline void estimator_rtt_sample(struct sock *sk, struct tcpw_ca *ca, __u32 algo, __u32 rtt_us)
{
	struct wwc_abse *abse;

	switch (algo) {
	case TCPW_ALGO_TCPW:
		wwc_tcpw_rtt_sample(&ca->core.tcpw, rtt_us);
		break;
	case TCPW_ALGO_TR:
		wwc_tr_rtt_sample(&ca->core.tr, rtt_us);
		break;
	case TCPW_ALGO_PLUS:
		wwc_plus_rtt_sample(&ca->core.plus, rtt_us);
		break;
	case TCPW_ALGO_ABSE:
		abse = abse_of(sk);
		if (abse)
			wwc_abse_rtt_sample(abse, rtt_us);
		break;
	}
}

/* Feed one ACK (its RTT sample came through pkts_acked); returns AckedCount's credit, bytes. */
static __always_inline __u32 estimator_on_ack(struct sock *sk, struct tcpw_ca *ca, __u32 algo)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 mss = mss_of(tp);
	struct wwc_abse_params params;
	struct wwc_abse *abse;

	switch (algo) {
	case TCPW_ALGO_TCPW:
		return wwc_tcpw_on_ack_sampled(&ca->core.tcpw, tp->tcp_mstamp, tp->snd_una, mss, -1, tcpw_tau_us,
					       tcpw_m, tcpw_sample);
	case TCPW_ALGO_TR:
		return wwc_tr_on_ack(&ca->core.tr, tp->tcp_mstamp, tp->snd_una, mss, -1, tcpw_tr_ratio);
	case TCPW_ALGO_PLUS:
		return wwc_plus_on_ack(&ca->core.plus, tp->tcp_mstamp, tp->snd_una, mss, -1,
				       tcpw_plus_min_window_us);
	case TCPW_ALGO_ABSE:
		abse = abse_of(sk);
		if (!abse)
			return 0;
		params = abse_params();
		/* cwnd before this ACK: growth (cong_avoid) comes after in_ack_event. */
		return wwc_abse_on_ack(abse, &params, tp->tcp_mstamp, tp->snd_una, mss, -1,
				       (__u64)tp->snd_cwnd * mss);
	}
	return 0;
}

/* The loss rule's threshold, segments. `timeout`: the RTO rule (tcpw_tr's factor steps by 1). */
static __always_inline __u32 loss_threshold(struct sock *sk, struct tcpw_ca *ca, __u32 algo, int timeout)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 mss = mss_of(tp);
	struct wwc_abse *abse;
	__u32 half;

	switch (algo) {
	case TCPW_ALGO_TCPW:
		/* The same sampling as on_ack: the virtual samples due are applied with it. */
		return wwc_tcpw_ssthresh_sampled(&ca->core.tcpw, tp->tcp_mstamp, mss, tcpw_tau_us, tcpw_m,
						 tcpw_sample);
	case TCPW_ALGO_TR:
		return wwc_tr_ssthresh(&ca->core.tr, timeout, tp->snd_cwnd < tp->snd_ssthresh, mss);
	case TCPW_ALGO_PLUS:
		return wwc_plus_ssthresh(&ca->core.plus, mss);
	case TCPW_ALGO_ABSE:
		abse = abse_of(sk);
		if (abse)
			return wwc_abse_ssthresh(abse, mss);
		/* No estimator state (storage allocation failed at init): Reno's rule. */
		half = tp->snd_cwnd >> 1;
		return half < 2 ? 2 : half;
	}
	return 2;
}

static __always_inline __u32 factor_quarters(struct tcpw_ca *ca, __u32 algo)
{
	return algo == TCPW_ALGO_TR ? ca->core.tr.a_quarters : 4;
}

/* ============================== watch record, trace ============================== */

static __always_inline void info_create(struct sock *sk, __u32 algo, __u32 flags)
{
	struct tcpw_sk_info *info;

	info = bpf_sk_storage_get(&tcpw_sk_stor, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!info)
		return; /* no memory: the congestion control works, watch misses it */
	__builtin_memset(info, 0, sizeof(*info));
	info->algo = algo;
	info->mss = tcp_sk(sk)->mss_cache;
	info->ssthresh = TCPW_INFINITE_SSTHRESH;
	info->loss_factor_quarters = 4;
	info->flags = flags;
}

/* Mirror one connection's estimator state into its socket storage, for `watch`. */
static __always_inline void publish(struct sock *sk, struct tcpw_ca *ca, struct estimate *e)
{
	struct tcpw_sk_info *info = info_of(sk);

	if (!info)
		return;
	info->bwe_q8 = e->bwe_q8;
	info->rtt_min_us = e->rtt_min_us;
	info->mss = tcp_sk(sk)->mss_cache;
	info->last_ack_us = tcp_sk(sk)->tcp_mstamp;
	info->acks = ca->acks;
	info->dupacks = ca->dupacks;
}

/* The inputs and outputs of a loss rule, for `watch` and the tests that check the rule in the
 * kernel. Counted later, when set_state commits the loss. */
static __always_inline void note_loss(struct sock *sk, struct tcpw_ca *ca, __u32 algo, __u32 ssthresh,
				      __u32 cwnd_before, __u32 cwnd_after, int timeout)
{
	struct tcpw_sk_info *info = info_of(sk);
	struct estimate e = estimate_of(sk, ca, algo);

	if (!info)
		return;
	info->ssthresh = ssthresh;
	info->bwe_q8 = e.bwe_q8;
	info->loss_bwe_q8 = e.bwe_q8;
	info->loss_rtt_min_us = e.rtt_min_us;
	info->loss_mss = mss_of(tcp_sk(sk));
	info->loss_ssthresh = ssthresh;
	info->loss_cwnd_before = cwnd_before;
	info->loss_cwnd_after = cwnd_after;
	info->loss_kind = timeout ? 1 : 0;
	info->loss_factor_quarters = factor_quarters(ca, algo);
}

static __always_inline __u32 packets_in_flight(const struct tcp_sock *tp)
{
	__u32 left = tp->sacked_out + tp->lost_out;
	__u32 out = tp->packets_out > left ? tp->packets_out - left : 0;

	return out + tp->retrans_out;
}

/* One trace record, if a consumer has switched the trace on. `entering`: the state a loss row
 * enters (set_state runs before the kernel stores it), or -1 for an ACK row (the current one). */
static __always_inline void trace(struct sock *sk, struct tcpw_ca *ca, __u32 algo, __u8 event, int dupack,
				  __u32 acked_bytes, __u32 credited, __u32 ssthresh, int entering)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_trace_ctl *ctl;
	struct tcpw_counters *cnt;
	struct tcpw_ack_event *r;
	struct estimate e;

	if (!tcpw_trace_available)
		return;
	ctl = trace_ctl();
	if (!ctl || !ctl->enabled)
		return;
	r = bpf_ringbuf_reserve(&tcpw_acks, sizeof(*r), 0);
	if (!r) {
		cnt = counters();
		if (cnt)
			__sync_fetch_and_add(&cnt->trace_dropped, 1);
		return;
	}
	e = estimate_of(sk, ca, algo);
	r->magic = TCPW_ACK_MAGIC;
	r->algo = algo;
	r->event = event;
	r->ca_state = entering >= 0 ? (__u8)entering
				    : BPF_CORE_READ_BITFIELD((struct inet_connection_sock *)sk, icsk_ca_state);
	r->flags = (dupack ? TCPW_ACK_F_DUPACK : 0) | (e.have_rtt_min ? TCPW_ACK_F_RTT_MIN : 0);
	r->time_us = tp->tcp_mstamp;
	r->bwe_q8 = e.bwe_q8;
	r->conn_id = ca->conn_id;
	r->netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	r->family = sk->__sk_common.skc_family;
	r->sport = sk->__sk_common.skc_num;
	r->dport = bpf_ntohs(sk->__sk_common.skc_dport);
	r->pad = 0;
	r->ack = tp->snd_una - ca->start_una;
	r->acked_bytes = acked_bytes;
	r->credited_bytes = credited;
	r->sacked_out = tp->sacked_out;
	r->in_flight = packets_in_flight(tp);
	r->rtt_us = ca->rtt_taken_us;
	if (ca->rtt_taken_us)
		r->flags |= TCPW_ACK_F_RTT;
	r->rtt_min_us = e.rtt_min_us;
	r->cwnd = tp->snd_cwnd;
	r->ssthresh = ssthresh;
	r->mss = tp->mss_cache;
	tcpw_read_addrs(sk, r->family, r->saddr, r->daddr);
	bpf_ringbuf_submit(r, 0);
}

/* ============================ the callbacks, per variant ============================ */

/* Give the estimator the RTT sample kept since its last event (the reference takes an ACK's
 * sample before the ACK itself), and remember it for this event's trace record. */
static __always_inline void take_rtt_sample(struct sock *sk, struct tcpw_ca *ca, __u32 algo)
{
	ca->rtt_taken_us = 0;
	if (!(ca->flags & CA_F_RTT_KEPT))
		return;
	ca->flags &= ~CA_F_RTT_KEPT;
	estimator_rtt_sample(sk, ca, algo, ca->rtt_kept_us);
	ca->rtt_taken_us = ca->rtt_kept_us;
}

static __always_inline void ww_init(struct sock *sk, __u32 algo)
{
	struct tcpw_ca *ca = ca_of(sk);
	struct tcpw_counters *cnt = counters();

	__builtin_memset(ca, 0, sizeof(*ca));
	estimator_init(sk, ca, algo);
	ca->start_una = tcp_sk(sk)->snd_una;
	ca->prior_una = ca->start_una;
	if (cnt)
		ca->conn_id = __sync_fetch_and_add(&cnt->next_conn_id, 1);
	info_create(sk, algo, (ca->flags & CA_F_NO_STATE) ? TCPW_INFO_F_NO_STATE : 0);
	ca->flags |= CA_F_READY;
}

static __always_inline int ready(const struct tcpw_ca *ca)
{
	return ca->flags & CA_F_READY;
}

static __always_inline void ww_in_ack_event(struct sock *sk, __u32 flags, __u32 algo)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_ca *ca = ca_of(sk);
	int kind = ack_kind(tp, ca, flags);
	__u32 credited, acked_bytes;
	struct estimate e;

	if (!ready(ca) || !kind)
		return;
	ca->acks++;
	if (kind == 2)
		ca->dupacks++;
	take_rtt_sample(sk, ca, algo);
	credited = estimator_on_ack(sk, ca, algo);
	acked_bytes = kind == 1 ? tp->snd_una - ca->prior_una : 0;
	if (kind == 1)
		ca->prior_una = tp->snd_una;
	e = estimate_of(sk, ca, algo);
	publish(sk, ca, &e);
	trace(sk, ca, algo, TCPW_EV_ACK, kind == 2, acked_bytes, credited, tp->snd_ssthresh, -1);
}

static __always_inline void ww_pkts_acked(struct sock *sk, const struct ack_sample *sample, __u32 algo)
{
	struct tcpw_ca *ca = ca_of(sk);

	if (!ready(ca) || sample->rtt_us <= 0)
		return;
	ca->rtt_kept_us = (__u32)sample->rtt_us;
	ca->flags |= CA_F_RTT_KEPT;
}

static __always_inline __u32 ww_ssthresh(struct sock *sk, __u32 algo)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_ca *ca = ca_of(sk);
	__u32 before = tp->snd_cwnd;
	__u32 ssthresh;

	if (!ready(ca))
		return tp->snd_ssthresh; /* cannot happen before the handshake: keep what there is */
	if (algo == TCPW_ALGO_TR)
		ca->tr_a_before = (__u8)ca->core.tr.a_quarters;
	take_rtt_sample(sk, ca, algo);
	ssthresh = loss_threshold(sk, ca, algo, 0);
	/* §3.1: if (cwin > ssthresh) cwin = ssthresh. The kernel's PRR then drains the pipe
	 * towards ssthresh; at an RTO the kernel sets cwnd to 1 after this call. */
	tp->snd_cwnd = wwc_cwnd_after_dupacks(before, ssthresh);
	note_loss(sk, ca, algo, ssthresh, before, tp->snd_cwnd, 0);
	ca->flags |= CA_F_LOSS_PENDING;
	return ssthresh;
}

static __always_inline void ww_cwnd_event(struct sock *sk, enum tcp_ca_event event, __u32 algo)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_ca *ca = ca_of(sk);
	__u32 ssthresh;

	if (!ready(ca))
		return;
	switch (event) {
	case CA_EVENT_LOSS:
		/* §3.2: ssthresh = max(2, BWE*RTTmin/seg_size); cwnd = 1 follows in the kernel
		 * (tcp_enter_loss sets it to packets in flight + 1). ssthresh ran just before for the
		 * same RTO: tcpw_tr takes its factor back and steps it as for a timeout. */
		if (algo == TCPW_ALGO_TR)
			ca->core.tr.a_quarters = ca->tr_a_before;
		ssthresh = loss_threshold(sk, ca, algo, 1);
		tp->snd_ssthresh = ssthresh;
		note_loss(sk, ca, algo, ssthresh, tp->prior_cwnd, wwc_cwnd_after_timeout(), 1);
		ca->flags |= CA_F_LOSS_PENDING;
		break;
	case CA_EVENT_COMPLETE_CWR:
		tp->snd_cwnd = wwc_cwnd_after_dupacks(tp->prior_cwnd, tp->snd_ssthresh);
		break;
	default:
		break;
	}
}

static __always_inline void ww_set_state(struct sock *sk, __u8 new_state, __u32 algo)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_ca *ca = ca_of(sk);
	struct tcpw_sk_info *info;
	int timeout = new_state == TCP_CA_Loss;

	__u8 event;

	if (!ready(ca))
		return;
	if (!timeout && new_state != TCP_CA_Recovery && new_state != TCP_CA_CWR)
		return;
	if (ca->flags & CA_F_LOSS_PENDING)
		event = timeout ? TCPW_EV_TIMEOUT : TCPW_EV_RECOVERY;
	else if (timeout)
		event = TCPW_EV_TIMEOUT_HELD; /* tcp_enter_loss without ssthresh: the same episode */
	else
		return; /* Recovery / CWR without our ssthresh: not a loss reaction of ours */
	ca->flags &= ~CA_F_LOSS_PENDING;
	info = info_of(sk);
	if (info) {
		if (timeout)
			info->timeouts++;
		else
			info->losses++;
		/* The loss record is this RTO's only if the RTO ran the loss rule: a held timeout
		 * leaves the episode's record (and its cwnd_after) as it was. */
		if (event == TCPW_EV_TIMEOUT)
			info->loss_cwnd_after = tp->snd_cwnd;
	}
	trace(sk, ca, algo, event, 0, 0, 0, tp->snd_ssthresh, new_state);
}

static __always_inline void ww_release(struct sock *sk, __u32 algo)
{
	if (algo == TCPW_ALGO_ABSE)
		bpf_sk_storage_delete(&tcpw_abse_stor, sk);
	bpf_sk_storage_delete(&tcpw_sk_stor, sk);
}

/*
 * One congestion control: a struct tcp_congestion_ops whose callbacks are the bodies above with
 * the variant fixed. Each struct_ops map needs programs of its own (not every kernel lets two
 * maps share one), so this macro stamps out the thin wrappers; all logic is above.
 */
#define WESTWOOD_OPS(prefix, algo, cc_name)                                                      \
	SEC("struct_ops") void BPF_PROG(prefix##_init, struct sock *sk)                          \
	{                                                                                         \
		ww_init(sk, algo);                                                                \
	}                                                                                         \
	SEC("struct_ops") void BPF_PROG(prefix##_in_ack_event, struct sock *sk, __u32 flags)     \
	{                                                                                         \
		ww_in_ack_event(sk, flags, algo);                                                 \
	}                                                                                         \
	SEC("struct_ops")                                                                         \
	void BPF_PROG(prefix##_pkts_acked, struct sock *sk, const struct ack_sample *sample)      \
	{                                                                                         \
		ww_pkts_acked(sk, sample, algo);                                                  \
	}                                                                                         \
	SEC("struct_ops") __u32 BPF_PROG(prefix##_ssthresh, struct sock *sk)                     \
	{                                                                                         \
		return ww_ssthresh(sk, algo);                                                     \
	}                                                                                         \
	SEC("struct_ops")                                                                         \
	void BPF_PROG(prefix##_cwnd_event, struct sock *sk, enum tcp_ca_event event)              \
	{                                                                                         \
		ww_cwnd_event(sk, event, algo);                                                   \
	}                                                                                         \
	SEC("struct_ops") void BPF_PROG(prefix##_set_state, struct sock *sk, __u8 new_state)     \
	{                                                                                         \
		ww_set_state(sk, new_state, algo);                                                \
	}                                                                                         \
	SEC("struct_ops") void BPF_PROG(prefix##_cong_avoid, struct sock *sk, __u32 ack, __u32 acked) \
	{                                                                                         \
		tcp_reno_cong_avoid(sk, ack, acked);                                              \
	}                                                                                         \
	SEC("struct_ops") __u32 BPF_PROG(prefix##_undo_cwnd, struct sock *sk)                    \
	{                                                                                         \
		return tcp_reno_undo_cwnd(sk);                                                    \
	}                                                                                         \
	SEC("struct_ops") void BPF_PROG(prefix##_release, struct sock *sk)                       \
	{                                                                                         \
		ww_release(sk, algo);                                                             \
	}                                                                                         \
	SEC(".struct_ops.link") struct tcp_congestion_ops prefix##_ops = {                        \
		.init = (void *)prefix##_init,                                                    \
		.release = (void *)prefix##_release,                                              \
		.in_ack_event = (void *)prefix##_in_ack_event,                                    \
		.pkts_acked = (void *)prefix##_pkts_acked,                                        \
		.ssthresh = (void *)prefix##_ssthresh,                                            \
		.cwnd_event = (void *)prefix##_cwnd_event,                                        \
		.set_state = (void *)prefix##_set_state,                                          \
		.cong_avoid = (void *)prefix##_cong_avoid,                                        \
		.undo_cwnd = (void *)prefix##_undo_cwnd,                                          \
		.name = cc_name,                                                                  \
	}

WESTWOOD_OPS(tcpw, TCPW_ALGO_TCPW, "tcpw");
WESTWOOD_OPS(tcpw_tr, TCPW_ALGO_TR, "tcpw_tr");
WESTWOOD_OPS(tcpw_abse, TCPW_ALGO_ABSE, "tcpw_abse");
WESTWOOD_OPS(tcpw_plus, TCPW_ALGO_PLUS, "tcpw_plus");
