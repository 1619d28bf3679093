//! westwood-linux: load the TCP Westwood family into the running kernel as BPF congestion controls.

use std::time::{Duration, Instant};

use clap::{Args as ClapArgs, CommandFactory, FromArgMatches, Parser, Subcommand};
use westwood_linux::acks::{Converter, KernelAck, TraceSession};
use westwood_linux::bench::{self, BenchOptions};
use westwood_linux::cli::EstimatorArgs;
use westwood_linux::loader::{self, Algo, LoadOptions, Observation};
use westwood_linux::prereq::Status;
use westwood_linux::watch::{self, WatchOptions};
use westwood_linux::{sig, Error, Result};
use westwood_trace::{AckTraceWriter, AtomicFile};

const EXIT_STATUS: &str = "\
exit status: 0 ok, 1 failed (also: trace records lost), 2 usage error or missing prerequisite
(the kernel refuses what is asked), 130 interrupted";

/// The TCP Westwood family as Linux BPF struct_ops congestion controls.
#[derive(Parser)]
#[command(name = "westwood-linux", version, after_help = EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Kernel, privileges, what is registered, and what this kernel accepts (probed by loading
    /// the programs): register / observe / trace
    Status,
    /// Register congestion controls; they stay registered after exit
    Load(LoadArgs),
    /// Unregister congestion controls (harmless if nothing is loaded)
    Unload {
        /// A name, a comma list, or all (the default)
        #[arg(value_name = "ALGOS")]
        algos: Option<String>,
    },
    /// Per connection: 4-tuple, algorithm, BWE, RTTmin, cwnd, ssthresh; or, with --acks, the
    /// per-ACK trace
    Watch(WatchArgs),
    /// iperf3 over veth in fresh namespaces: reno, then tcpw (or --cc NAME)
    Bench(BenchArgs),
}

#[derive(ClapArgs)]
struct LoadArgs {
    /// A name, a comma list, or all (the default)
    #[arg(value_name = "ALGOS")]
    algos: Option<String>,
    #[command(flatten)]
    estimator: EstimatorArgs,
}

#[derive(ClapArgs)]
struct WatchArgs {
    /// Seconds between two tables
    #[arg(long, value_name = "S", default_value_t = 1.0)]
    interval: f64,
    /// One JSON object per connection and table
    #[arg(long)]
    json: bool,
    /// Stop after N tables
    #[arg(long, value_name = "N")]
    count: Option<u64>,
    /// Also connections not in an established state
    #[arg(long)]
    all_states: bool,
    /// The per-ACK trace of every tcpw* connection into --out (CSV, docs/ack-trace.md), until
    /// Ctrl-C or --duration
    #[arg(long)]
    acks: bool,
    /// --acks: the trace file
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// --acks: stop after S seconds
    #[arg(long, value_name = "S")]
    duration: Option<f64>,
    /// --acks: only connections with this local or remote port
    #[arg(long, value_name = "P")]
    port: Option<u16>,
}

#[derive(ClapArgs)]
struct BenchArgs {
    /// Seconds per transfer
    #[arg(long, value_name = "S")]
    duration: Option<u32>,
    /// Transfers per congestion control
    #[arg(long, value_name = "N")]
    repeat: Option<u32>,
    /// The result as JSON
    #[arg(long)]
    json: bool,
    /// The candidate against reno (default: tcpw)
    #[arg(long, value_name = "NAME")]
    cc: Option<String>,
    /// Drop PCT % of the data packets at random
    #[arg(long, value_name = "PCT")]
    loss: Option<f64>,
    /// Do not pin client and server to different CPUs
    #[arg(long)]
    no_pin: bool,
}

/// A usage error found after parsing: the subcommand's usage line with it.
fn usage_err(command: &str, msg: impl Into<String>) -> Error {
    Error::Usage(westwood_linux::cli::usage_error(Cli::command(), command, msg))
}

fn algos(command: &str, given: Option<&str>) -> Result<Vec<Algo>> {
    match given {
        None => Ok(Algo::all().to_vec()),
        Some(s) => Algo::parse_set(s).ok_or_else(|| {
            let known: Vec<&str> = Algo::all().iter().map(|a| a.name()).collect();
            usage_err(command, format!("unknown algorithm {s:?}: {}, a comma list, or all", known.join(", ")))
        }),
    }
}

fn names(a: &[Algo]) -> String {
    a.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
}

fn cmd_load(args: LoadArgs) -> Result<()> {
    let params = args.estimator.params().map_err(|m| usage_err("load", m))?;
    let algos = algos("load", args.algos.as_deref())?;
    let report = loader::load(&LoadOptions { algos, params })?;
    if !report.loaded.is_empty() {
        println!("registered: {} (pinned under {})", names(&report.loaded), loader::PIN_DIR);
    }
    if !report.already.is_empty() {
        println!("already registered: {}", names(&report.already));
    }
    match &report.observation {
        Observation::Watch(kind) => println!("observed through the {}", kind.describe()),
        Observation::Unavailable(why) => {
            println!("not observable here (`watch` will not show them):");
            for w in why {
                println!("  - {w}");
            }
        }
    }
    match &report.trace {
        Ok(()) => println!("per-ACK trace available (`westwood-linux watch --acks --out FILE`)"),
        Err(why) => println!("no per-ACK trace: {why}"),
    }
    Ok(())
}

fn cmd_unload(given: Option<String>) -> Result<()> {
    let algos = algos("unload", given.as_deref())?;
    let removed = loader::unload(&algos)?;
    if removed.is_empty() {
        println!("nothing to unload");
    } else {
        println!("unregistered: {}", names(&removed));
    }
    Ok(())
}

fn cmd_watch(args: WatchArgs) -> Result<()> {
    if args.acks {
        return cmd_watch_acks(args);
    }
    if args.out.is_some() || args.duration.is_some() || args.port.is_some() {
        return Err(usage_err("watch", "--out, --duration and --port go with --acks"));
    }
    if !(args.interval > 0.0 && args.interval.is_finite()) {
        return Err(usage_err("watch", "--interval must be a positive number of seconds"));
    }
    if args.count == Some(0) {
        return Err(usage_err("watch", "--count must be at least 1"));
    }
    let opts = WatchOptions {
        interval: Duration::from_secs_f64(args.interval),
        json: args.json,
        count: args.count,
        all_states: args.all_states,
    };
    match watch::run(&opts, &mut std::io::stdout().lock()) {
        Err(Error::Interrupted) => Ok(()), // Ctrl-C is how watch ends
        other => other,
    }
}

/// The rows `watch --acks` keeps: those of port `port` (all without), named by their 4-tuple.
struct AckFile<'a> {
    writer: AckTraceWriter<&'a mut AtomicFile>,
    convert: Converter,
    port: Option<u16>,
    connections: std::collections::HashSet<u32>,
    name: String,
}

impl AckFile<'_> {
    fn write(&mut self, events: Vec<KernelAck>) -> Result<()> {
        for ev in events.iter().filter(|ev| self.port.is_none_or(|p| ev.sport == p || ev.dport == p)) {
            self.connections.insert(ev.conn_id);
            let row = self.convert.record(ev, &ev.flow_name());
            self.writer.write(&row).map_err(|e| Error::failed(format!("writing {}", self.name), e))?;
        }
        Ok(())
    }
}

/// `watch --acks`: the kernel's per-ACK trace into a CSV file, until Ctrl-C or --duration.
fn cmd_watch_acks(args: WatchArgs) -> Result<()> {
    let out =
        args.out.ok_or_else(|| usage_err("watch", "watch --acks needs --out FILE (the trace's CSV)"))?;
    let (duration, port) = (args.duration, args.port);
    if args.json || args.count.is_some() || args.all_states {
        return Err(usage_err("watch", "--json, --count and --all-states are the table's, not --acks'"));
    }
    if let Some(d) = duration {
        if !(d > 0.0 && d.is_finite()) {
            return Err(usage_err("watch", "--duration must be a positive number of seconds"));
        }
    }
    let mut file = AtomicFile::create(&out).map_err(|e| Error::failed(format!("creating {out}"), e))?;
    let mut session = TraceSession::start()?;
    let started = Instant::now();
    let end = duration.map(|d| started + Duration::from_secs_f64(d));
    let writer = AckTraceWriter::new(&mut file).map_err(|e| Error::failed(format!("writing {out}"), e))?;
    let mut sink = AckFile {
        writer,
        convert: Converter::new(),
        port,
        connections: Default::default(),
        name: out.clone(),
    };
    let mut last_progress = started;
    eprintln!("tracing every tcpw* ACK into {out} (Ctrl-C to stop)");
    while !sig::interrupted() && end.is_none_or(|e| Instant::now() < e) {
        sink.write(session.poll(Duration::from_millis(100))?)?;
        if last_progress.elapsed() >= Duration::from_secs(1) {
            last_progress = Instant::now();
            eprintln!(
                "{:>6.1} s: {} records, {} connections, {} lost",
                started.elapsed().as_secs_f64(),
                sink.writer.rows(),
                sink.connections.len(),
                session.dropped()?
            );
        }
    }
    let dropped = session.dropped()?;
    sink.write(session.finish()?)?;
    let (rows, connections) = (sink.writer.rows(), sink.connections.len());
    drop(sink);
    file.commit().map_err(|e| Error::failed(format!("writing {out}"), e))?;
    println!("{out}: {rows} records of {connections} connections");
    if dropped > 0 {
        return Err(Error::Failed(format!(
            "{dropped} records were lost (the ring buffer was full: the reader fell behind): {out} is incomplete"
        )));
    }
    Ok(())
}

fn cmd_bench(args: BenchArgs) -> Result<()> {
    let mut opts = BenchOptions::default();
    if let Some(d) = args.duration {
        opts.duration_s = d;
    }
    if let Some(r) = args.repeat {
        opts.repeat = r;
    }
    if let Some(cc) = args.cc {
        opts.candidate = cc;
    }
    if let Some(loss) = args.loss {
        if !(0.0..100.0).contains(&loss) {
            return Err(usage_err("bench", "--loss must be a percentage in [0, 100)"));
        }
        opts.loss_percent = loss;
    }
    opts.json = args.json;
    opts.pin = !args.no_pin;
    bench::run(&opts).map(|_| ())
}

/// What the top-level help lists: every program this binary loads, described.
fn long_about() -> String {
    let mut text = String::from("The TCP Westwood family as Linux BPF struct_ops congestion controls:\n");
    for a in Algo::all() {
        text += &format!("  {:<10} {}\n", a.name(), a.describe());
    }
    let first = Algo::all()[0].name();
    text + &format!(
        "Use them with `iperf3 -C {first}`, `sysctl net.ipv4.tcp_congestion_control={first}` or \
         setsockopt(TCP_CONGESTION, \"{first}\")."
    )
}

fn dispatch(argv: Vec<String>) -> Result<()> {
    let argv = std::iter::once("westwood-linux".to_string()).chain(argv).map(Into::into);
    let Some(matches) =
        westwood_linux::cli::matches(Cli::command().long_about(long_about()), argv).map_err(Error::Usage)?
    else {
        return Ok(());
    };
    let cli = Cli::from_arg_matches(&matches).map_err(|e| Error::Usage(e.to_string()))?;
    match cli.command {
        Command::Status => {
            print!("{}", Status::gather_with_probes().report());
            Ok(())
        }
        Command::Load(args) => cmd_load(args),
        Command::Unload { algos } => cmd_unload(algos),
        Command::Watch(args) => cmd_watch(args),
        Command::Bench(args) => cmd_bench(args),
    }
}

fn main() {
    sig::install();
    let code = sig::main_with_quiet_broken_pipe(|| {
        let argv: Vec<String> = std::env::args().skip(1).collect();
        match dispatch(argv) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("westwood-linux: {e}");
                e.exit_code()
            }
        }
    });
    std::process::exit(code);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> std::result::Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("westwood-linux").chain(args.iter().copied()))
    }

    #[test]
    fn load_takes_its_programs_and_parameters() {
        let Command::Load(args) =
            parse(&["load", "tcpw,tcpw_abse", "--tau-ms", "250", "--abse-n", "4"]).unwrap().command
        else {
            panic!("not load")
        };
        assert_eq!(args.algos.as_deref(), Some("tcpw,tcpw_abse"));
        assert_eq!((args.estimator.tau_ms, args.estimator.abse_n), (Some(250.0), Some(4)));
        assert_eq!(
            algos("load", args.algos.as_deref()).unwrap(),
            [Algo::from_name("tcpw").unwrap(), Algo::from_name("tcpw_abse").unwrap()]
        );
        assert!(algos("load", Some("westwood")).is_err());
        assert_eq!(algos("unload", None).unwrap(), Algo::all());
        // Each command its own help; unknown options and extra arguments are usage errors.
        let help = parse(&["load", "--help"]).err().unwrap().to_string();
        assert!(help.contains("--tau-ms") && !help.contains("--acks"));
        assert!(parse(&["watch", "--bogus"]).is_err());
        assert!(parse(&["unload", "tcpw", "extra"]).is_err());
    }
}
