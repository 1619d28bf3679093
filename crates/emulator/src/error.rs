use std::fmt;

/// Errors, by what the user should do about them (and the exit status), as in westwood-linux.
#[derive(Debug)]
pub enum Error {
    /// Bad command line, or a scenario the testbed cannot map (exit 2).
    Usage(String),
    /// A prerequisite is missing: root, a tool, a kernel feature (exit 2). Says what to do.
    Prereq(String),
    /// The operation failed (exit 1).
    Failed(String),
    /// Ctrl-C or SIGTERM (exit 130), after cleaning up.
    Interrupted,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) | Error::Prereq(_) => 2,
            Error::Failed(_) => 1,
            Error::Interrupted => 130,
        }
    }

    pub fn failed(context: impl fmt::Display, err: impl fmt::Display) -> Error {
        Error::Failed(format!("{context}: {err}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Prereq(m) | Error::Failed(m) => write!(f, "{m}"),
            Error::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Failed(e.to_string())
    }
}

impl From<westwood_linux::Error> for Error {
    fn from(e: westwood_linux::Error) -> Self {
        match e {
            westwood_linux::Error::Usage(m) => Error::Usage(m),
            westwood_linux::Error::Prereq(m) => Error::Prereq(m),
            westwood_linux::Error::Failed(m) => Error::Failed(m),
            westwood_linux::Error::Interrupted => Error::Interrupted,
        }
    }
}

impl From<westwood_simulator::scenario::ScenarioError> for Error {
    fn from(e: westwood_simulator::scenario::ScenarioError) -> Self {
        Error::Usage(e.to_string())
    }
}
