// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tcp_ack_probe.bpf.c -- the per-ACK trace (docs/ack-trace.md) of any kernel congestion control:
 * reno, cubic, or whatever else a socket runs. The tcpw* controls write their own richer trace
 * from inside (kernel/tcpw.bpf.c, with their bandwidth estimate); the built-in ones cannot, so
 * this program reads the socket from the TCP tracepoints instead (tp_btf: the raw tracepoints
 * with their BTF arguments; kernels that refuse fentry/fexit and kprobes still accept these):
 *
 *   tcp_probe              top of tcp_rcv_established(), before the ACK is processed: one `ack`
 *                          row per ACK the sender will accept (from snd_una to snd_nxt). Its
 *                          `ack` and `acked_bytes` come from the segment's ACK number; cwnd,
 *                          ssthresh, the congestion state, sacked_out and in flight are the
 *                          socket's as the ACK finds them, as in the tcpw* rows (taken in
 *                          .in_ack_event, before tcp_cong_control and tcp_fastretrans_alert).
 *   tcp_cong_state_set     tcp_set_ca_state(), before the state is stored: a `recovery` row when
 *                          the socket moves from Open/Disorder into Recovery or CWR
 *                          (tcp_enter_recovery / tcp_enter_cwr have just set ssthresh), and a
 *                          `timeout` or `timeout_held` row when it enters Loss (tcp_enter_loss
 *                          has just set cwnd, and ssthresh if the condition it tests, repeated
 *                          here on the same fields, said this RTO starts a new episode).
 *
 * Only sockets whose local port is `local_port` are traced (the testbed's data connections are
 * bound to one port with iperf3 --cport), so other traffic costs one comparison per segment.
 * Records are `struct tcpw_ack_event` (kernel/tcpw_watch.bpf.h) with algo 0, so one decoder
 * (crates/linux/src/acks.rs) reads both traces. Not pinned: the links and the ring buffer belong
 * to the process that loaded the program and go with it, also after a kill.
 *
 * What the kernel does not keep, the rows leave empty: no bandwidth estimate, no credit, and no
 * per-ACK RTT sample (rtt_min_us is tcp_min_rtt()).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "tcpw_watch.bpf.h"

char _license[] SEC("license") = "Dual MIT/GPL";

/* The local port of the sockets to trace, host byte order (set before load). */
const volatile __u16 local_port = 0;

#define TCP_CA_OPEN 0
#define TCP_CA_CWR 2
#define TCP_CA_RECOVERY 3
#define TCP_CA_LOSS 4

/* What the probe remembers of a socket. */
struct probe_sk {
	__u32 conn_id; /* from probe_counters.next_conn_id, never 0 */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct probe_sk);
} probe_sk_stor SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} probe_acks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tcpw_counters);
} probe_counters SEC(".maps");

static __always_inline struct tcpw_counters *counters(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&probe_counters, &zero);
}

/* The connection id of a traced socket, handed out at its first event; 0: not traced. */
static __always_inline __u32 conn_id_of(struct sock *sk)
{
	struct tcpw_counters *cnt;
	struct probe_sk *st;

	if (sk->__sk_common.skc_num != local_port)
		return 0;
	st = bpf_sk_storage_get(&probe_sk_stor, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!st)
		return 0;
	if (!st->conn_id) {
		cnt = counters();
		st->conn_id = cnt ? __sync_fetch_and_add(&cnt->next_conn_id, 1) + 1 : 1;
		if (!st->conn_id)
			st->conn_id = 1;
	}
	return st->conn_id;
}

/* tcp_packets_in_flight(): what the kernel counts against cwnd. */
static __always_inline __u32 packets_in_flight(struct tcp_sock *tp)
{
	__u32 left = tp->sacked_out + tp->lost_out;
	__u32 out = tp->packets_out > left ? tp->packets_out - left : 0;

	return out + tp->retrans_out;
}

/* One record: `una` is snd_una after the event (sequence space), `acked_bytes` what it newly
 * acknowledged. */
static __always_inline void emit(struct sock *sk, struct tcp_sock *tp, __u32 conn_id, __u8 event, __u8 ca_state,
				 int dupack, __u32 una, __u32 acked_bytes)
{
	struct tcpw_counters *cnt;
	struct tcpw_ack_event *r;
	__u32 rtt_min = tp->rtt_min.s[0].v;

	r = bpf_ringbuf_reserve(&probe_acks, sizeof(*r), 0);
	if (!r) {
		cnt = counters();
		if (cnt)
			__sync_fetch_and_add(&cnt->trace_dropped, 1);
		return;
	}
	r->magic = TCPW_ACK_MAGIC;
	r->algo = 0;
	r->event = event;
	r->ca_state = ca_state;
	r->flags = (dupack ? TCPW_ACK_F_DUPACK : 0) | (rtt_min != ~0U ? TCPW_ACK_F_RTT_MIN : 0);
	/* tcp_mstamp is refreshed after tcp_probe fires; tcp_clock_us() is this clock. */
	r->time_us = bpf_ktime_get_ns() / 1000;
	r->bwe_q8 = 0;
	r->conn_id = conn_id;
	r->netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	r->family = sk->__sk_common.skc_family;
	r->sport = sk->__sk_common.skc_num;
	r->dport = bpf_ntohs(sk->__sk_common.skc_dport);
	r->pad = 0;
	/* bytes_acked counts the SYN, so snd_una's first data byte is byte 0. */
	r->ack = (__u32)(tp->bytes_acked - 1) + (una - tp->snd_una);
	r->acked_bytes = acked_bytes;
	r->credited_bytes = 0;
	r->sacked_out = tp->sacked_out;
	r->in_flight = packets_in_flight(tp);
	r->rtt_us = 0;
	r->rtt_min_us = rtt_min != ~0U ? rtt_min : 0;
	r->cwnd = tp->snd_cwnd;
	r->ssthresh = tp->snd_ssthresh;
	r->mss = tp->mss_cache;
	tcpw_read_addrs(sk, r->family, r->saddr, r->daddr);
	bpf_ringbuf_submit(r, 0);
}

SEC("tp_btf/tcp_probe")
int BPF_PROG(probe_ack, struct sock *sk, struct sk_buff *skb)
{
	struct tcp_sock *tp;
	struct tcphdr th;
	__u32 conn_id = conn_id_of(sk);
	__u32 ack_seq, payload, window;
	int dupack;

	if (!conn_id)
		return 0;
	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		return 0;
	/* skb->data is the TCP header here (tcp_v4_rcv pulled the IP header). */
	if (bpf_probe_read_kernel(&th, sizeof(th), skb->data))
		return 0;
	if (!th.ack)
		return 0;
	ack_seq = bpf_ntohl(th.ack_seq);
	/* tcp_ack ignores ACKs below snd_una and refuses those beyond snd_nxt. */
	if ((__s32)(ack_seq - tp->snd_una) < 0 || (__s32)(ack_seq - tp->snd_nxt) > 0)
		return 0;
	payload = skb->len - th.doff * 4;
	window = (__u32)bpf_ntohs(th.window) << tp->rx_opt.snd_wscale;
	/* RFC 5681's DUPACK: no new data acknowledged, none carried, data outstanding, the same
	 * window. */
	dupack = ack_seq == tp->snd_una && !payload && tp->packets_out > 0 && window == tp->snd_wnd;
	emit(sk, tp, conn_id, TCPW_EV_ACK, BPF_CORE_READ_BITFIELD(&tp->inet_conn, icsk_ca_state), dupack, ack_seq,
	     ack_seq - tp->snd_una);
	return 0;
}

SEC("tp_btf/tcp_cong_state_set")
int BPF_PROG(probe_state, struct sock *sk, __u8 ca_state)
{
	struct tcp_sock *tp;
	__u32 conn_id = conn_id_of(sk);
	__u8 before;
	int new_episode;

	if (!conn_id)
		return 0;
	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		return 0;
	before = BPF_CORE_READ_BITFIELD(&tp->inet_conn, icsk_ca_state);
	if (ca_state == TCP_CA_LOSS) {
		/* tcp_enter_loss asks the control for a new ssthresh only in these cases; high_seq
		 * and icsk_retransmits are updated after tcp_set_ca_state. */
		new_episode = before <= 1 || (__s32)(tp->high_seq - tp->snd_una) <= 0 ||
			      (before == TCP_CA_LOSS && !tp->inet_conn.icsk_retransmits);
		emit(sk, tp, conn_id, new_episode ? TCPW_EV_TIMEOUT : TCPW_EV_TIMEOUT_HELD, ca_state, 0, tp->snd_una, 0);
	} else if (before < TCP_CA_CWR && (ca_state == TCP_CA_CWR || ca_state == TCP_CA_RECOVERY)) {
		emit(sk, tp, conn_id, TCPW_EV_RECOVERY, ca_state, 0, tp->snd_una, 0);
	}
	return 0;
}
