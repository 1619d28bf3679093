/* SPDX-License-Identifier: MIT */
/*
 * tcpw_watch.bpf.h -- what kernel/tcpw.bpf.c publishes for `westwood-linux watch`.
 *
 * The kernel cannot show a BPF congestion control's private state through `ss -i`, so
 * the program keeps a small per-socket record in socket-local storage
 * (BPF_MAP_TYPE_SK_STORAGE, `tcpw_sk_stor`), refreshed on every ACK and at every loss.
 * A BPF iterator over that map (SEC("iter/bpf_sk_storage_map"), pinned by `load` at
 * /sys/fs/bpf/westwood/watch) writes one binary `struct tcpw_watch_record` per socket
 * into the file; `watch` reads the pinned file. crates/linux/src/watch.rs mirrors the
 * record layout (repr(C)); change both together and bump TCPW_WATCH_MAGIC.
 *
 * Needs the kernel types (vmlinux.h) included first.
 */
#ifndef TCPW_WATCH_BPF_H
#define TCPW_WATCH_BPF_H

/* "TW" + layout version 3. */
#define TCPW_WATCH_MAGIC 0x54570003u

#define TCPW_ALGO_TCPW 1u
#define TCPW_ALGO_PLUS 2u

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
	 * loss_ssthresh = max(2, BWE * RTTmin / (8 * mss)) from these inputs. */
	__u64 loss_bwe_q8;      /* BWE used (after the virtual samples due), bits/s Q8 */
	__u32 loss_rtt_min_us;  /* RTTmin used */
	__u32 loss_mss;         /* mss used */
	__u32 loss_ssthresh;    /* the threshold, segments */
	__u32 loss_cwnd_before; /* snd_cwnd when the loss was detected */
	__u32 loss_cwnd_after;  /* snd_cwnd the rule left (TCPW: min(before, ssthresh); RTO: kernel's 1) */
	__u32 loss_kind;        /* 0: fast recovery / CWR (.ssthresh), 1: RTO (CA_EVENT_LOSS) */
};

/* One record of the iterator's output (152 bytes, all fields naturally aligned). */
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
};

#endif /* TCPW_WATCH_BPF_H */
