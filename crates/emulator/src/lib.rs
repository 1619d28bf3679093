//! westwood-emulator: the simulator's links (queues, transmitters, channel error models) in
//! wall-clock time between network namespaces, and a testbed that runs kernel TCP (iperf3)
//! through them beside the simulator. See docs/testbed.md.
//!
//! - [`core`]: the emulator proper — `westwood_simulator::network::Link`s, routes, delay lines,
//!   driven by timestamps (no clock, no I/O: unit-tested on synthetic time);
//! - [`realtime`]: the emulator thread — AF_PACKET ports ([`afpacket`]), CLOCK_MONOTONIC,
//!   epoll + timerfd;
//! - [`netns`]: namespaces, veth pairs, sysctls, stale-namespace removal;
//! - [`kernel_cc`]: the tcpw* programs a run registers, and what a killed run left registered;
//! - [`process`]: namespace owners (pid and start time) and whether they run; children that
//!   die with us;
//! - [`plan`]: scenario → testbed (what maps, what is approximated, what is refused);
//! - [`testbed`]: iperf3 flows, TCP_INFO sampling ([`diag`]), tcpw's BWE, results;
//! - [`selftest`]: the emulator measured by itself;
//! - [`output`]: the files `westwood run --out` writes;
//! - [`segments`]: which flow and segment a frame is, numbered as the simulator numbers them
//!   (for `drop-list` errors);
//! - [`capture`]: packet captures at the endpoints (`--pcap`), through `westwood_pcap`;
//! - [`path`]: an emulated path for a command that measures real ones (`westwood measure`).

pub mod afpacket;
pub mod capture;
pub mod diag;
pub mod engine;
pub mod error;
pub mod kernel_cc;
pub mod netns;
pub mod output;
pub mod path;
pub mod plan;
pub mod process;
pub mod realtime;
pub mod segments;
pub mod selftest;
pub mod sys;
pub mod testbed;
