//! The per-ACK trace of the kernel's own congestion controls (reno, cubic, ...), which cannot
//! write one from inside as the tcpw* controls do: kernel/tcp_ack_probe.bpf.c reads the socket
//! from the `tcp:tcp_probe` and `tcp:tcp_cong_state_set` tracepoints (tp_btf programs: kernels
//! that refuse fentry/fexit and kprobes accept them) and writes the same `struct
//! tcpw_ack_event` into a ring buffer, so [`crate::acks::parse_event`] and
//! [`crate::acks::Converter`] turn both into rows of docs/ack-trace.md. The program's comment
//! says when each row is taken.
//!
//! [`ProbeSession`] loads and attaches the programs for sockets bound to one local port and
//! owns them: nothing is pinned, so the links go with the session, or with the process if it is
//! killed. Rows carry no bandwidth estimate, no AckedCount credit and no per-ACK RTT sample
//! (the kernel does not keep one past `tcp_ack_update_rtt`); their `cc` is left for the caller
//! to name ([`ProbeSession::finish`] callers know which control each flow ran).

use std::mem::MaybeUninit;
use std::time::Duration;

use libbpf_rs::skel::{OpenSkel, SkelBuilder};
use libbpf_rs::{Link, MapHandle};

use crate::acks::{records_dropped, EventRing, KernelAck};
use crate::probe_skel::TcpAckProbeSkelBuilder;
use crate::{Error, Result};

/// The loaded and attached probe, and the consumer of its ring buffer.
pub struct ProbeSession {
    ring: EventRing,
    /// The ring buffer's map, held for as long as the ring reads it.
    _acks: MapHandle,
    counters: MapHandle,
    links: Vec<Link>,
}

impl ProbeSession {
    /// Load kernel/tcp_ack_probe.bpf.c for the sockets whose local port is `local_port` and
    /// attach it to the two tracepoints. Needs root (CAP_BPF, CAP_PERFMON) and a kernel with BTF
    /// and the `tcp_cong_state_set` tracepoint (Linux 6.3); the error says which step failed.
    pub fn start(local_port: u16) -> Result<ProbeSession> {
        let mut object = MaybeUninit::uninit();
        let mut open = TcpAckProbeSkelBuilder::default()
            .open(&mut object)
            .map_err(|e| Error::failed("opening tcp_ack_probe.bpf.o", e))?;
        if let Some(rodata) = open.maps.rodata_data.as_deref_mut() {
            rodata.local_port = local_port;
        }
        let skel = open.load().map_err(|e| {
            Error::Prereq(format!(
                "the kernel refused the per-ACK probe (tp_btf programs on tcp:tcp_probe and \
                 tcp:tcp_cong_state_set): {e}"
            ))
        })?;
        let mut links = Vec::new();
        for (name, prog) in
            [("tcp:tcp_probe", &skel.progs.probe_ack), ("tcp:tcp_cong_state_set", &skel.progs.probe_state)]
        {
            links.push(
                prog.attach()
                    .map_err(|e| Error::Prereq(format!("attaching the per-ACK probe to {name}: {e}")))?,
            );
        }
        // Own handles (duplicated fds): the skeleton can go, the maps and links stay.
        let acks = MapHandle::try_from(&skel.maps.probe_acks)
            .map_err(|e| Error::failed("opening the probe's ring buffer", e))?;
        let counters = MapHandle::try_from(&skel.maps.probe_counters)
            .map_err(|e| Error::failed("opening the probe's counters", e))?;
        let ring = EventRing::new(&acks, "the per-ACK probe")?;
        Ok(ProbeSession { ring, _acks: acks, counters, links })
    }

    /// Records the kernel could not write (the ring buffer was full).
    pub fn dropped(&self) -> Result<u64> {
        records_dropped(&self.counters)
    }

    /// Wait up to `timeout` for records; returns those that arrived (possibly none).
    pub fn poll(&mut self, timeout: Duration) -> Result<Vec<KernelAck>> {
        self.ring.poll(timeout)
    }

    /// Detach and take what is still in the ring buffer.
    pub fn finish(mut self) -> Result<Vec<KernelAck>> {
        self.links.clear();
        self.ring.consume()
    }
}
