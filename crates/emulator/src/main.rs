//! westwood-emu: the link emulator, its selftest, and the testbed (real kernel TCP through the
//! emulator, beside the simulator).

use std::path::PathBuf;

use clap::{Args as ClapArgs, CommandFactory, FromArgMatches, Parser, Subcommand};
use westwood_emulator::engine::{links_from_toml, Emulator, Route};
use westwood_emulator::error::{scenario_error, Error, Result};
use westwood_emulator::{netns, realtime, selftest, sys, testbed};
use westwood_simulator::model::Nanos;

const EXIT_STATUS: &str = "\
exit status: 0 ok, 1 failed, 2 usage error, unmappable scenario or missing prerequisite,
130 interrupted";

/// The link emulator, its selftest, and the testbed: real kernel TCP through the emulator,
/// beside the simulator.
#[derive(Parser)]
#[command(name = "westwood-emu", version, after_help = EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario's TCP flows as kernel TCP (iperf3) through the link emulator, the
    /// simulator's result beside it
    ///
    /// Run the scenario's TCP flows as kernel TCP (iperf3) through the link emulator, in network
    /// namespaces, one run per CC (default: each flow's own cc), and print the simulator's result
    /// for the same scenario beside it. --out writes summary.json, flows.csv, links.csv,
    /// flow_series.csv, link_series.csv (as `westwood run --out`; one directory per CC when there
    /// are several, the simulator's in simulator/ under each) and comparison.json; --ack-trace
    /// adds acks.csv, the kernel's per-ACK trace of every flow (docs/ack-trace.md), and the
    /// simulator's in simulator/acks.csv; --pcap captures each flow at its sender and receiver
    /// namespaces (pcap/FLOW.sender.pcapng, pcap/FLOW.receiver.pcapng) and has the simulator write
    /// the same files for its run in simulator/pcap/ (`westwood analyze` reads both). A cc this
    /// kernel cannot run: exit 2 with the reason.
    Testbed(TestbedArgs),
    /// Measure the emulator: achieved rate, delay error, emulator-caused drops, loss-rate
    /// accuracy (about 75 s; --quick: about 40 s)
    Selftest(SelftestArgs),
    /// Emulate a link between two existing interfaces of this namespace, until Ctrl-C or
    /// --duration
    ///
    /// Emulate a link between two existing interfaces of this namespace (frames from one go out
    /// of the other). BODY is a scenario [links.NAME] body, e.g. 'rate = "10Mbps"\ndelay =
    /// "20ms"\nqueue = 100\nerrors = { model = "bernoulli", rate = "1%" }' (--reverse: the other
    /// direction, default the same); --lines spreads packets round robin over delay lines with
    /// these extra delays (reordering).
    Run(RunArgs),
    /// An emulated path for tools that measure real ones: COMMAND runs in a client namespace,
    /// iperf3 servers in a server namespace, the emulator between them
    ///
    /// A client and a server namespace joined through the emulator (BODY as for run; default
    /// 10 Mb/s, 20 ms, 100 packets; or --scenario: the route of the scenario's first TCP flow
    /// (--flow NAME: that one), link by link, its sender's and receiver's TCP settings as the
    /// testbed maps them, --load with the scenario's estimator parameters; its other TCP flows
    /// run as kernel TCP from their start until COMMAND ends: cross traffic through the same
    /// links), N iperf3 servers (ports 5201...) in the server namespace, COMMAND run in the client
    /// namespace with $WESTWOOD_PATH_SERVER, $WESTWOOD_PATH_PORTS set (e.g. -- sh -c 'westwood
    /// measure "$WESTWOOD_PATH_SERVER" ...'); --load registers eBPF controls for it. Then prints
    /// the emulator's counters per direction (--report FILE: as JSON); exits with COMMAND's status.
    Path(PathArgs),
    /// Make kernel congestion controls available while another program uses them; print
    /// `ready`, hold them until standard input closes or a signal comes
    ///
    /// Make kernel congestion controls available while another program uses them (what `westwood
    /// measure` runs): the tcpw* registered with the given estimator parameters (defaults: the
    /// papers'), the kernel's own through `modprobe tcp_NAME`. Prints `ready` once they are, then
    /// holds them until its standard input closes or it gets SIGTERM or Ctrl-C, and unregisters
    /// the tcpw* it registered (a kill -9 leaves a record the next run, or `cleanup`, acts on).
    /// While it holds them, the westwood-linux kernel tests (which unload everything) wait.
    Hold(HoldArgs),
    /// Remove namespaces and congestion controls left by killed runs (also done at the start of
    /// every run)
    Cleanup,
}

/// The emulator thread's scheduling.
#[derive(ClapArgs)]
struct FifoArgs {
    /// Run the emulator thread SCHED_FIFO at this priority (default 10)
    #[arg(long, value_name = "PRIO", value_parser = clap::value_parser!(i32).range(1..=99), conflicts_with = "no_fifo")]
    fifo: Option<i32>,
    /// Run the emulator thread with the ordinary scheduler
    #[arg(long)]
    no_fifo: bool,
}

impl FifoArgs {
    fn priority(&self) -> Option<i32> {
        if self.no_fifo {
            None
        } else {
            Some(self.fifo.unwrap_or(realtime::DEFAULT_FIFO_PRIORITY))
        }
    }
}

#[derive(ClapArgs)]
struct HoldArgs {
    /// Kernel congestion control names (tcpw, tcpw_abse, reno, cubic, ...), a comma list
    #[arg(value_name = "CC[,CC...]", required = true)]
    ccs: Vec<String>,
    #[command(flatten)]
    estimator: westwood_linux::cli::EstimatorArgs,
}

#[derive(ClapArgs)]
struct TestbedArgs {
    /// A scenario file, or a name in scenarios/
    scenario: String,
    /// Kernel congestion controls, one run each (a comma list; repeatable)
    #[arg(long, value_name = "CC[,CC...]")]
    cc: Vec<String>,
    /// Change a scenario parameter (repeatable)
    #[arg(long, value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Run time (30, 30s, 500ms)
    #[arg(long, value_name = "S")]
    duration: Option<String>,
    /// The scenario's seed
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Time between two samples of the series
    #[arg(long, value_name = "S")]
    interval: Option<String>,
    /// Write the run directory here
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No simulator run beside the testbed's
    #[arg(long)]
    no_sim: bool,
    /// The summary as JSON
    #[arg(long)]
    json: bool,
    /// Also the per-ACK traces (needs --out)
    #[arg(long)]
    ack_trace: bool,
    /// Capture each flow at both ends (needs --out)
    #[arg(long)]
    pcap: bool,
    /// Bytes kept per captured frame, 64 to 262144 (default 128)
    #[arg(long, value_name = "N")]
    pcap_snaplen: Option<u32>,
    /// Only show how the scenario maps onto the testbed (no root needed; exit 2 if it cannot)
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    fifo: FifoArgs,
}

#[derive(ClapArgs)]
struct SelftestArgs {
    /// Shorter cases (about 40 s)
    #[arg(long)]
    quick: bool,
    /// The report as JSON
    #[arg(long)]
    json: bool,
    /// Only the cases whose name contains TEXT
    #[arg(long, value_name = "TEXT")]
    only: Option<String>,
    #[command(flatten)]
    fifo: FifoArgs,
}

#[derive(ClapArgs)]
struct RunArgs {
    /// An interface; give two
    #[arg(long, value_name = "IF", required = true)]
    dev: Vec<String>,
    /// The link, as a scenario [links.NAME] body (default 100 Mb/s, 0 ms, 1000 packets)
    #[arg(long, value_name = "BODY")]
    link: Option<String>,
    /// The other direction's link (default: the same)
    #[arg(long, value_name = "BODY")]
    reverse: Option<String>,
    /// Extra delays of the delay lines packets are spread over round robin (D,D,...)
    #[arg(long, value_name = "D,D,...")]
    lines: Option<String>,
    /// Stop after S seconds
    #[arg(long, value_name = "S")]
    duration: Option<String>,
    /// The links' random streams
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    #[command(flatten)]
    fifo: FifoArgs,
}

#[derive(ClapArgs)]
struct PathArgs {
    /// The path's link, as a scenario [links.NAME] body
    #[arg(long, value_name = "BODY", conflicts_with = "scenario")]
    link: Option<String>,
    /// The other direction's link (default: the same)
    #[arg(long, value_name = "BODY", conflicts_with = "scenario")]
    reverse: Option<String>,
    /// The path of a scenario's TCP flow, its other flows as cross traffic
    #[arg(long, value_name = "FILE")]
    scenario: Option<String>,
    /// Change a --scenario parameter (repeatable)
    #[arg(long, value_name = "KEY=VALUE", requires = "scenario")]
    set: Vec<String>,
    /// The scenario's flow whose route the path is (default: its first TCP flow)
    #[arg(long, value_name = "NAME", requires = "scenario")]
    flow: Option<String>,
    /// iperf3 servers in the server namespace, 1 to 100
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=100))]
    servers: u16,
    /// Register these eBPF congestion controls for COMMAND (comma list; repeatable)
    #[arg(long, value_name = "CC[,CC...]")]
    load: Vec<String>,
    /// Write the emulator's counters here, as JSON
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// The links' random streams
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// The namespaces' MTU, 576 to 9000
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(576..=9000))]
    mtu: Option<u32>,
    #[command(flatten)]
    fifo: FifoArgs,
    /// The command to run in the client namespace, after --
    #[arg(last = true, value_name = "COMMAND", required = true)]
    command: Vec<String>,
}

/// A usage error found after parsing: the command's usage line with it.
fn usage_err(command: &str, msg: impl Into<String>) -> Error {
    Error::Usage(westwood_linux::cli::usage_error(Cli::command(), command, msg))
}

/// `--set KEY=VALUE` pairs.
fn overrides(command: &str, sets: &[String]) -> Result<Vec<(String, String)>> {
    sets.iter()
        .map(|set| {
            set.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| usage_err(command, format!("--set {set:?}: expected KEY=VALUE")))
        })
        .collect()
}

/// "30", "30s", "500ms" -> ns.
fn duration(command: &str, text: &str, what: &str) -> Result<Nanos> {
    let t = text.trim();
    let parsed = match t.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => Ok((s * 1e9).round() as Nanos),
        Ok(_) => Err("must be positive".to_string()),
        Err(_) => westwood_simulator::fields::units::parse_duration(t),
    };
    match parsed {
        Ok(ns) if ns > 0 => Ok(ns),
        Ok(_) => Err(usage_err(command, format!("{what} {text:?}: must be positive"))),
        Err(e) => Err(usage_err(command, format!("{what} {text:?}: {e}"))),
    }
}

fn cmd_testbed(args: TestbedArgs) -> Result<i32> {
    let mut opts = testbed::Options::default();
    for cc in &args.cc {
        for c in cc.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            if !westwood_emulator::plan::kernel_ccs().contains(&c) {
                return Err(usage_err(
                    "testbed",
                    format!("--cc {c}: choose among {}", westwood_emulator::plan::kernel_ccs().join(", ")),
                ));
            }
            if !opts.ccs.iter().any(|x| x == c) {
                opts.ccs.push(c.to_string());
            }
        }
    }
    opts.overrides = overrides("testbed", &args.set)?;
    if let Some(d) = &args.duration {
        opts.duration = Some(duration("testbed", d, "--duration")?);
    }
    opts.seed = args.seed;
    if let Some(i) = &args.interval {
        opts.sample_interval = duration("testbed", i, "--interval")?;
    }
    opts.out = args.out;
    opts.simulate = !args.no_sim;
    opts.fifo = args.fifo.priority();
    opts.json = args.json;
    opts.ack_trace = args.ack_trace;
    if opts.ack_trace && opts.out.is_none() {
        return Err(usage_err(
            "testbed",
            "--ack-trace writes acks.csv into the run directory: it needs --out DIR",
        ));
    }
    if args.pcap || args.pcap_snaplen.is_some() {
        if opts.out.is_none() {
            return Err(usage_err(
                "testbed",
                "--pcap writes pcap/FLOW.sender.pcapng ... into the run directory: it needs --out DIR",
            ));
        }
        opts.pcap = Some(match args.pcap_snaplen {
            None => westwood_simulator::pcap::DEFAULT_SNAPLEN,
            Some(n) if (64..=262_144).contains(&n) => n,
            Some(n) => {
                return Err(usage_err(
                    "testbed",
                    format!("--pcap-snaplen {n}: bytes kept per packet, 64 to 262144"),
                ))
            }
        });
    }
    opts.scenario = resolve_scenario(&args.scenario)?;
    if args.dry_run {
        return testbed::dry_run(&opts);
    }
    testbed::prerequisites()?;
    testbed::main(&opts)
}

/// A path, or a bare name of a committed scenario ("wireless" -> scenarios/wireless.toml).
fn resolve_scenario(name: &str) -> Result<PathBuf> {
    let p = PathBuf::from(name);
    if p.is_file() {
        return Ok(p);
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    for candidate in [repo.join(name), repo.join(format!("{name}.toml"))] {
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(Error::Usage(format!("scenario {name:?} not found (a file, or a name in scenarios/)")))
}

fn cmd_selftest(args: SelftestArgs) -> Result<i32> {
    let scale = if args.quick { 0.5 } else { 1.0 };
    selftest::main(scale, args.json, args.fifo.priority(), args.only.as_deref())
}

fn cmd_run(args: RunArgs) -> Result<i32> {
    let devs = args.dev;
    if devs.len() != 2 {
        return Err(usage_err("run", "give two interfaces, --dev A --dev B"));
    }
    let link = args.link.unwrap_or_else(|| "rate = \"100Mbps\"\ndelay = \"0ms\"\nqueue = 1000".into());
    let reverse = args.reverse;
    let lines: Vec<Nanos> = match &args.lines {
        None => Vec::new(),
        Some(l) => l
            .split(',')
            .map(|d| {
                let d = d.trim();
                if d.parse::<f64>() == Ok(0.0) {
                    Ok(0)
                } else {
                    westwood_simulator::fields::units::parse_duration(d)
                        .map_err(|e| usage_err("run", format!("--lines {d:?}: {e}")))
                }
            })
            .collect::<Result<_>>()?,
    };
    let until = args.duration.as_deref().map(|d| duration("run", d, "--duration")).transpose()?;
    let seed = args.seed;
    let fifo = args.fifo.priority();
    if !sys::is_root() {
        return Err(Error::Prereq("run needs root (AF_PACKET sockets)".into()));
    }
    let link = link.replace("\\n", "\n");
    let specs: Vec<(String, String)> = match reverse {
        None => vec![("l".into(), link)],
        Some(r) => vec![
            ("l".into(), format!("{link}\nduplex = false")),
            ("r".into(), format!("{}\nduplex = false", r.replace("\\n", "\n"))),
        ],
    };
    let borrowed: Vec<(&str, &str)> = specs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let (links, names) = links_from_toml(seed.unwrap_or(1), &borrowed).map_err(scenario_error)?;
    if links.len() != 2 {
        return Err(usage_err("run", "the link must be duplex, or give --reverse"));
    }
    let mut emu =
        Emulator::new(links, vec![Route { links: vec![0], port: 1 }, Route { links: vec![1], port: 0 }]);
    if !lines.is_empty() {
        emu.set_lines(0, lines.clone());
        emu.set_lines(1, lines);
    }
    let mut config = realtime::Config { ports: devs.clone(), fifo_priority: fifo, ..Default::default() };
    config.routes.insert((0, 1), 0);
    config.routes.insert((1, 0), 1);
    config.fallback.insert(0, 1);
    config.fallback.insert(1, 0);
    westwood_linux::sig::install();
    let running =
        realtime::spawn(None, emu, config).map_err(|e| Error::failed("starting the emulator", e))?;
    eprintln!("emulating {} <-> {} ({}) until Ctrl-C", devs[0], devs[1], names.join(", "));
    let start = sys::monotonic_ns();
    while !westwood_linux::sig::interrupted() && until.is_none_or(|u| sys::monotonic_ns() - start < u) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let report = running.stop().map_err(|e| Error::failed("the emulator", e))?;
    for (name, l) in names.iter().zip(&report.links) {
        let s = l.stats;
        println!(
            "{name}: {} packets, {} bytes; drops overflow {} red {} error {} outage {}",
            s.packets_sent, s.bytes_sent, s.drops_overflow, s.drops_red, s.drops_error, s.drops_outage
        );
    }
    println!(
        "emulator: lateness p50 {:.3} ms p99 {:.3} ms max {:.3} ms; {:?}; {:?}; CPU {:.1} %",
        report.lateness.quantile_ns(0.5) as f64 / 1e6,
        report.lateness.quantile_ns(0.99) as f64 / 1e6,
        report.lateness.max_ns() as f64 / 1e6,
        report.stalls,
        report.counters,
        100.0 * report.cpu_seconds / report.wall_seconds.max(1e-9)
    );
    Ok(0)
}

fn cmd_path(args: PathArgs) -> Result<i32> {
    use westwood_emulator::path::PathSpec;
    let spec = match &args.scenario {
        Some(file) => {
            PathSpec::Scenario { file: resolve_scenario(file)?, overrides: overrides("path", &args.set)? }
        }
        None => PathSpec::Link {
            link: args.link.unwrap_or_else(|| "rate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = 100".into()),
            reverse: args.reverse,
        },
    };
    let mut load = Vec::new();
    for l in &args.load {
        for c in l.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            if westwood_linux::Algo::from_name(c).is_none() {
                let known: Vec<&str> = westwood_linux::Algo::all().iter().map(|a| a.name()).collect();
                return Err(usage_err("path", format!("--load {c}: one of {}", known.join(", "))));
            }
            load.push(c.to_string());
        }
    }
    let opts = westwood_emulator::path::Options {
        spec,
        seed: args.seed,
        servers: args.servers,
        load,
        report: args.report,
        fifo: args.fifo.priority(),
        mtu: args.mtu,
        flow: args.flow,
        command: args.command,
    };
    westwood_emulator::path::main(&opts)
}

fn cmd_hold(args: HoldArgs) -> Result<i32> {
    // No flag: registered programs as they are (an emulated path's `--load` set theirs).
    let params = args.estimator.params().map_err(|m| usage_err("hold", m))?;
    let params = (!params.is_default()).then_some(params);
    let names: Vec<&str> =
        args.ccs.iter().flat_map(|c| c.split(',')).map(str::trim).filter(|c| !c.is_empty()).collect();
    if names.is_empty() {
        return Err(usage_err("hold", "no congestion control named"));
    }
    westwood_linux::sig::install();
    let held = westwood_emulator::kernel_cc::KernelCcs::ensure(&names, params)?;
    println!("ready");
    std::io::Write::flush(&mut std::io::stdout())
        .map_err(|e| Error::failed("writing to standard output", e))?;
    // Standard input is read on a thread of its own, so that a signal is seen within 50 ms.
    let (closed_tx, closed) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        let _ = closed_tx.send(());
    });
    while !westwood_linux::sig::interrupted() {
        if closed.recv_timeout(std::time::Duration::from_millis(50)).is_ok() {
            break;
        }
    }
    drop(held);
    Ok(0)
}

fn cmd_cleanup() -> Result<i32> {
    netns::require_root("cleanup")?;
    let removals = netns::remove_stale();
    match netns::describe_removals(&removals) {
        Some(text) => println!("{text}"),
        None => println!("removed 0 stale namespace(s)"),
    }
    let reclaimed = westwood_emulator::kernel_cc::reclaim();
    match westwood_emulator::kernel_cc::describe(&reclaimed) {
        Some(text) => println!("{text}"),
        None => println!("unregistered 0 congestion controls of runs gone"),
    }
    // Exit 1 if one is still there: the next run would meet it again.
    let failed = removals.iter().any(|r| r.error.is_some()) || reclaimed.iter().any(|r| r.error.is_some());
    Ok(if failed { 1 } else { 0 })
}

fn real_main() -> Result<i32> {
    let Some(matches) =
        westwood_linux::cli::matches(Cli::command(), std::env::args_os()).map_err(Error::Usage)?
    else {
        return Ok(0);
    };
    let cli = Cli::from_arg_matches(&matches).map_err(|e| Error::Usage(e.to_string()))?;
    match cli.command {
        Command::Testbed(args) => cmd_testbed(args),
        Command::Selftest(args) => cmd_selftest(args),
        Command::Run(args) => cmd_run(args),
        Command::Path(args) => cmd_path(args),
        Command::Hold(args) => cmd_hold(args),
        Command::Cleanup => cmd_cleanup(),
    }
}

fn main() {
    let code = westwood_linux::sig::main_with_quiet_broken_pipe(|| match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!(
                "westwood-emu: {}",
                if matches!(e, Error::Interrupted) {
                    "interrupted".to_string()
                } else {
                    format!("error: {e}")
                }
            );
            e.exit_code()
        }
    });
    std::process::exit(code);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> std::result::Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("westwood-emu").chain(args.iter().copied()))
    }

    #[test]
    fn path_takes_its_command_after_the_double_dash_options_and_all() {
        let cli =
            parse(&["path", "--scenario", "wireless", "--set", "loss=1%", "--", "sh", "-c", "x --help"])
                .unwrap();
        let Command::Path(args) = cli.command else { panic!("not path") };
        assert_eq!(args.command, ["sh", "-c", "x --help"]);
        assert_eq!((args.set.as_slice(), args.servers, args.seed), (&["loss=1%".to_string()][..], 1, 1));
        // --set changes a scenario, --link and --scenario exclude each other, a command is needed.
        assert!(parse(&["path", "--set", "a=b", "--", "true"]).is_err());
        assert!(parse(&["path", "--scenario", "s", "--link", "x", "--", "true"]).is_err());
        assert!(parse(&["path", "--scenario", "s"]).is_err());
        assert!(parse(&["path", "--servers", "101", "--", "true"]).is_err());
    }

    #[test]
    fn hold_takes_names_and_the_loaders_parameter_flags() {
        let Command::Hold(args) = parse(&["hold", "tcpw,reno", "--tau-ms", "250"]).unwrap().command else {
            panic!("not hold")
        };
        assert_eq!(args.ccs, ["tcpw,reno"]);
        assert_eq!(args.estimator.params().unwrap().tau_us, Some(250_000));
        assert!(parse(&["hold"]).is_err());
        let Command::Hold(args) = parse(&["hold", "x", "--tau-ms", "0"]).unwrap().command else { panic!() };
        assert!(args.estimator.params().unwrap_err().contains("--tau-ms must be in"));
    }

    #[test]
    fn each_command_has_its_own_help_and_fifo_is_one_choice() {
        let help = parse(&["testbed", "--help"]).err().unwrap();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        assert!(help.to_string().contains("--dry-run") && !help.to_string().contains("--servers"));
        let Command::Testbed(args) = parse(&["testbed", "wireless", "--no-fifo"]).unwrap().command else {
            panic!("not testbed")
        };
        assert_eq!(args.fifo.priority(), None);
        let Command::Selftest(args) = parse(&["selftest"]).unwrap().command else { panic!("not selftest") };
        assert_eq!(args.fifo.priority(), Some(realtime::DEFAULT_FIFO_PRIORITY));
        assert!(parse(&["selftest", "--fifo", "5", "--no-fifo"]).is_err());
    }
}
