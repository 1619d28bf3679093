//! How the project's Rust tools (westwood-linux, westwood-emu) read their command lines with
//! clap: `--help` and `--version` go to stdout (a closed pipe ends the process quietly, through
//! `sig::main_with_quiet_broken_pipe`), every other problem is a usage error (exit 2) whose
//! text names the command's usage.

use std::ffi::OsString;

use clap::{ArgMatches, Args, Command};

use crate::loader::{Params, Sample};

/// The matches of `argv` (the program name first); `Ok(None)` when help or the version was
/// printed; `Err` the text of a usage error.
pub fn matches(
    command: Command,
    argv: impl IntoIterator<Item = OsString>,
) -> Result<Option<ArgMatches>, String> {
    let usage = command.clone().render_usage();
    match command.try_get_matches_from(argv) {
        Ok(m) => Ok(Some(m)),
        Err(e) if !e.use_stderr() => {
            print!("{e}");
            Ok(None)
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            Err(format!("missing command\n\n{usage}\nFor more information, try '--help'."))
        }
        Err(e) => Err(e.render().to_string().trim_end().trim_start_matches("error: ").to_string()),
    }
}

/// A usage error found after parsing, with the usage line of `command`'s subcommand `sub`.
pub fn usage_error(mut command: Command, sub: &str, msg: impl Into<String>) -> String {
    command.build();
    let bin = command.get_name().to_string();
    let usage = command.find_subcommand_mut(sub).map_or_else(String::new, |c| c.render_usage().to_string());
    format!("{}\n\n{usage}\nFor more information, try '{bin} {sub} --help'.", msg.into())
}

/// The tcpw* programs' estimator parameters as flags (`westwood-linux load`, `westwood-emu
/// hold`); each defaults to the paper's value.
#[derive(Args, Debug, Clone, Default)]
pub struct EstimatorArgs {
    /// tcpw: the filter's time constant tau, ms (500)
    #[arg(long, value_name = "MS")]
    pub tau_ms: Option<f64>,
    /// tcpw: a virtual sample every tau/m of silence (2)
    #[arg(long, value_name = "M")]
    pub m: Option<u32>,
    /// tcpw: the filter's input, trapezoid (the paper's) or interval
    #[arg(long, value_name = "SAMPLE")]
    pub sample: Option<String>,
    /// tcpw_tr: time constant over sampling time (10: alpha = 19/21)
    #[arg(long, value_name = "R")]
    pub tr_ratio: Option<u32>,
    /// tcpw_abse: the shortest sampling interval T_min, ms (50)
    #[arg(long, value_name = "MS")]
    pub abse_t_min_ms: Option<f64>,
    /// tcpw_abse: tau_k = RTT (1 + N U/U_max) (10)
    #[arg(long, value_name = "N")]
    pub abse_n: Option<u32>,
    /// tcpw_plus: the shortest sampling window, ms (50)
    #[arg(long, value_name = "MS")]
    pub plus_min_window_ms: Option<f64>,
}

impl EstimatorArgs {
    /// The loader's parameters; `Err` the text of a usage error naming the flag.
    pub fn params(&self) -> Result<Params, String> {
        Ok(Params {
            tau_us: millis("tau-ms", self.tau_ms)?,
            m: self.m,
            sample: match &self.sample {
                None => None,
                Some(v) => Some(
                    Sample::parse(v)
                        .ok_or_else(|| format!("--sample {v:?}: trapezoid (the paper's) or interval"))?,
                ),
            },
            tr_ratio: self.tr_ratio,
            abse_t_min_us: millis("abse-t-min-ms", self.abse_t_min_ms)?,
            abse_n: self.abse_n,
            plus_min_window_us: millis("plus-min-window-ms", self.plus_min_window_ms)?,
        })
    }
}

/// `--NAME-ms MS` as microseconds.
fn millis(name: &str, value: Option<f64>) -> Result<Option<u32>, String> {
    match value {
        Some(ms) if !(ms > 0.0 && ms <= 1e6) => Err(format!("--{name} must be in (0, 1000000]")),
        Some(ms) => Ok(Some((ms * 1000.0).round().max(1.0) as u32)),
        None => Ok(None),
    }
}
