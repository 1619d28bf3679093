//! The command lines of the project's binaries (`westwood-linux`, `westwood-emu`): `--name value`
//! or `--name=value` options, flags and positionals, with bad usage reported as
//! [`Error::Usage`] followed by the binary's usage text (exit status 2).

use crate::error::{Error, Result};

/// `msg`, then the usage text: what every usage error of a binary says.
pub fn usage_error(usage: &str, msg: impl Into<String>) -> Error {
    Error::Usage(format!("{}\n\n{usage}", msg.into()))
}

/// The arguments after the command, taken out option by option; what is left are positionals.
pub struct Args {
    items: Vec<String>,
    usage: &'static str,
}

impl Args {
    pub fn new(items: Vec<String>, usage: &'static str) -> Self {
        Args { items, usage }
    }

    fn error(&self, msg: String) -> Error {
        usage_error(self.usage, msg)
    }

    /// Whether the flag `name` was given (every occurrence is taken).
    pub fn flag(&mut self, name: &str) -> bool {
        let before = self.items.len();
        self.items.retain(|a| a != name);
        self.items.len() != before
    }

    /// The value of `name` (`name VALUE` or `name=VALUE`), taken out; the first one if repeated.
    pub fn value(&mut self, name: &str) -> Result<Option<String>> {
        let prefix = format!("{name}=");
        if let Some(i) = self.items.iter().position(|a| a == name) {
            if i + 1 >= self.items.len() {
                return Err(self.error(format!("{name} needs a value")));
            }
            let v = self.items.remove(i + 1);
            self.items.remove(i);
            return Ok(Some(v));
        }
        if let Some(i) = self.items.iter().position(|a| a.starts_with(&prefix)) {
            return Ok(Some(self.items.remove(i)[prefix.len()..].to_string()));
        }
        Ok(None)
    }

    /// Every value of a repeatable option, in order.
    pub fn values(&mut self, name: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        while let Some(v) = self.value(name)? {
            out.push(v);
        }
        Ok(out)
    }

    /// The value of `name` parsed as `T`.
    pub fn parsed<T: std::str::FromStr>(&mut self, name: &str) -> Result<Option<T>> {
        match self.value(name)? {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| self.error(format!("{name}: invalid value {v:?}"))),
        }
    }

    /// The remaining positionals (at most `max`); unknown options are errors.
    pub fn positionals(self, max: usize) -> Result<Vec<String>> {
        if let Some(opt) = self.items.iter().find(|a| a.starts_with('-')) {
            return Err(self.error(format!("unknown option {opt}")));
        }
        if self.items.len() > max {
            return Err(self.error(format!("unexpected argument {:?}", self.items[max])));
        }
        Ok(self.items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(items: &[&str]) -> Args {
        Args::new(items.iter().map(|s| s.to_string()).collect(), "usage: x")
    }

    #[test]
    fn options_flags_and_positionals() {
        let mut a = args(&["--seed", "3", "A", "--set=k=v", "--json", "--set", "x=y"]);
        assert!(a.flag("--json"));
        assert!(!a.flag("--json"));
        assert_eq!(a.parsed::<u64>("--seed").unwrap(), Some(3));
        assert_eq!(a.values("--set").unwrap(), ["x=y", "k=v"]);
        assert_eq!(a.positionals(1).unwrap(), ["A"]);
    }

    #[test]
    fn bad_usage_names_the_problem_and_shows_the_usage() {
        let text = |e: Error| (e.exit_code(), e.to_string());
        assert_eq!(
            text(args(&["--out"]).value("--out").unwrap_err()),
            (2, "--out needs a value\n\nusage: x".into())
        );
        assert!(text(args(&["--n", "x"]).parsed::<u32>("--n").unwrap_err())
            .1
            .starts_with("--n: invalid value \"x\""));
        assert!(text(args(&["--what"]).positionals(1).unwrap_err()).1.starts_with("unknown option --what"));
        assert!(text(args(&["a", "b"]).positionals(1).unwrap_err())
            .1
            .starts_with("unexpected argument \"b\""));
    }
}
