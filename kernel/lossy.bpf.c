// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * lossy.bpf.c -- random packet loss for the test bed (no netem needed): a tc classifier
 * that drops each packet with probability drop_per_million / 10^6, independently
 * (Bernoulli). `westwood-linux bench --loss PCT` and the loss test attach it to the
 * ingress of the server's veth end, inside the namespaces they create, so only the
 * client -> server direction (data, not ACKs) is lossy.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "Dual MIT/GPL";

#define TC_ACT_OK 0
#define TC_ACT_SHOT 2

const volatile __u32 drop_per_million = 0;

__u64 seen = 0;
__u64 dropped = 0;

SEC("tc")
int lossy(struct __sk_buff *skb)
{
	__sync_fetch_and_add(&seen, 1);
	if (drop_per_million && bpf_get_prandom_u32() % 1000000u < drop_per_million) {
		__sync_fetch_and_add(&dropped, 1);
		return TC_ACT_SHOT;
	}
	return TC_ACT_OK;
}
