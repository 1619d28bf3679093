// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tcpw_watch.bpf.c -- the iterators `westwood-linux watch` reads: one struct tcpw_watch_record
 * (kernel/tcpw_watch.bpf.h) per socket that uses a tcpw* congestion control.
 *
 * Loaded separately from the congestion controls (kernel/tcpw.bpf.c), after them, reusing their
 * pinned socket storage map, so a kernel that refuses an iterator never keeps tcpw from
 * registering. Two ways to walk the sockets, tried in this order:
 *
 *   iter/bpf_sk_storage_map  over the storage map: every tcpw* socket of every namespace;
 *   iter/tcp                 over the TCP sockets, each looked up in the storage map with
 *                            bpf_sk_storage_get: only the namespace of the process that opens
 *                            the pinned iterator, so `watch` opens it once per namespace.
 *
 * Some kernels refuse the first at load (EPERM, even an empty program) and accept the second.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "tcpw_watch.bpf.h"

char _license[] SEC("license") = "Dual MIT/GPL";

/* The congestion controls' map, reused from its pin (same definition as in tcpw.bpf.c). */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tcpw_sk_info);
} tcpw_sk_stor SEC(".maps");

/* Write the record of socket `sk` (its storage value `info`, its tcp_sock `tp` if full). */
static __always_inline void write_record(struct seq_file *seq, struct sock *sk, struct tcpw_sk_info *info,
					 struct tcp_sock *tp)
{
	struct tcpw_watch_record rec = {};

	rec.magic = TCPW_WATCH_MAGIC;
	rec.family = sk->__sk_common.skc_family;
	rec.state = sk->__sk_common.skc_state;
	rec.algo = (__u8)info->algo;
	rec.sport = sk->__sk_common.skc_num;
	rec.dport = bpf_ntohs(sk->__sk_common.skc_dport);
	rec.netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	tcpw_read_addrs(sk, rec.family, rec.saddr, rec.daddr);
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
	rec.loss_factor_quarters = info->loss_factor_quarters;
	rec.flags = info->flags;
	rec.mss = info->mss;
	rec.ssthresh = info->ssthresh;
	rec.now_us = bpf_ktime_get_ns() / 1000;
	if (tp) {
		rec.cwnd = tp->snd_cwnd;
		rec.ssthresh = tp->snd_ssthresh;
		rec.mss = tp->mss_cache;
		rec.bytes_acked = tp->bytes_acked;
	}
	bpf_seq_write(seq, &rec, sizeof(rec));
}

SEC("iter/bpf_sk_storage_map")
int tcpw_watch_storage(struct bpf_iter__bpf_sk_storage_map *ctx)
{
	struct sock *sk = ctx->sk;
	struct tcpw_sk_info *info = ctx->value;

	if (!sk || !info)
		return 0;
	write_record(ctx->meta->seq, sk, info, bpf_skc_to_tcp_sock(sk));
	return 0;
}

SEC("iter/tcp")
int tcpw_watch_tcp(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcpw_sk_info *info;
	struct tcp_sock *tp;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc); /* NULL for request and time-wait sockets */
	if (!tp)
		return 0;
	info = bpf_sk_storage_get(&tcpw_sk_stor, (struct sock *)tp, 0, 0);
	if (!info)
		return 0;
	write_record(ctx->meta->seq, (struct sock *)tp, info, tp);
	return 0;
}
