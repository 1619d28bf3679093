use std::fmt;

/// Errors, by what the user should do about them (and the exit status).
#[derive(Debug)]
pub enum Error {
    /// Bad command line (exit 2).
    Usage(String),
    /// A prerequisite is missing: privileges, BTF, struct_ops, bpffs, a tool (exit 2). The
    /// message says what to do.
    Prereq(String),
    /// The operation failed (exit 1).
    Failed(String),
    /// Ctrl-C (exit 130), after cleaning up.
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
            Error::Usage(m) => write!(f, "{m}"),
            Error::Prereq(m) => write!(f, "{m}"),
            Error::Failed(m) => write!(f, "{m}"),
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

impl From<libbpf_rs::Error> for Error {
    fn from(e: libbpf_rs::Error) -> Self {
        Error::Failed(e.to_string())
    }
}
