//! Traffic the scenario creates during the run: TCP flows arriving as a Poisson process
//! ([`arrivals`]). (Exponential ON/OFF UDP sources are drawn when the scenario is loaded, in
//! `scenario::sources`, and run like any CBR source.)

pub mod arrivals;

pub use arrivals::{Arrivals, NewFlow};
