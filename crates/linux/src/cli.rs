//! How the project's Rust tools (westwood-linux, westwood-emu) read their command lines with
//! clap: `--help` and `--version` go to stdout (a closed pipe ends the process quietly, through
//! `sig::main_with_quiet_broken_pipe`), every other problem is a usage error (exit 2) whose
//! text names the command's usage.

use std::ffi::OsString;

use clap::{ArgMatches, Command};

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
