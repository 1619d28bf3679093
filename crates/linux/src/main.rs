//! westwood-linux: load the TCP Westwood family into the running kernel as BPF congestion controls.

use std::time::{Duration, Instant};

use westwood_linux::acks::{Converter, KernelAck, TraceSession};
use westwood_linux::args::{usage_error, Args};
use westwood_linux::bench::{self, BenchOptions};
use westwood_linux::loader::{self, Algo, LoadOptions, Observation, Params, Sample};
use westwood_linux::prereq::Status;
use westwood_linux::watch::{self, WatchOptions};
use westwood_linux::{sig, Error, Result};
use westwood_trace::{AckTraceWriter, AtomicFile};

const USAGE: &str = "\
usage: westwood-linux <command> [options]

The TCP Westwood family as Linux BPF struct_ops congestion controls:
  tcpw       TCPW (seed 000): Tustin filter with alpha_k from the ACK gap, virtual samples
  tcpw_tr    TCPW with the threshold reduction factor a (seed 001): constant-gain filter
  tcpw_abse  TCPW ABSE (seed 004): adaptive sampling interval and filter gain
  tcpw_plus  Westwood+: one bandwidth sample per RTT, two 7/8 EWMAs
Use them with `iperf3 -C tcpw_abse`, `sysctl net.ipv4.tcp_congestion_control=tcpw` or
setsockopt(TCP_CONGESTION, \"tcpw\").

commands:
  status                      kernel, privileges, what is registered, and what this kernel
                              accepts (probed by loading the programs): register / observe / trace
  load [ALGOS]                register ALGOS (a name, a comma list, or all: the default); they
                              stay registered after exit. Parameters (defaults as in the papers):
       [--tau-ms MS] [--m M]  tcpw: time constant tau (500), a virtual sample every tau/m (m = 2)
       [--sample trapezoid|interval]  tcpw: the filter's input (the paper's trapezoid)
       [--tr-ratio R]         tcpw_tr: time constant over sampling time (10: alpha = 19/21)
       [--abse-t-min-ms MS]   tcpw_abse: shortest sampling interval T_min (50)
       [--abse-n N]           tcpw_abse: tau_k = RTT (1 + N U/U_max) (N = 10)
       [--plus-min-window-ms MS]  tcpw_plus: shortest sampling window (50)
  unload [ALGOS]              unregister (default: all); harmless if nothing is loaded
  watch [--interval S] [--json] [--count N] [--all-states]
                              per connection: 4-tuple, algorithm, BWE, RTTmin, cwnd, ssthresh
  watch --acks --out FILE [--duration S] [--port P]
                              the per-ACK trace of every tcpw* connection (or those with local
                              or remote port P) into FILE, CSV with the columns of
                              docs/ack-trace.md, until Ctrl-C or S seconds
  bench [--duration S] [--repeat N] [--json] [--cc NAME] [--loss PCT] [--no-pin]
                              iperf3 over veth in fresh namespaces: reno, then tcpw (or NAME);
                              --loss drops PCT % of the data packets at random; client and
                              server are pinned to different CPUs unless --no-pin

exit status: 0 ok, 1 failed (also: trace records lost), 2 usage error or missing prerequisite
(the kernel refuses what is asked), 130 interrupted";

fn usage_err(msg: impl Into<String>) -> Error {
    usage_error(USAGE, msg)
}

fn algos(pos: &[String]) -> Result<Vec<Algo>> {
    match pos.first() {
        None => Ok(Algo::ALL.to_vec()),
        Some(s) => Algo::parse_set(s).ok_or_else(|| {
            usage_err(format!(
                "unknown algorithm {s:?}: tcpw, tcpw_tr, tcpw_abse, tcpw_plus, a comma list, or all"
            ))
        }),
    }
}

fn names(a: &[Algo]) -> String {
    a.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
}

/// `--NAME-ms MS` as microseconds.
fn millis_option(args: &mut Args, name: &str) -> Result<Option<u32>> {
    match args.parsed::<f64>(name)? {
        Some(ms) if !(ms > 0.0 && ms <= 1e6) => Err(usage_err(format!("{name} must be in (0, 1000000]"))),
        Some(ms) => Ok(Some((ms * 1000.0).round().max(1.0) as u32)),
        None => Ok(None),
    }
}

fn cmd_load(mut args: Args) -> Result<()> {
    let params =
        Params {
            tau_us: millis_option(&mut args, "--tau-ms")?,
            m: args.parsed("--m")?,
            sample: match args.value("--sample")? {
                None => None,
                Some(v) => Some(Sample::parse(&v).ok_or_else(|| {
                    usage_err(format!("--sample {v:?}: trapezoid (the paper's) or interval"))
                })?),
            },
            tr_ratio: args.parsed("--tr-ratio")?,
            abse_t_min_us: millis_option(&mut args, "--abse-t-min-ms")?,
            abse_n: args.parsed("--abse-n")?,
            plus_min_window_us: millis_option(&mut args, "--plus-min-window-ms")?,
        };
    let algos = algos(&args.positionals(1)?)?;
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

fn cmd_unload(args: Args) -> Result<()> {
    let algos = algos(&args.positionals(1)?)?;
    let removed = loader::unload(&algos)?;
    if removed.is_empty() {
        println!("nothing to unload");
    } else {
        println!("unregistered: {}", names(&removed));
    }
    Ok(())
}

fn cmd_watch(mut args: Args) -> Result<()> {
    if args.flag("--acks") {
        return cmd_watch_acks(args);
    }
    let interval: f64 = args.parsed("--interval")?.unwrap_or(1.0);
    let count: Option<u64> = args.parsed("--count")?;
    let json = args.flag("--json");
    let all_states = args.flag("--all-states");
    args.positionals(0)?;
    if !(interval > 0.0 && interval.is_finite()) {
        return Err(usage_err("--interval must be a positive number of seconds"));
    }
    if count == Some(0) {
        return Err(usage_err("--count must be at least 1"));
    }
    let opts = WatchOptions { interval: Duration::from_secs_f64(interval), json, count, all_states };
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
fn cmd_watch_acks(mut args: Args) -> Result<()> {
    let out =
        args.value("--out")?.ok_or_else(|| usage_err("watch --acks needs --out FILE (the trace's CSV)"))?;
    let duration: Option<f64> = args.parsed("--duration")?;
    let port: Option<u16> = args.parsed("--port")?;
    args.positionals(0)?;
    if let Some(d) = duration {
        if !(d > 0.0 && d.is_finite()) {
            return Err(usage_err("--duration must be a positive number of seconds"));
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

fn cmd_bench(mut args: Args) -> Result<()> {
    let mut opts = BenchOptions::default();
    if let Some(d) = args.parsed("--duration")? {
        opts.duration_s = d;
    }
    if let Some(r) = args.parsed("--repeat")? {
        opts.repeat = r;
    }
    if let Some(cc) = args.value("--cc")? {
        opts.candidate = cc;
    }
    if let Some(loss) = args.parsed::<f64>("--loss")? {
        if !(0.0..100.0).contains(&loss) {
            return Err(usage_err("--loss must be a percentage in [0, 100)"));
        }
        opts.loss_percent = loss;
    }
    opts.json = args.flag("--json");
    opts.pin = !args.flag("--no-pin");
    args.positionals(0)?;
    bench::run(&opts).map(|_| ())
}

fn dispatch(argv: Vec<String>) -> Result<()> {
    let Some((cmd, rest)) = argv.split_first() else {
        return Err(usage_err("missing command"));
    };
    let args = Args::new(rest.to_vec(), USAGE);
    match cmd.as_str() {
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        "-V" | "--version" => {
            println!("westwood-linux {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        "status" => {
            args.positionals(0)?;
            print!("{}", Status::gather_with_probes().report());
            Ok(())
        }
        "load" => cmd_load(args),
        "unload" => cmd_unload(args),
        "watch" => cmd_watch(args),
        "bench" => cmd_bench(args),
        other => Err(usage_err(format!("unknown command {other:?}"))),
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
