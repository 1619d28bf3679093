//! westwood-linux: load TCPW / Westwood+ into the running kernel as BPF congestion controls.

use std::time::Duration;

use westwood_linux::args::{usage_error, Args};
use westwood_linux::bench::{self, BenchOptions};
use westwood_linux::loader::{self, Algo, LoadOptions};
use westwood_linux::prereq::Status;
use westwood_linux::watch::{self, WatchOptions};
use westwood_linux::{sig, Error, Result};

const USAGE: &str = "\
usage: westwood-linux <command> [options]

TCP Westwood (seed 000 §2-3) and Westwood+ as Linux BPF struct_ops congestion controls,
registered as \"tcpw\" and \"tcpw_plus\" (use them with `iperf3 -C tcpw`,
`sysctl net.ipv4.tcp_congestion_control=tcpw` or setsockopt(TCP_CONGESTION, \"tcpw\")).

commands:
  status                      kernel, BTF, struct_ops, privileges, what is registered
  load [tcpw|tcpw_plus|all]   register (default: all); stays registered after exit
       [--tau-ms MS] [--m M]  TCPW filter: time constant tau (500 ms), virtual samples every tau/m (m=2)
  unload [tcpw|tcpw_plus|all] unregister (default: all); harmless if nothing is loaded
  watch [--interval S] [--json] [--count N] [--all-states]
                              per connection: 4-tuple, algorithm, BWE, RTTmin, cwnd, ssthresh
  bench [--duration S] [--repeat N] [--json] [--cc NAME] [--loss PCT] [--no-pin]
                              iperf3 over veth in fresh namespaces: reno, then tcpw (or NAME);
                              --loss drops PCT % of the data packets at random; client and
                              server are pinned to different CPUs unless --no-pin

exit status: 0 ok, 1 failed, 2 usage error or missing prerequisite, 130 interrupted";

fn usage_err(msg: impl Into<String>) -> Error {
    usage_error(USAGE, msg)
}

fn algos(pos: &[String]) -> Result<Vec<Algo>> {
    match pos.first() {
        None => Ok(Algo::ALL.to_vec()),
        Some(s) => Algo::parse_set(s)
            .ok_or_else(|| usage_err(format!("unknown algorithm {s:?}: tcpw, tcpw_plus or all"))),
    }
}

fn names(a: &[Algo]) -> String {
    a.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
}

fn cmd_load(mut args: Args) -> Result<()> {
    let tau_ms: Option<f64> = args.parsed("--tau-ms")?;
    let m: Option<u32> = args.parsed("--m")?;
    let algos = algos(&args.positionals(1)?)?;
    let tau_us = match tau_ms {
        Some(t) if !(t > 0.0 && t <= 1e6) => return Err(usage_err("--tau-ms must be in (0, 1000000]")),
        Some(t) => Some((t * 1000.0).round().max(1.0) as u32),
        None => None,
    };
    let report = loader::load(&LoadOptions { algos, tau_us, m })?;
    if !report.loaded.is_empty() {
        println!("registered: {} (pinned under {})", names(&report.loaded), loader::PIN_DIR);
    }
    if !report.already.is_empty() {
        println!("already registered: {}", names(&report.already));
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
            print!("{}", Status::gather().report());
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
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = dispatch(argv) {
        eprintln!("westwood-linux: {e}");
        std::process::exit(e.exit_code());
    }
}
