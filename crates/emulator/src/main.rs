//! westwood-emu: the link emulator, its selftest, and the testbed (real kernel TCP through the
//! emulator, beside the simulator).

use std::path::PathBuf;

use westwood_emulator::core::{links_from_toml, Emulator, Route};
use westwood_emulator::error::{scenario_error, Error, Result};
use westwood_emulator::{netns, realtime, selftest, sys, testbed};
use westwood_linux::args::{usage_error, Args};
use westwood_simulator::model::Nanos;

const USAGE: &str = "\
usage: westwood-emu <command> [options]

commands:
  testbed SCENARIO [--cc CC[,CC...]] [--set KEY=VALUE]... [--duration S] [--seed N]
          [--out DIR [--ack-trace] [--pcap [--pcap-snaplen N]]] [--no-sim] [--json] [--interval S]
          [--fifo PRIO | --no-fifo] [--dry-run]
        run the scenario's TCP flows as kernel TCP (iperf3) through the link emulator, in
        network namespaces, one run per CC (reno, cubic, bbr, tcpw, tcpw_tr, tcpw_abse,
        tcpw_plus; default: each flow's own cc), and print the simulator's result for the same
        scenario beside it. --out writes summary.json, flows.csv, links.csv, flow_series.csv,
        link_series.csv (as `westwood run --out`; one directory per CC when there are several,
        the simulator's in simulator/ under each) and comparison.json; --ack-trace adds
        acks.csv, the kernel's per-ACK trace of every flow (docs/ack-trace.md), and the
        simulator's in simulator/acks.csv; --pcap captures each flow at its sender and receiver
        namespaces (pcap/FLOW.sender.pcapng, pcap/FLOW.receiver.pcapng; the first N bytes of
        each frame, default 128) and has the simulator write the same files for its run in
        simulator/pcap/ (`westwood analyze` reads both). A cc this kernel cannot run: exit 2 with
        the reason.
        --dry-run only shows how the scenario maps onto the testbed (no root needed; exit 2 if
        it cannot).
  selftest [--quick] [--json] [--only TEXT] [--fifo PRIO | --no-fifo]
        measure the emulator: achieved rate, delay error, emulator-caused drops, loss-rate
        accuracy (about 75 s; --quick: about 40 s). The emulator thread runs SCHED_FIFO
        (priority 10 unless --fifo PRIO) unless --no-fifo (also for testbed and run).
        --only runs the cases whose name contains TEXT.
  run --dev IF --dev IF [--link BODY] [--reverse BODY] [--lines D,D,...] [--duration S]
      [--seed N]
        emulate a link between two existing interfaces of this namespace (frames from one
        go out of the other). BODY is a scenario [links.NAME] body, e.g.
        'rate = \"10Mbps\"\\ndelay = \"20ms\"\\nqueue = 100\\nerrors = { model = \"bernoulli\", rate = \"1%\" }'
        (--reverse: the other direction, default the same); --lines spreads packets round
        robin over delay lines with these extra delays (reordering). Until Ctrl-C or S s.
  path [--link BODY [--reverse BODY] | --scenario FILE [--set KEY=VALUE]... [--flow NAME]] [--servers N]
       [--load CC[,CC...]] [--report FILE] [--seed N] [--mtu N] [--fifo PRIO | --no-fifo]
       -- COMMAND [ARGS...]
        an emulated path for tools that measure real ones: a client and a server namespace
        joined through the emulator (BODY as for run; default 10 Mb/s, 20 ms, 100 packets;
        or --scenario: the route of the scenario's first TCP flow (--flow NAME: that one), link by
        link, its sender's and receiver's TCP settings as testbed maps them, --load with the
        scenario's estimator parameters; its other TCP flows run as kernel TCP from their start
        until COMMAND ends: cross traffic through the same links),
        N iperf3 servers (ports 5201...) in the server namespace, COMMAND run in the client
        namespace with $WESTWOOD_PATH_SERVER, $WESTWOOD_PATH_PORTS set (e.g. -- westwood measure
        '$WESTWOOD_PATH_SERVER' ... through sh -c); --load registers tcpw* for it. Then prints the
        emulator's counters per direction (--report FILE: as JSON); exits with COMMAND's status.
  cleanup
        remove namespaces left by killed runs (also done at the start of every run).

exit status: 0 ok, 1 failed, 2 usage error, unmappable scenario or missing prerequisite,
130 interrupted";

fn usage_err(msg: impl Into<String>) -> Error {
    usage_error(USAGE, msg)
}

/// "30", "30s", "500ms" -> ns.
fn duration(text: &str, what: &str) -> Result<Nanos> {
    let t = text.trim();
    let parsed = match t.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => Ok((s * 1e9).round() as Nanos),
        Ok(_) => Err("must be positive".to_string()),
        Err(_) => westwood_simulator::scenario::units::parse_duration(t),
    };
    match parsed {
        Ok(ns) if ns > 0 => Ok(ns),
        Ok(_) => Err(usage_err(format!("{what} {text:?}: must be positive"))),
        Err(e) => Err(usage_err(format!("{what} {text:?}: {e}"))),
    }
}

fn cmd_testbed(mut args: Args) -> Result<i32> {
    let mut opts = testbed::Options::default();
    for cc in args.values("--cc")? {
        for c in cc.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            if !westwood_emulator::plan::kernel_ccs().contains(&c) {
                return Err(usage_err(format!(
                    "--cc {c}: choose among {}",
                    westwood_emulator::plan::kernel_ccs().join(", ")
                )));
            }
            if !opts.ccs.iter().any(|x| x == c) {
                opts.ccs.push(c.to_string());
            }
        }
    }
    for set in args.values("--set")? {
        let (k, v) =
            set.split_once('=').ok_or_else(|| usage_err(format!("--set {set:?}: expected KEY=VALUE")))?;
        opts.overrides.push((k.trim().to_string(), v.trim().to_string()));
    }
    if let Some(d) = args.value("--duration")? {
        opts.duration = Some(duration(&d, "--duration")?);
    }
    if let Some(s) = args.value("--seed")? {
        opts.seed = Some(s.parse().map_err(|_| usage_err(format!("--seed {s:?}: not an integer")))?);
    }
    if let Some(i) = args.value("--interval")? {
        opts.sample_interval = duration(&i, "--interval")?;
    }
    opts.out = args.value("--out")?.map(PathBuf::from);
    opts.simulate = !args.flag("--no-sim");
    opts.fifo = fifo_option(&mut args)?;
    opts.json = args.flag("--json");
    opts.ack_trace = args.flag("--ack-trace");
    if opts.ack_trace && opts.out.is_none() {
        return Err(usage_err("--ack-trace writes acks.csv into the run directory: it needs --out DIR"));
    }
    let snaplen = args.value("--pcap-snaplen")?;
    if args.flag("--pcap") || snaplen.is_some() {
        if opts.out.is_none() {
            return Err(usage_err(
                "--pcap writes pcap/FLOW.sender.pcapng ... into the run directory: it needs --out DIR",
            ));
        }
        opts.pcap = Some(match snaplen {
            None => westwood_simulator::pcap::DEFAULT_SNAPLEN,
            Some(s) => s.parse::<u32>().ok().filter(|&n| (64..=262_144).contains(&n)).ok_or_else(|| {
                usage_err(format!("--pcap-snaplen {s:?}: bytes kept per packet, 64 to 262144"))
            })?,
        });
    }
    let dry_run = args.flag("--dry-run");
    let pos = args.positionals(1)?;
    let scenario = pos.first().ok_or_else(|| usage_err("testbed: a SCENARIO file is required"))?;
    opts.scenario = resolve_scenario(scenario)?;
    if dry_run {
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

fn cmd_selftest(mut args: Args) -> Result<i32> {
    let scale = if args.flag("--quick") { 0.5 } else { 1.0 };
    let json = args.flag("--json");
    let only = args.value("--only")?;
    let fifo = fifo_option(&mut args)?;
    args.positionals(0)?;
    selftest::main(scale, json, fifo, only.as_deref())
}

/// `--fifo PRIO` / `--no-fifo`: the emulator thread's scheduling.
fn fifo_option(args: &mut Args) -> Result<Option<i32>> {
    if args.flag("--no-fifo") {
        return Ok(None);
    }
    Ok(match args.value("--fifo")? {
        None => Some(realtime::DEFAULT_FIFO_PRIORITY),
        Some(p) => Some(
            p.parse::<i32>()
                .ok()
                .filter(|p| (1..=99).contains(p))
                .ok_or_else(|| usage_err(format!("--fifo {p:?}: a SCHED_FIFO priority 1..99")))?,
        ),
    })
}

fn cmd_run(mut args: Args) -> Result<i32> {
    let devs = args.values("--dev")?;
    if devs.len() != 2 {
        return Err(usage_err("run: give two interfaces, --dev A --dev B"));
    }
    let link =
        args.value("--link")?.unwrap_or_else(|| "rate = \"100Mbps\"\ndelay = \"0ms\"\nqueue = 1000".into());
    let reverse = args.value("--reverse")?;
    let lines: Vec<Nanos> = match args.value("--lines")? {
        None => Vec::new(),
        Some(l) => l
            .split(',')
            .map(|d| {
                let d = d.trim();
                if d.parse::<f64>() == Ok(0.0) {
                    Ok(0)
                } else {
                    westwood_simulator::scenario::units::parse_duration(d)
                        .map_err(|e| usage_err(format!("--lines {d:?}: {e}")))
                }
            })
            .collect::<Result<_>>()?,
    };
    let until = args.value("--duration")?.map(|d| duration(&d, "--duration")).transpose()?;
    let seed = args
        .value("--seed")?
        .map(|s| s.parse::<u64>())
        .transpose()
        .map_err(|_| usage_err("--seed: not an integer"))?;
    let fifo = fifo_option(&mut args)?;
    args.positionals(0)?;
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
        return Err(usage_err("run: the link must be duplex, or give --reverse"));
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

fn cmd_path(mut args: Args, command: Vec<String>) -> Result<i32> {
    use westwood_emulator::path::PathSpec;
    let link = args.value("--link")?;
    let reverse = args.value("--reverse")?;
    let scenario = args.value("--scenario")?;
    let sets = args.values("--set")?;
    let spec = match scenario {
        Some(file) => {
            if link.is_some() || reverse.is_some() {
                return Err(usage_err("path: --scenario gives the links; drop --link and --reverse"));
            }
            let mut overrides = Vec::new();
            for set in sets {
                let (k, v) = set
                    .split_once('=')
                    .ok_or_else(|| usage_err(format!("--set {set:?}: expected KEY=VALUE")))?;
                overrides.push((k.trim().to_string(), v.trim().to_string()));
            }
            PathSpec::Scenario { file: resolve_scenario(&file)?, overrides }
        }
        None => {
            if !sets.is_empty() {
                return Err(usage_err("path: --set changes a --scenario's parameters; give --scenario FILE"));
            }
            PathSpec::Link {
                link: link.unwrap_or_else(|| "rate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = 100".into()),
                reverse,
            }
        }
    };
    let mut opts = westwood_emulator::path::Options {
        spec,
        seed: 1,
        servers: 1,
        load: Vec::new(),
        report: args.value("--report")?.map(PathBuf::from),
        fifo: None,
        mtu: None,
        flow: None,
        command,
    };
    if let Some(f) = args.value("--flow")? {
        if !matches!(opts.spec, PathSpec::Scenario { .. }) {
            return Err(usage_err("path: --flow names a flow of --scenario"));
        }
        opts.flow = Some(f);
    }
    if let Some(s) = args.value("--seed")? {
        opts.seed = s.parse().map_err(|_| usage_err(format!("--seed {s:?}: not an integer")))?;
    }
    if let Some(n) = args.value("--servers")? {
        opts.servers = n
            .parse::<u16>()
            .ok()
            .filter(|n| (1..=100).contains(n))
            .ok_or_else(|| usage_err(format!("--servers {n:?}: 1 to 100")))?;
    }
    if let Some(m) = args.value("--mtu")? {
        opts.mtu = Some(
            m.parse::<u32>()
                .ok()
                .filter(|m| (576..=9000).contains(m))
                .ok_or_else(|| usage_err(format!("--mtu {m:?}: 576 to 9000")))?,
        );
    }
    for l in args.values("--load")? {
        for c in l.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            if westwood_linux::Algo::from_name(c).is_none() {
                return Err(usage_err(format!("--load {c}: one of tcpw, tcpw_tr, tcpw_abse, tcpw_plus")));
            }
            opts.load.push(c.to_string());
        }
    }
    opts.fifo = fifo_option(&mut args)?;
    args.positionals(0)?;
    if opts.command.is_empty() {
        return Err(usage_err("path: give the command to run after --"));
    }
    westwood_emulator::path::main(&opts)
}

fn cmd_cleanup(args: Args) -> Result<i32> {
    args.positionals(0)?;
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
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() || argv[0] == "-h" || argv[0] == "--help" || argv[0] == "help" {
        println!("{USAGE}");
        return Ok(if argv.is_empty() { 2 } else { 0 });
    }
    let command = argv.remove(0);
    if command == "path" {
        // Everything after `--` is the command (its own --help included).
        let split = argv.iter().position(|a| a == "--");
        let rest = split.map(|i| argv.split_off(i)[1..].to_vec()).unwrap_or_default();
        if argv.iter().any(|a| a == "-h" || a == "--help") {
            println!("{USAGE}");
            return Ok(0);
        }
        return cmd_path(Args::new(argv, USAGE), rest);
    }
    if argv.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok(0);
    }
    let args = Args::new(argv, USAGE);
    match command.as_str() {
        "testbed" => cmd_testbed(args),
        "selftest" => cmd_selftest(args),
        "run" => cmd_run(args),
        "cleanup" => cmd_cleanup(args),
        other => Err(usage_err(format!("unknown command {other:?}"))),
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
