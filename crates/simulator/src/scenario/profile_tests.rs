//! `profile` and the keys it bundles: parsing, precedence, errors.

use westwood_algorithms::WindowGrowth;

use crate::tcp::Recovery;

use super::*;
use crate::model::{
    FastRetransmitTimer, Inflation, PartialAckTimer, RecoveryPacing, TcpSpec, TimeoutThreshold,
};

const BASE: &str = r#"
[scenario]
duration = "10s"

[parameters]
cc = "reno"

[topology]
nodes = ["a", "b", "c"]

[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"

[links.bc]
from = "b"
to = "c"
rate = "2Mbps"
delay = "0.01ms"

[flows.f]
from = "a"
to = "c"
"#;

/// BASE with `[tcp]` holding `tcp` and the flow's table `flow` (each a few `key = value` lines).
fn text(tcp: &str, flow: &str) -> String {
    format!("{BASE}{flow}\n[tcp]\ncc = \"${{cc}}\"\nsegment_size = \"400B\"\n{tcp}\n")
}

fn load_with(text: &str, sets: &[(&str, &str)]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load_str(text, "t.toml", &sets)
}

fn tcp_of(text: &str, sets: &[(&str, &str)]) -> TcpSpec {
    load_with(text, sets).unwrap_or_else(|e| panic!("{e}")).flows[0].tcp.clone()
}

/// Every key the linux profile sets, one by one, as `[tcp]` lines.
const LINUX_KEYS: &str = r#"
window_growth = "linux"
limited_transmit = true
recovery = "newreno"
partial_ack_timer = "every"
timeout_threshold = "new_episode"
recovery_pacing = "prr"
fast_recovery_inflation = true
recovery_exit_growth = true
fast_retransmit_timer = "restart"
repeat_fast_retransmit = false
delayed_ack_timeout = "40ms"
ack_every = 2
quick_acks = 16
initial_cwnd = 10
rto_initial = "1s"
rto_min = "200ms"
rto_max = "120s"
clock_granularity = "200ms"
send_buffer = "linux"
cwnd_validation = "linux"
rtt_estimator = "linux"
timer_hz = 250
prr_window = "linux"
prr_bound = "safe_ack"
receive_window = "linux"
reduction_base = "cwnd"
sack_next_seg = "linux"
loss_detection = "rack"
push_flag = "linux"
recovery_exit = "above_recover"
reordering = "linux"
frto = true
"#;

/// Every key the ns2 profile sets, one by one (ns-2.35's defaults).
const NS2_KEYS: &str = r#"
window_growth = "per_ack"
limited_transmit = true
partial_ack_timer = "first"
timeout_threshold = "always"
recovery_pacing = "inflation"
fast_recovery_inflation = true
recovery_exit_growth = true
fast_retransmit_timer = "restart"
repeat_fast_retransmit = false
delayed_ack_timeout = "100ms"
ack_every = 2
quick_acks = 0
initial_cwnd = 2
rto_initial = "3s"
rto_min = "200ms"
rto_max = "60s"
clock_granularity = "10ms"
send_buffer = "unlimited"
cwnd_validation = "none"
rtt_estimator = "rfc6298"
timer_hz = 0
prr_window = "ssthresh"
prr_bound = "ssrb"
receive_window = "fixed"
reduction_base = "flight_size"
sack_next_seg = "rfc6675"
loss_detection = "dupthresh"
push_flag = "none"
recovery_exit = "at_recover"
reordering = "fixed"
frto = false
"#;

#[test]
fn the_linux_profile_is_exactly_its_keys_set_one_by_one() {
    for cc in ["reno", "westwood", "westwood-plus", "newreno"] {
        let sets = [("cc", cc)];
        let profile = load_with(&text("profile = \"linux\"", ""), &sets).unwrap();
        let keys = load_with(&text(LINUX_KEYS, ""), &sets).unwrap();
        assert_eq!(profile, keys, "{cc}");
        let t = &profile.flows[0].tcp;
        assert_eq!(t.recovery, Recovery::NewReno, "{cc}: Linux has no plain Reno recovery");
        assert_eq!((t.window_growth, t.recovery_pacing), (WindowGrowth::Linux, RecoveryPacing::Prr));
        assert_eq!(t.initial_cwnd, 4000);
        // And it differs from the defaults (the comparison can fail).
        assert_ne!(profile, load_with(&text("", ""), &sets).unwrap(), "{cc}");
    }
    // A SACK (or Tahoe) flow keeps its recovery: the one-by-one version leaves `recovery` out.
    let one_by_one = LINUX_KEYS.replace("recovery = \"newreno\"\n", "");
    for cc in ["sack", "cubic", "tahoe"] {
        let sets = [("cc", cc)];
        let profile = load_with(&text("profile = \"linux\"", ""), &sets).unwrap();
        assert_eq!(profile, load_with(&text(&one_by_one, ""), &sets).unwrap(), "{cc}");
    }
    // Also as --set tcp.profile=linux, as a flow's own key, and for flows arriving during a run.
    let set = load_with(&text("", ""), &[("tcp.profile", "linux")]).unwrap();
    assert_eq!(set, load_with(&text(LINUX_KEYS, ""), &[]).unwrap());
    let flow = load_with(&text("", "profile = \"Linux\""), &[]).unwrap();
    assert_eq!(flow, load_with(&text(LINUX_KEYS, ""), &[]).unwrap());
    let arrivals = |tcp: &str| {
        let t = format!(
            "{}\n[flows.g]\nfrom = \"a\"\nto = \"c\"\narrivals = {{ mean_interarrival = \"1s\", mean_duration = \"2s\" }}\n",
            text(tcp, "")
        );
        load_with(&t, &[]).unwrap().arrivals[0].tcp.clone()
    };
    assert_eq!(arrivals("profile = \"linux\""), arrivals(LINUX_KEYS));
}

#[test]
fn the_ns2_profile_is_exactly_its_keys_set_one_by_one() {
    for cc in ["reno", "newreno", "westwood", "sack"] {
        let sets = [("cc", cc)];
        let profile = load_with(&text("profile = \"ns2\"", ""), &sets).unwrap();
        assert_eq!(profile, load_with(&text(NS2_KEYS, ""), &sets).unwrap(), "{cc}");
        assert_ne!(profile, load_with(&text("", ""), &sets).unwrap(), "{cc}");
    }
}

#[test]
fn paper_is_no_profile() {
    for cc in [
        "reno",
        "newreno",
        "sack",
        "tahoe",
        "cubic",
        "westwood",
        "westwood-tr",
        "westwood-abse",
        "westwood-plus",
    ] {
        let sets = [("cc", cc)];
        assert_eq!(
            load_with(&text("profile = \"paper\"", ""), &sets).unwrap(),
            load_with(&text("", ""), &sets).unwrap(),
            "{cc}"
        );
    }
    // The committed scenarios, as written.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut checked = 0;
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
        let plain = load_file(path, &[]).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        if !text.contains("\n[tcp]") {
            continue;
        }
        let paper = load_file(path, &[("tcp.profile".into(), "paper".into())]).unwrap();
        assert_eq!(paper, plain, "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 3, "{checked} scenario files with a [tcp] table");
}

#[test]
fn a_key_set_anywhere_wins_over_the_profile_each_key_on_its_own() {
    let linux = tcp_of(&text("profile = \"linux\"", ""), &[]);
    // [tcp] key beside the profile.
    let t = tcp_of(&text("profile = \"linux\"\nwindow_growth = \"per_ack\"", ""), &[]);
    assert_eq!(t.window_growth, WindowGrowth::PerAck);
    assert_eq!(TcpSpec { window_growth: linux.window_growth, ..t.clone() }, linux, "only that key differs");
    // A [tcp] key wins over a flow's profile, a flow's key over [tcp]'s profile.
    let t = tcp_of(&text("limited_transmit = false", "profile = \"linux\""), &[]);
    assert!(!t.limited_transmit);
    assert_eq!(t.recovery_pacing, RecoveryPacing::Prr);
    let t = tcp_of(&text("profile = \"linux\"", "recovery = \"reno\"\npartial_ack_timer = \"first\""), &[]);
    assert_eq!((t.recovery, t.partial_ack_timer), (Recovery::Reno, PartialAckTimer::First));
    assert_eq!(t.window_growth, WindowGrowth::Linux);
    // --set wins like any explicit key, in either order with the profile.
    for sets in [
        [("tcp.profile", "linux"), ("tcp.recovery_pacing", "inflation")],
        [("tcp.recovery_pacing", "inflation"), ("tcp.profile", "linux")],
    ] {
        let t = tcp_of(&text("", ""), &sets);
        assert_eq!((t.recovery_pacing, t.window_growth), (RecoveryPacing::Inflation, WindowGrowth::Linux));
    }
    // The delayed-ACK and RTO keys one at a time; Linux's clock granularity is its rto_min,
    // whichever decided that.
    let t = tcp_of(&text("profile = \"linux\"\ndelayed_ack_timeout = \"100ms\"\nrto_min = \"1s\"", ""), &[]);
    assert_eq!(t.delayed_ack.timeout, 100_000_000);
    assert_eq!((t.delayed_ack.quick_acks, t.delayed_ack.every_segments), (16, 2));
    assert_eq!((t.rto.min, t.rto.granularity, t.rto.max), (1_000_000_000, 1_000_000_000, 120_000_000_000));
    let t = tcp_of(&text("profile = \"linux\"\nclock_granularity = \"1ms\"", ""), &[]);
    assert_eq!((t.rto.min, t.rto.granularity), (200_000_000, 1_000_000));
    // initial_cwnd: an explicit "rfc5681" is a value like any other.
    let t = tcp_of(&text("profile = \"linux\"\ninitial_cwnd = \"rfc5681\"", ""), &[]);
    assert_eq!(t.initial_cwnd, 1600);
    // A parameter may name the profile.
    let t = text("profile = \"${p}\"", "").replace("cc = \"reno\"\n", "cc = \"reno\"\np = \"paper\"\n");
    assert_eq!(tcp_of(&t, &[("p", "linux")]), linux);
    assert_eq!(tcp_of(&t, &[]), tcp_of(&text("", ""), &[]));
}

#[test]
fn the_new_keys_parse_alone() {
    let t = tcp_of(
        &text(
            "partial_ack_timer = \"Every\"\nrecovery_pacing = \"PRR\"\nfast_recovery_inflation = false\nquick_acks = 8",
            "",
        ),
        &[],
    );
    assert_eq!((t.partial_ack_timer, t.recovery_pacing), (PartialAckTimer::Every, RecoveryPacing::Prr));
    assert_eq!(t.fast_recovery_inflation, Inflation::Off);
    assert_eq!(t.delayed_ack.quick_acks, 8);
    // Defaults: today's behaviour.
    let t = tcp_of(&text("", ""), &[]);
    assert_eq!((t.partial_ack_timer, t.recovery_pacing), (PartialAckTimer::First, RecoveryPacing::Inflation));
    assert_eq!(t.fast_recovery_inflation, Inflation::Standard);
    assert!(!t.recovery_exit_growth && t.repeat_fast_retransmit);
    assert_eq!(t.fast_retransmit_timer, FastRetransmitTimer::Running);
    let t = tcp_of(
        &text(
            "fast_recovery_inflation = \"Later_Dupacks\"\nrecovery_exit_growth = true\nfast_retransmit_timer = \"restart\"\nrepeat_fast_retransmit = false",
            "",
        ),
        &[],
    );
    assert_eq!(t.fast_recovery_inflation, Inflation::LaterDupacks);
    assert!(t.recovery_exit_growth && !t.repeat_fast_retransmit);
    assert_eq!(t.fast_retransmit_timer, FastRetransmitTimer::Restart);
    assert_eq!(t.delayed_ack.quick_acks, 0);
    let t = tcp_of(
        &text("", ""),
        &[("tcp.fast_recovery_inflation", "false"), ("tcp.partial_ack_timer", "every")],
    );
    assert_eq!((t.fast_recovery_inflation, t.partial_ack_timer), (Inflation::Off, PartialAckTimer::Every));
    let t = tcp_of(&text("timeout_threshold = \"New_Episode\"", ""), &[]);
    assert_eq!(t.timeout_threshold, TimeoutThreshold::NewEpisode);
    assert_eq!(tcp_of(&text("", ""), &[]).timeout_threshold, TimeoutThreshold::Always);
    // The linux profile's value yields to the user's.
    let t = tcp_of(&text("profile = \"linux\"", ""), &[("tcp.timeout_threshold", "always")]);
    assert_eq!(t.timeout_threshold, TimeoutThreshold::Always);
}

#[test]
fn bad_values_name_the_file_and_the_field() {
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "profile = \"bsd\"",
            "",
            "tcp.profile",
            &["unknown TCP profile \"bsd\"", "\"paper\", \"ns2\" or \"linux\""],
        ),
        ("profile = 2", "", "tcp.profile", &["expected \"paper\", \"ns2\" or \"linux\"", "the integer 2"]),
        ("", "profile = \"ns3\"", "flows.f.profile", &["unknown TCP profile"]),
        ("partial_ack_timer = \"second\"", "", "tcp.partial_ack_timer", &["\"first\" or \"every\""]),
        ("recovery_pacing = \"rate-halving\"", "", "tcp.recovery_pacing", &["\"inflation\" or \"prr\""]),
        (
            "timeout_threshold = \"never\"",
            "",
            "tcp.timeout_threshold",
            &["unknown timeout-threshold rule \"never\"", "\"always\" or \"new_episode\""],
        ),
        (
            "fast_recovery_inflation = \"no\"",
            "",
            "tcp.fast_recovery_inflation",
            &["unknown fast-recovery inflation \"no\"", "true, false or \"later_dupacks\""],
        ),
        ("fast_recovery_inflation = 1", "", "tcp.fast_recovery_inflation", &["expected true, false or"]),
        (
            "fast_retransmit_timer = \"stop\"",
            "",
            "tcp.fast_retransmit_timer",
            &["unknown fast-retransmit timer rule \"stop\"", "\"running\" or \"restart\""],
        ),
        ("recovery_exit_growth = \"yes\"", "", "tcp.recovery_exit_growth", &["expected true or false"]),
        ("preamble = \"400B\"", "", "tcp.preamble", &["less than a segment", "\"37B\""]),
        ("frto = 1", "", "tcp.frto", &["expected true or false"]),
        ("repeat_fast_retransmit = 0", "", "tcp.repeat_fast_retransmit", &["expected true or false"]),
        ("quick_acks = -1", "", "tcp.quick_acks", &["negative"]),
        (
            "send_buffer = \"64KB\"",
            "",
            "tcp.send_buffer",
            &["unknown send buffer \"64KB\"", "\"unlimited\" or \"linux\""],
        ),
        ("quick_acks = \"many\"", "", "tcp.quick_acks", &["not an integer"]),
        (
            "profile = \"linux\"\nrto_min = \"200s\"",
            "",
            "tcp.rto_min",
            &["rto_max (120s, from profile linux)"],
        ),
        (
            "profile = \"linux\"\nrto_max = \"100ms\"",
            "",
            "tcp.rto_max",
            &["rto_min (200ms, from profile linux)"],
        ),
    ];
    for &(tcp, flow, field, parts) in cases {
        let e = load_with(&text(tcp, flow), &[]).expect_err(tcp);
        assert_eq!((e.file.as_str(), e.field.as_str()), ("t.toml", field), "{e}");
        assert!(e.to_string().starts_with(&format!("t.toml: {field}: ")), "{e}");
        for part in parts {
            assert!(e.message.contains(part), "{part:?} not in {e}");
        }
    }
    // By --set: the field is where the value landed.
    let e = load_with(&text("", ""), &[("tcp.profile", "freebsd")]).unwrap_err();
    assert_eq!(e.field, "tcp.profile", "{e}");
    // An unknown key still lists the allowed ones, the new keys among them.
    let e = load_with(&text("profiles = \"linux\"", ""), &[]).unwrap_err();
    assert_eq!(e.field, "tcp.profiles");
    for key in ["profile", "partial_ack_timer", "recovery_pacing", "fast_recovery_inflation", "quick_acks"] {
        assert!(e.message.contains(key), "{key} not in {e}");
    }
}
