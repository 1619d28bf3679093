// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tcpw.bpf.c -- TCP Westwood (TCPW, seed 000 §2-3) and Westwood+ as BPF struct_ops
 * congestion controls, registered as "tcpw" and "tcpw_plus".
 *
 * The arithmetic (AckedCount, the Tustin filter with alpha_k from the ACK inter-arrival
 * time and virtual null samples, Westwood+'s per-RTT EWMAs, the loss rules) is
 * kernel/westwood_core.h, shared with the native tests that replay the simulator's test
 * vectors; this file only wires it to the kernel's hooks:
 *
 *   init          state in icsk_ca_priv; AckedCount starts at the current snd_una;
 *                 socket-local storage record for `watch`
 *   in_ack_event  every ACK: tcp_mstamp (us) is t_k, snd_una the cumulative ACK. An ACK
 *                 that does not advance snd_una is a DUPACK (AckedCount credits one
 *                 segment) when data is outstanding and the window did not change
 *                 (RFC 5681's definition); otherwise (window update, data-only segment)
 *                 it reports no delivery and is not fed to the estimator
 *   pkts_acked    RTT samples (rtt_us > 0) -> RTTmin (and Westwood+'s window length)
 *   ssthresh      entering fast recovery / CWR, and at an RTO: max(2, BWE*RTTmin/mss)
 *                 after applying the virtual samples due by now; cwnd capped at it
 *   cwnd_event    CA_EVENT_LOSS (RTO): the same threshold (cwnd 1 is set by the kernel);
 *                 CA_EVENT_COMPLETE_CWR: the kernel has just set cwnd = ssthresh; put
 *                 back min(cwnd at the loss, ssthresh) -- seed 000 §3.1 lowers cwnd only
 *                 if it was above the threshold, never raises it
 *   cong_avoid    the kernel's Reno (tcp_reno_cong_avoid kfunc: tcp_slow_start,
 *                 tcp_cong_avoid_ai)
 *   undo_cwnd     tcp_reno_undo_cwnd kfunc
 *   release       drops the storage record (socket closing or switching away)
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

/* Filter parameters; the loader may set them before loading (`load --tau-ms --m`). */
const volatile __u32 tcpw_tau_us = WWC_TCPW_TAU_US;
const volatile __u32 tcpw_m = WWC_TCPW_M;
const volatile __u32 tcpw_plus_min_window_us = WWC_PLUS_MIN_WINDOW_US;

#define TCPW_INFINITE_SSTHRESH 0x7fffffffu
#define TCPW_AF_INET 2
#define TCPW_AF_INET6 10

/* Kernel Reno, exported to BPF congestion controls as kfuncs (5.13+). */
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tcpw_sk_info);
} tcpw_sk_stor SEC(".maps");

/* Private state in icsk_ca_priv (ICSK_CA_PRIV_SIZE = 104 bytes). */
struct tcpw_ca {
	struct wwc_tcpw core;
	__u64 acks;
	__u64 dupacks;
};

struct tcpw_plus_ca {
	struct wwc_plus core;
	__u64 acks;
	__u64 dupacks;
};

_Static_assert(sizeof(struct tcpw_ca) <= 104, "tcpw state must fit in icsk_ca_priv");
_Static_assert(sizeof(struct tcpw_plus_ca) <= 104, "tcpw_plus state must fit in icsk_ca_priv");

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline __u32 mss_of(const struct tcp_sock *tp)
{
	__u32 mss = tp->mss_cache;

	return mss ? mss : 1;
}

/*
 * Classify an ACK (in_ack_event, snd_una already updated). Returns 0 when the ACK
 * reports no delivery (snd_una unchanged and: nothing outstanding, or the window changed /
 * the segment carried data, which the kernel flags as CA_ACK_WIN_UPDATE), 1 for an ACK of
 * new data, 2 for a DUPACK.
 */
static __always_inline int ack_kind(const struct tcp_sock *tp, const struct wwc_acked *a, __u32 ca_flags,
				    __u32 flags)
{
	if ((ca_flags & WWC_F_HAVE_ACK) && (__s32)(tp->snd_una - a->last_ack) <= 0) {
		if (tp->packets_out == 0 || (flags & CA_ACK_WIN_UPDATE))
			return 0;
		return 2;
	}
	return 1;
}

static __always_inline struct tcpw_sk_info *info_of(struct sock *sk)
{
	return bpf_sk_storage_get(&tcpw_sk_stor, sk, 0, 0);
}

static __always_inline void info_create(struct sock *sk, __u32 algo)
{
	struct tcpw_sk_info *info;

	info = bpf_sk_storage_get(&tcpw_sk_stor, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!info)
		return; /* no memory: the congestion control works, watch misses it */
	__builtin_memset(info, 0, sizeof(*info));
	info->algo = algo;
	info->mss = tcp_sk(sk)->mss_cache;
	info->ssthresh = TCPW_INFINITE_SSTHRESH;
}

/* ================================== TCPW ================================== */

/* Mirror one connection's estimator state into its socket storage, for `watch`. */
static __always_inline void publish(struct sock *sk, __u64 bwe_q8, __u32 rtt_min_us, __u32 acks,
				    __u32 dupacks)
{
	struct tcpw_sk_info *info = info_of(sk);

	if (!info)
		return;
	info->bwe_q8 = bwe_q8;
	info->rtt_min_us = rtt_min_us;
	info->mss = tcp_sk(sk)->mss_cache;
	info->last_ack_us = tcp_sk(sk)->tcp_mstamp;
	info->acks = acks;
	info->dupacks = dupacks;
}

static __always_inline void tcpw_publish(struct sock *sk, struct tcpw_ca *ca)
{
	publish(sk, wwc_tcpw_bwe_q8(&ca->core), ca->core.rtt_min_us, ca->acks, ca->dupacks);
}

SEC("struct_ops")
void BPF_PROG(tcpw_init, struct sock *sk)
{
	struct tcpw_ca *ca = inet_csk_ca(sk);

	wwc_tcpw_init(&ca->core);
	/* The SYN is acknowledged: start AckedCount at snd_una, so the first data ACK is
	 * credited with what it acknowledges rather than taken for a DUPACK. */
	ca->core.acked.last_ack = tcp_sk(sk)->snd_una;
	ca->core.flags |= WWC_F_HAVE_ACK;
	ca->acks = 0;
	ca->dupacks = 0;
	info_create(sk, TCPW_ALGO_TCPW);
}

SEC("struct_ops")
void BPF_PROG(tcpw_in_ack_event, struct sock *sk, __u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_ca *ca = inet_csk_ca(sk);
	int kind = ack_kind(tp, &ca->core.acked, ca->core.flags, flags);

	if (!kind)
		return;
	ca->acks++;
	if (kind == 2)
		ca->dupacks++;
	wwc_tcpw_on_ack(&ca->core, tp->tcp_mstamp, tp->snd_una, mss_of(tp), -1, tcpw_tau_us, tcpw_m);
	tcpw_publish(sk, ca);
}

SEC("struct_ops")
void BPF_PROG(tcpw_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcpw_ca *ca = inet_csk_ca(sk);

	if (sample->rtt_us > 0)
		wwc_tcpw_rtt_sample(&ca->core, (__u32)sample->rtt_us);
}

static __always_inline __u32 tcpw_threshold(struct sock *sk, struct tcpw_ca *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);

	return wwc_tcpw_ssthresh(&ca->core, tp->tcp_mstamp, mss_of(tp), tcpw_tau_us, tcpw_m);
}

/* Record a loss for `watch` (and the tests that check the rule in the kernel). */
static __always_inline void note_loss(struct sock *sk, __u32 ssthresh, __u64 bwe_q8, __u32 rtt_min_us,
				      __u32 cwnd_before, __u32 cwnd_after, int timeout)
{
	struct tcpw_sk_info *info = info_of(sk);

	if (!info)
		return;
	info->ssthresh = ssthresh;
	info->bwe_q8 = bwe_q8;
	info->loss_bwe_q8 = bwe_q8;
	info->loss_rtt_min_us = rtt_min_us;
	info->loss_mss = mss_of(tcp_sk(sk));
	info->loss_ssthresh = ssthresh;
	info->loss_cwnd_before = cwnd_before;
	info->loss_cwnd_after = cwnd_after;
	info->loss_kind = timeout ? 1 : 0;
	if (timeout)
		info->timeouts++;
	else
		info->losses++;
}

SEC("struct_ops")
__u32 BPF_PROG(tcpw_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_ca *ca = inet_csk_ca(sk);
	__u32 ssthresh = tcpw_threshold(sk, ca);
	__u32 before = tp->snd_cwnd;

	/* §3.1: if (cwin > ssthresh) cwin = ssthresh. The kernel's PRR then drains the
	 * pipe towards ssthresh; at an RTO the kernel sets cwnd to 1 after this call. */
	tp->snd_cwnd = wwc_cwnd_after_dupacks(before, ssthresh);
	note_loss(sk, ssthresh, ca->core.bwe, ca->core.rtt_min_us, before, tp->snd_cwnd, 0);
	return ssthresh;
}

SEC("struct_ops")
void BPF_PROG(tcpw_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_ca *ca = inet_csk_ca(sk);
	__u32 ssthresh;

	switch (event) {
	case CA_EVENT_LOSS:
		/* §3.2: ssthresh = max(2, BWE*RTTmin/seg_size); cwnd = 1 follows in the
		 * kernel (tcp_enter_loss sets it to packets in flight + 1). */
		ssthresh = tcpw_threshold(sk, ca);
		tp->snd_ssthresh = ssthresh;
		note_loss(sk, ssthresh, ca->core.bwe, ca->core.rtt_min_us, tp->prior_cwnd,
			  wwc_cwnd_after_timeout(), 1);
		break;
	case CA_EVENT_COMPLETE_CWR:
		tp->snd_cwnd = wwc_cwnd_after_dupacks(tp->prior_cwnd, tp->snd_ssthresh);
		break;
	default:
		break;
	}
}

SEC("struct_ops")
void BPF_PROG(tcpw_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(tcpw_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC("struct_ops")
void BPF_PROG(tcpw_release, struct sock *sk)
{
	bpf_sk_storage_delete(&tcpw_sk_stor, sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops tcpw_ops = {
	.init = (void *)tcpw_init,
	.release = (void *)tcpw_release,
	.in_ack_event = (void *)tcpw_in_ack_event,
	.pkts_acked = (void *)tcpw_pkts_acked,
	.ssthresh = (void *)tcpw_ssthresh,
	.cwnd_event = (void *)tcpw_cwnd_event,
	.cong_avoid = (void *)tcpw_cong_avoid,
	.undo_cwnd = (void *)tcpw_undo_cwnd,
	.name = "tcpw",
};

/* ================================ Westwood+ ================================ */

static __always_inline void plus_publish(struct sock *sk, struct tcpw_plus_ca *ca)
{
	publish(sk, wwc_plus_bwe_q8(&ca->core), ca->core.rtt_min_us, ca->acks, ca->dupacks);
}

SEC("struct_ops")
void BPF_PROG(tcpw_plus_init, struct sock *sk)
{
	struct tcpw_plus_ca *ca = inet_csk_ca(sk);

	wwc_plus_init(&ca->core);
	ca->core.acked.last_ack = tcp_sk(sk)->snd_una;
	ca->core.flags |= WWC_F_HAVE_ACK;
	ca->acks = 0;
	ca->dupacks = 0;
	info_create(sk, TCPW_ALGO_PLUS);
}

SEC("struct_ops")
void BPF_PROG(tcpw_plus_in_ack_event, struct sock *sk, __u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_plus_ca *ca = inet_csk_ca(sk);
	int kind = ack_kind(tp, &ca->core.acked, ca->core.flags, flags);

	if (!kind)
		return;
	ca->acks++;
	if (kind == 2)
		ca->dupacks++;
	wwc_plus_on_ack(&ca->core, tp->tcp_mstamp, tp->snd_una, mss_of(tp), -1, tcpw_plus_min_window_us);
	plus_publish(sk, ca);
}

SEC("struct_ops")
void BPF_PROG(tcpw_plus_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcpw_plus_ca *ca = inet_csk_ca(sk);

	if (sample->rtt_us > 0)
		wwc_plus_rtt_sample(&ca->core, (__u32)sample->rtt_us);
}

SEC("struct_ops")
__u32 BPF_PROG(tcpw_plus_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_plus_ca *ca = inet_csk_ca(sk);
	__u32 ssthresh = wwc_plus_ssthresh(&ca->core, mss_of(tp));
	__u32 before = tp->snd_cwnd;

	tp->snd_cwnd = wwc_cwnd_after_dupacks(before, ssthresh);
	note_loss(sk, ssthresh, ca->core.bw_est, ca->core.rtt_min_us, before, tp->snd_cwnd, 0);
	return ssthresh;
}

SEC("struct_ops")
void BPF_PROG(tcpw_plus_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpw_plus_ca *ca = inet_csk_ca(sk);
	__u32 ssthresh;

	switch (event) {
	case CA_EVENT_LOSS:
		ssthresh = wwc_plus_ssthresh(&ca->core, mss_of(tp));
		tp->snd_ssthresh = ssthresh;
		note_loss(sk, ssthresh, ca->core.bw_est, ca->core.rtt_min_us, tp->prior_cwnd,
			  wwc_cwnd_after_timeout(), 1);
		break;
	case CA_EVENT_COMPLETE_CWR:
		tp->snd_cwnd = wwc_cwnd_after_dupacks(tp->prior_cwnd, tp->snd_ssthresh);
		break;
	default:
		break;
	}
}

SEC("struct_ops")
void BPF_PROG(tcpw_plus_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(tcpw_plus_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC("struct_ops")
void BPF_PROG(tcpw_plus_release, struct sock *sk)
{
	bpf_sk_storage_delete(&tcpw_sk_stor, sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops tcpw_plus_ops = {
	.init = (void *)tcpw_plus_init,
	.release = (void *)tcpw_plus_release,
	.in_ack_event = (void *)tcpw_plus_in_ack_event,
	.pkts_acked = (void *)tcpw_plus_pkts_acked,
	.ssthresh = (void *)tcpw_plus_ssthresh,
	.cwnd_event = (void *)tcpw_plus_cwnd_event,
	.cong_avoid = (void *)tcpw_plus_cong_avoid,
	.undo_cwnd = (void *)tcpw_plus_undo_cwnd,
	.name = "tcpw_plus",
};

/* ============================ watch: the iterator ============================ */

SEC("iter/bpf_sk_storage_map")
int tcpw_watch(struct bpf_iter__bpf_sk_storage_map *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct sock *sk = ctx->sk;
	struct tcpw_sk_info *info = ctx->value;
	struct tcpw_watch_record rec = {};
	struct tcp_sock *tp;

	if (!sk || !info)
		return 0;
	rec.magic = TCPW_WATCH_MAGIC;
	rec.family = sk->__sk_common.skc_family;
	rec.state = sk->__sk_common.skc_state;
	rec.algo = (__u8)info->algo;
	rec.sport = sk->__sk_common.skc_num;
	rec.dport = bpf_ntohs(sk->__sk_common.skc_dport);
	rec.netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	if (rec.family == TCPW_AF_INET6) {
		bpf_probe_read_kernel(rec.saddr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
		bpf_probe_read_kernel(rec.daddr, 16, &sk->__sk_common.skc_v6_daddr);
	} else {
		bpf_probe_read_kernel(rec.saddr, 4, &sk->__sk_common.skc_rcv_saddr);
		bpf_probe_read_kernel(rec.daddr, 4, &sk->__sk_common.skc_daddr);
	}
	rec.rtt_min_us = info->rtt_min_us;
	rec.bwe_q8 = info->bwe_q8;
	rec.last_ack_us = info->last_ack_us;
	rec.acks = info->acks;
	rec.dupacks = info->dupacks;
	rec.losses = info->losses;
	rec.timeouts = info->timeouts;
	rec.loss_bwe_q8 = info->loss_bwe_q8;
	rec.loss_rtt_min_us = info->loss_rtt_min_us;
	rec.loss_mss = info->loss_mss;
	rec.loss_ssthresh = info->loss_ssthresh;
	rec.loss_cwnd_before = info->loss_cwnd_before;
	rec.loss_cwnd_after = info->loss_cwnd_after;
	rec.loss_kind = info->loss_kind;
	rec.mss = info->mss;
	rec.ssthresh = info->ssthresh;
	rec.now_us = bpf_ktime_get_ns() / 1000;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp) {
		rec.cwnd = tp->snd_cwnd;
		rec.ssthresh = tp->snd_ssthresh;
		rec.mss = tp->mss_cache;
		rec.bytes_acked = tp->bytes_acked;
	}
	bpf_seq_write(seq, &rec, sizeof(rec));
	return 0;
}
