/* SPDX-License-Identifier: MIT */
/*
 * tcpw_watch.bpf.h -- what kernel/tcpw.bpf.c publishes for `westwood-linux watch` and the
 * per-ACK trace, and what the watch iterators (kernel/tcpw_watch.bpf.c) write.
 *
 * The kernel cannot show a BPF congestion control's private state through `ss -i`, so the
 * congestion controls keep a small per-socket record in socket-local storage
 * (BPF_MAP_TYPE_SK_STORAGE, `tcpw_sk_stor`, pinned by `load`), refreshed on every ACK and at
 * every loss. A BPF iterator reads it back: over the storage map itself
 * (SEC("iter/bpf_sk_storage_map"): every socket of every namespace) or, where the kernel refuses
 * that program type, over the TCP sockets (SEC("iter/tcp"), looking each one up with
 * bpf_sk_storage_get: the sockets of the reader's network namespace). Both write one binary
 * `struct tcpw_watch_record` per socket. crates/linux/src/watch.rs mirrors the record layout
 * (repr(C)); change both together and bump TCPW_WATCH_MAGIC.
 *
 * The per-ACK trace is a BPF ring buffer of `struct tcpw_ack_event`, filled by the congestion
 * controls while a consumer has switched it on (`struct tcpw_trace_ctl`);
 * crates/linux/src/acks.rs mirrors it.
 *
 * Needs the kernel types (vmlinux.h) included first.
 */
#ifndef TCPW_WATCH_BPF_H
#define TCPW_WATCH_BPF_H

/* "TW" + layout version 4. */
#define TCPW_WATCH_MAGIC 0x54570004u
/* "TA" + layout version 1. */
#define TCPW_ACK_MAGIC 0x54410001u

/* Variant ids (records, traces); the names are the congestion controls'. */
#define TCPW_ALGO_TCPW 1u /* "tcpw": TCPW, seed 000 */
#define TCPW_ALGO_PLUS 2u /* "tcpw_plus": Westwood+ */
#define TCPW_ALGO_TR 3u   /* "tcpw_tr": TCPW with the threshold reduction factor, seed 001 */
#define TCPW_ALGO_ABSE 4u /* "tcpw_abse": TCPW ABSE, seed 004 */

#define TCPW_AF_INET 2
#define TCPW_AF_INET6 10

/* Socket-local storage value. */
struct tcpw_sk_info {
	__u32 algo;        /* TCPW_ALGO_* */
	__u32 mss;         /* tp->mss_cache at the last update, bytes */
	__u64 bwe_q8;      /* BWE as of the last ACK: bits/s in Q8 (westwood_core.h) */
	__u32 rtt_min_us;  /* RTTmin, us (0 before the first RTT sample) */
	__u32 ssthresh;    /* the last threshold the loss rules computed, segments */
	__u64 last_ack_us; /* tp->tcp_mstamp of the last ACK */
	__u64 acks;        /* ACKs fed to the estimator */
	__u64 dupacks;     /* of which DUPACKs (snd_una did not advance) */
	__u32 losses;      /* .ssthresh calls: recovery, CWR or RTO entries */
	__u32 timeouts;    /* CA_EVENT_LOSS (RTO) events */
	/* The last loss as the loss rules saw it (so tests can check the rule in the kernel):
	 * loss_ssthresh = max(2, BWE * RTTmin / (8 * mss) / a) from these inputs (a = 1 but for
	 * tcpw_tr, whose factor is loss_factor_quarters / 4). */
	__u64 loss_bwe_q8;      /* BWE used (after the virtual samples due), bits/s Q8 */
	__u32 loss_rtt_min_us;  /* RTTmin used */
	__u32 loss_mss;         /* mss used */
	__u32 loss_ssthresh;    /* the threshold, segments */
	__u32 loss_cwnd_before; /* snd_cwnd when the loss was detected */
	__u32 loss_cwnd_after;  /* snd_cwnd the rule left (min(before, ssthresh); RTO: kernel's 1) */
	__u32 loss_kind;        /* 0: fast recovery / CWR (.ssthresh), 1: RTO (CA_EVENT_LOSS) */
	__u32 loss_factor_quarters; /* tcpw_tr's a x 4 at the loss (4 = 1 for the others) */
	__u32 flags;            /* TCPW_INFO_F_* */
};

/* tcpw_abse could not get its estimator state (socket storage allocation failed): it falls
 * back to Reno's halving at losses and reports BWE 0. */
#define TCPW_INFO_F_NO_STATE 1u

/* One record of a watch iterator's output (160 bytes, all fields naturally aligned). */
struct tcpw_watch_record {
	__u32 magic;      /* TCPW_WATCH_MAGIC */
	__u16 family;     /* AF_INET (2) or AF_INET6 (10) */
	__u8 state;       /* TCP state (1 = ESTABLISHED ...) */
	__u8 algo;        /* TCPW_ALGO_* */
	__u16 sport;      /* local port, host byte order */
	__u16 dport;      /* remote port, host byte order */
	__u32 netns;      /* inode number of the socket's network namespace */
	__u8 saddr[16];   /* local address: IPv4 in the first 4 bytes, or IPv6 */
	__u8 daddr[16];   /* remote address */
	__u32 cwnd;       /* live tp->snd_cwnd, segments */
	__u32 ssthresh;   /* live tp->snd_ssthresh, segments (0x7fffffff: infinite) */
	__u32 mss;        /* live tp->mss_cache, bytes */
	__u32 rtt_min_us; /* RTTmin, us */
	__u64 bwe_q8;     /* BWE as of the last ACK, bits/s Q8 */
	__u64 last_ack_us;
	__u64 now_us;     /* bpf_ktime_get_ns() / 1000 at the dump (same clock as tcp_mstamp) */
	__u64 acks;
	__u64 dupacks;
	__u64 bytes_acked; /* live tp->bytes_acked */
	__u32 losses;     /* from struct tcpw_sk_info */
	__u32 timeouts;
	__u64 loss_bwe_q8; /* the last loss, from struct tcpw_sk_info */
	__u32 loss_rtt_min_us;
	__u32 loss_mss;
	__u32 loss_ssthresh;
	__u32 loss_cwnd_before;
	__u32 loss_cwnd_after;
	__u32 loss_kind;
	__u32 loss_factor_quarters;
	__u32 flags;      /* TCPW_INFO_F_* */
};

/* Trace switch (array map `tcpw_trace_ctl`, one element, pinned, written by the consumer):
 * records are written only while `enabled` is set. */
struct tcpw_trace_ctl {
	__u32 enabled;
	__u32 pad;
};

/* Counters the programs update atomically (array map `tcpw_counters`, one element, pinned; kept
 * apart from tcpw_trace_ctl so that the consumer's writes never race with them). */
struct tcpw_counters {
	__u32 next_conn_id;  /* per-connection ids for the trace records (shared by every load) */
	__u32 pad;
	__u64 trace_dropped; /* records lost because the ring buffer was full */
};

/* tcpw_ack_event.event */
#define TCPW_EV_ACK 0
#define TCPW_EV_RECOVERY 1
#define TCPW_EV_TIMEOUT 2
#define TCPW_EV_TIMEOUT_HELD 3 /* an RTO inside the loss episode: tcp_enter_loss kept ssthresh */

/* tcpw_ack_event.flags */
#define TCPW_ACK_F_DUPACK 1
#define TCPW_ACK_F_RTT 2     /* rtt_us holds this ACK's RTT sample */
#define TCPW_ACK_F_RTT_MIN 4 /* rtt_min_us is valid */

/* One per-ACK trace record (112 bytes): the row of docs/ack-trace.md, as the kernel has it. */
struct tcpw_ack_event {
	__u32 magic;          /* TCPW_ACK_MAGIC */
	__u8 algo;            /* TCPW_ALGO_* */
	__u8 event;           /* TCPW_EV_* */
	__u8 ca_state;        /* icsk_ca_state: TCP_CA_Open 0 ... TCP_CA_Loss 4 */
	__u8 flags;           /* TCPW_ACK_F_* */
	__u64 time_us;        /* tp->tcp_mstamp */
	__u64 bwe_q8;         /* BWE after the event, bits/s Q8 */
	__u32 conn_id;        /* per connection, from a counter (unique while loaded) */
	__u32 netns;          /* the socket's network namespace inode */
	__u16 family;
	__u16 sport;          /* host byte order */
	__u16 dport;
	__u16 pad;
	__u32 ack;            /* snd_una - snd_una when the control started (wraps at 2^32) */
	__u32 acked_bytes;    /* newly acknowledged */
	__u32 credited_bytes; /* AckedCount's credit */
	__u32 sacked_out;     /* segments SACKed */
	__u32 in_flight;      /* segments in flight (tcp_packets_in_flight) */
	__u32 rtt_us;
	__u32 rtt_min_us;
	__u32 cwnd;           /* segments */
	__u32 ssthresh;       /* segments */
	__u32 mss;
	__u8 saddr[16];
	__u8 daddr[16];
};

/* The socket's local and remote addresses into two 16-byte fields of a record or trace event:
 * IPv6 whole, IPv4 in the first 4 bytes and the rest zero. */
static __always_inline void tcpw_read_addrs(struct sock *sk, __u16 family, __u8 *saddr, __u8 *daddr)
{
	__builtin_memset(saddr, 0, 16);
	__builtin_memset(daddr, 0, 16);
	if (family == TCPW_AF_INET6) {
		bpf_probe_read_kernel(saddr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
		bpf_probe_read_kernel(daddr, 16, &sk->__sk_common.skc_v6_daddr);
	} else {
		bpf_probe_read_kernel(saddr, 4, &sk->__sk_common.skc_rcv_saddr);
		bpf_probe_read_kernel(daddr, 4, &sk->__sk_common.skc_daddr);
	}
}

#endif /* TCPW_WATCH_BPF_H */
