//! `bench`: iperf3 over a veth pair (clean, or with `--loss PCT` random loss from
//! kernel/lossy.bpf.c) between two fresh network namespaces, first with
//! the kernel's reno, then with tcpw, `duration` seconds each (alternating `repeat` times),
//! printing both throughputs and the ratio. tcpw is loaded for the run if it is not
//! registered, and unloaded again after; namespaces and iperf3 processes are removed at the
//! end, also on an error or Ctrl-C.

use crate::loader::{self, Algo, LoadOptions};
use crate::netns::{self, Iperf3Client, NetnsPair};
use crate::{prereq, sig, Error, Result};

#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub duration_s: u32,
    pub repeat: u32,
    pub json: bool,
    /// Reference first, then the candidate.
    pub baseline: String,
    pub candidate: String,
    pub port: u16,
    /// Random loss on the client -> server direction, percent (0: a clean path).
    pub loss_percent: f64,
    /// Pin the iperf3 client and server to different CPUs (no reordering on the veth).
    pub pin: bool,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            duration_s: 10,
            repeat: 1,
            json: false,
            baseline: "reno".into(),
            candidate: crate::pins::Algo::all()[0].name().into(),
            port: 5201,
            loss_percent: 0.0,
            pin: true,
        }
    }
}

/// Unloads what the bench loaded, on drop.
struct LoadedHere(Vec<Algo>);

impl Drop for LoadedHere {
    fn drop(&mut self) {
        if !self.0.is_empty() {
            if let Err(e) = loader::unload(&self.0) {
                eprintln!("warning: unloading after the bench: {e}");
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct BenchResult {
    pub baseline_bps: Vec<f64>,
    pub candidate_bps: Vec<f64>,
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

impl BenchResult {
    pub fn ratio(&self) -> f64 {
        let b = mean(&self.baseline_bps);
        if b > 0.0 {
            mean(&self.candidate_bps) / b
        } else {
            0.0
        }
    }
}

pub fn run(opts: &BenchOptions) -> Result<BenchResult> {
    if opts.duration_s == 0 || opts.repeat == 0 {
        return Err(Error::Usage("--duration and --repeat must be positive".into()));
    }
    let status = prereq::require_privileged(true)?;
    if !status.caps.sys_admin {
        return Err(Error::Prereq(
            "bench creates network namespaces: it needs CAP_SYS_ADMIN (run as root)".into(),
        ));
    }
    netns::tool("iperf3", "iperf3")?;
    netns::tool("ip", "iproute2")?;

    let mut loaded = LoadedHere(Vec::new());
    for cc in [&opts.baseline, &opts.candidate] {
        if !prereq::is_registered(cc) {
            match Algo::parse_set(cc) {
                Some(algos) if algos.len() == 1 => {
                    loader::load(&LoadOptions { algos: algos.clone(), ..Default::default() })?;
                    loaded.0.extend(algos);
                }
                _ => {
                    return Err(Error::Usage(format!(
                        "congestion control {cc:?} is not available (see {})",
                        prereq::AVAILABLE_CC
                    )))
                }
            }
        }
    }

    let pair = NetnsPair::create("bench")?;
    if opts.loss_percent > 0.0 {
        pair.add_loss(opts.loss_percent)?;
    }
    let _server = netns::start_iperf3_server(&pair, opts.port)?;
    let affinity = if opts.pin { netns::split_affinity() } else { None };
    if let (Some((c, s)), false) = (affinity, opts.json) {
        eprintln!("iperf3 client on CPU {c}, server on CPU {s} (--no-pin to let them float)");
    }
    let mut result = BenchResult { baseline_bps: Vec::new(), candidate_bps: Vec::new() };
    for round in 0..opts.repeat {
        for (cc, into) in [(&opts.baseline, 0), (&opts.candidate, 1)] {
            if sig::interrupted() {
                return Err(Error::Interrupted);
            }
            if !opts.json {
                eprintln!(
                    "round {}/{}: iperf3 -C {cc} for {} s ...",
                    round + 1,
                    opts.repeat,
                    opts.duration_s
                );
            }
            let r = Iperf3Client::start_pinned(&pair, opts.port, cc, opts.duration_s, affinity)?.finish()?;
            if r.congestion != *cc {
                return Err(Error::Failed(format!("iperf3 used {:?}, not {cc:?}", r.congestion)));
            }
            if opts.json {
                println!(
                    "{}",
                    serde_json::json!({"round": round + 1, "cc": cc, "bps": r.received_bps,
                        "bytes_sent": r.sent_bytes, "bytes_received": r.received_bytes, "retransmits": r.retransmits})
                );
            } else {
                println!(
                    "{cc:<10} {:>9.3} Gb/s  ({} bytes, {} retransmits)",
                    r.received_bps / 1e9,
                    r.received_bytes,
                    r.retransmits
                );
            }
            if into == 0 {
                result.baseline_bps.push(r.received_bps);
            } else {
                result.candidate_bps.push(r.received_bps);
            }
        }
    }
    let (b, c) = (mean(&result.baseline_bps), mean(&result.candidate_bps));
    if opts.json {
        println!(
            "{}",
            serde_json::json!({"summary": true, "baseline": opts.baseline, "candidate": opts.candidate,
                "baseline_bps": b, "candidate_bps": c, "ratio": result.ratio(), "duration_s": opts.duration_s,
                "repeat": opts.repeat, "loss_percent": opts.loss_percent})
        );
    } else {
        println!(
            "\n{}: {:.3} Gb/s   {}: {:.3} Gb/s   ratio {}/{} = {:.3}",
            opts.baseline,
            b / 1e9,
            opts.candidate,
            c / 1e9,
            opts.candidate,
            opts.baseline,
            result.ratio()
        );
    }
    Ok(result)
}
