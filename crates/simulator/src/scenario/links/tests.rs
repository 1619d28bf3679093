//! The `queue` (RED) and `errors` (Gilbert-Elliott, outage, arrays of models) keys.

use crate::model::{ErrorSpec, QueueLimit, QueueSpec, RedSpec};
use crate::network::loss::bernoulli;
use crate::network::loss::gilbert_elliott::{self, GilbertElliottSpec};
use crate::network::loss::outage::{self, OutageOffset, OutageSpec};
use crate::scenario::{load_str, ScenarioError};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// A two-node scenario whose link `ab` gets the extra `link` lines.
fn text(link: &str) -> String {
    format!(
        r#"
[scenario]
duration = "10s"
[topology]
nodes = ["a", "b"]
[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
{link}
[flows.f]
from = "a"
to = "b"
"#
    )
}

fn load(link: &str) -> Result<crate::model::Scenario, ScenarioError> {
    load_str(&text(link), "t.toml", &[])
}

fn queue(form: &str) -> Result<QueueSpec, ScenarioError> {
    Ok(load(&format!("queue = {form}"))?.links[0].queue)
}

/// (forward, reverse) error models.
fn errors(form: &str) -> Result<(Option<ErrorSpec>, Option<ErrorSpec>), ScenarioError> {
    let s = load(&format!("errors = {form}"))?;
    Ok((s.links[0].errors.clone(), s.links[1].errors.clone()))
}

#[track_caller]
fn fails<T: std::fmt::Debug>(result: Result<T, ScenarioError>, field: &str, parts: &[&str]) {
    let e = result.expect_err("expected a scenario error");
    assert_eq!(e.field, field, "{e}");
    for part in parts {
        assert!(e.message.contains(part), "{e:?} should mention {part:?}");
    }
}

#[test]
fn red_queue_with_every_key_and_with_defaults() {
    let red = queue(
        r#"{ type = "red", limit = "bdp", min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002, gentle = false }"#,
    )
    .unwrap();
    let defaults = RedSpec::with_limit(QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 });
    assert_eq!(red, QueueSpec::Red(defaults));
    assert_eq!(queue(r#"{ type = "RED" }"#).unwrap(), QueueSpec::Red(defaults));
    assert_eq!((defaults.min_th, defaults.max_th, defaults.max_p, defaults.w_q), (5.0, 15.0, 0.1, 0.002));
    assert!(!defaults.gentle && defaults.mean_packet_size.is_none());

    let custom = queue(
        r#"{ type = "red", limit = 60, min_th = "2.5pkt", max_th = 30.5, max_p = "2%", w_q = "0.01", gentle = true, mean_packet_size = "500B", rtt = "40ms" }"#,
    );
    // rtt only goes with a bdp limit.
    fails(custom, "links.ab.queue.rtt", &["only applies when the limit is \"bdp\""]);
    let custom = queue(
        r#"{ type = "red", limit = 60, min_th = "2.5pkt", max_th = 30.5, max_p = "2%", w_q = "0.01", gentle = true, mean_packet_size = "500B" }"#,
    )
    .unwrap();
    assert_eq!(
        custom,
        QueueSpec::Red(RedSpec {
            limit: QueueLimit::Packets(60),
            min_th: 2.5,
            max_th: 30.5,
            max_p: 0.02,
            w_q: 0.01,
            gentle: true,
            mean_packet_size: Some(500),
        })
    );
    let auto = queue(r#"{ type = "red", rtt = "100ms", mean_packet_size = "auto", min_th = 0 }"#).unwrap();
    let QueueSpec::Red(auto) = auto else { panic!() };
    assert_eq!(auto.limit, QueueLimit::BandwidthDelayProduct { rtt: Some(100 * MS), min: 1 });
    assert_eq!((auto.min_th, auto.mean_packet_size), (0.0, None));
    // Both halves of a duplex link get the same queue; drop-tail stays the default.
    let s = load(r#"queue = { type = "red", limit = "64KB" }"#).unwrap();
    assert_eq!(s.links[0].queue, s.links[1].queue);
    assert_eq!(
        load("").unwrap().links[0].queue,
        QueueSpec::DropTail(QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 })
    );
}

#[test]
fn red_queue_errors() {
    fails(
        queue(r#"{ type = "red", maxth = 10 }"#),
        "links.ab.queue.maxth",
        &["unknown key", "max_th, max_p"],
    );
    fails(queue(r#"{ type = "fifo" }"#), "links.ab.queue.type", &["\"droptail\" or \"red\""]);
    fails(queue(r#"{ min_th = 3 }"#), "links.ab.queue.min_th", &["only applies to RED", "type = \"red\""]);
    fails(
        queue(r#"{ type = "droptail", gentle = true }"#),
        "links.ab.queue.gentle",
        &["only applies to RED"],
    );
    fails(
        queue(r#"{ type = "red", min_th = 10, max_th = 10 }"#),
        "links.ab.queue.max_th",
        &["must be greater than min_th"],
    );
    // The default max_th (15) is below this min_th: reported on min_th.
    fails(
        queue(r#"{ type = "red", min_th = 20 }"#),
        "links.ab.queue.min_th",
        &["must be greater than min_th"],
    );
    fails(queue(r#"{ type = "red", min_th = -1 }"#), "links.ab.queue.min_th", &["negative"]);
    fails(
        queue(r#"{ type = "red", max_th = "lots" }"#),
        "links.ab.queue.max_th",
        &["not a number of packets"],
    );
    fails(queue(r#"{ type = "red", max_p = 1.5 }"#), "links.ab.queue.max_p", &["not a probability"]);
    fails(queue(r#"{ type = "red", max_p = "-1%" }"#), "links.ab.queue.max_p", &[]);
    fails(queue(r#"{ type = "red", w_q = 0 }"#), "links.ab.queue.w_q", &["(0, 1]"]);
    fails(queue(r#"{ type = "red", w_q = 1.5 }"#), "links.ab.queue.w_q", &["(0, 1]"]);
    fails(queue(r#"{ type = "red", w_q = "fast" }"#), "links.ab.queue.w_q", &["not a number"]);
    fails(queue(r#"{ type = "red", gentle = "yes" }"#), "links.ab.queue.gentle", &["true or false"]);
    fails(
        queue(r#"{ type = "red", mean_packet_size = "0B" }"#),
        "links.ab.queue.mean_packet_size",
        &["1 byte"],
    );
    fails(
        queue(r#"{ type = "red", mean_packet_size = 500 }"#),
        "links.ab.queue.mean_packet_size",
        &["\"auto\""],
    );
    fails(queue(r#"{ type = "red", limit = "some" }"#), "links.ab.queue.limit", &["not a valid queue limit"]);
}

#[test]
fn gilbert_elliott_model() {
    let ge = |loss_good, loss_bad, start_stationary| {
        Some(ErrorSpec::one(gilbert_elliott::setting(GilbertElliottSpec {
            mean_good: 8 * S,
            mean_bad: 4 * S,
            loss_good,
            loss_bad,
            start_stationary,
        })))
    };
    let full = r#"{ model = "gilbert-elliott", mean_good = "8s", mean_bad = "4s", loss_good = "0%", loss_bad = "100%", direction = "both" }"#;
    assert_eq!(errors(full).unwrap(), (ge(0.0, 1.0, false), ge(0.0, 1.0, false)));
    // Defaults: loss_good 0, loss_bad 1 (a blackout), start in Good, both directions.
    let short = r#"{ model = "Gilbert-Elliott", mean_good = "8s", mean_bad = "4000ms" }"#;
    assert_eq!(errors(short).unwrap(), (ge(0.0, 1.0, false), ge(0.0, 1.0, false)));
    let fading = r#"{ model = "gilbert_elliott", mean_good = "8s", mean_bad = "4s", loss_good = "0.001%", loss_bad = 0.05, start = "stationary", direction = "forward" }"#;
    assert_eq!(errors(fading).unwrap(), (ge(0.00001, 0.05, true), None));
    // Both losses 0: no model, like a rate of 0.
    let silent = r#"{ model = "gilbert-elliott", mean_good = "8s", mean_bad = "4s", loss_bad = 0 }"#;
    assert_eq!(errors(silent).unwrap(), (None, None));
}

#[test]
fn gilbert_elliott_errors() {
    let base = r#"model = "gilbert-elliott", mean_good = "8s", mean_bad = "4s""#;
    let with = |extra: &str| errors(&format!("{{ {base}, {extra} }}"));
    fails(with("rate = \"1%\""), "links.ab.errors.rate", &["unknown key", "mean_good, mean_bad, loss_good"]);
    fails(
        errors(r#"{ model = "gilbert-elliott", mean_good = "0s", mean_bad = "4s" }"#),
        "links.ab.errors.mean_good",
        &["at least 1us"],
    );
    fails(
        errors(r#"{ model = "gilbert-elliott", mean_good = "8s", mean_bad = 0 }"#),
        "links.ab.errors.mean_bad",
        &["at least 1us"],
    );
    fails(
        errors(r#"{ model = "gilbert-elliott", mean_good = "8s", mean_bad = "-4s" }"#),
        "links.ab.errors.mean_bad",
        &[],
    );
    fails(
        errors(r#"{ model = "gilbert-elliott", mean_bad = "4s" }"#),
        "links.ab.errors.mean_good",
        &["missing required key"],
    );
    fails(with("loss_bad = \"150%\""), "links.ab.errors.loss_bad", &["probability"]);
    fails(with("loss_good = -0.1"), "links.ab.errors.loss_good", &["not a probability"]);
    fails(with("start = \"bad\""), "links.ab.errors.start", &["\"good\" or \"stationary\""]);
    fails(with("direction = \"up\""), "links.ab.errors.direction", &["\"forward\", \"reverse\" or \"both\""]);
}

#[test]
fn outage_model() {
    let outage = |offset| {
        Some(ErrorSpec::one(outage::setting(OutageSpec {
            period: 4 * S,
            duration: 100 * MS,
            offset: OutageOffset::At(offset),
        })))
    };
    let full = r#"{ model = "outage", period = "4s", duration = "100ms", offset = "0s" }"#;
    assert_eq!(errors(full).unwrap(), (outage(0), outage(0)));
    let later =
        r#"{ model = "outage", period = "4s", duration = "100ms", offset = "2.5s", direction = "reverse" }"#;
    assert_eq!(errors(later).unwrap(), (None, outage(2_500 * MS)));
    let no_offset = r#"{ model = "outage", period = "4s", duration = "100ms" }"#;
    assert_eq!(errors(no_offset).unwrap().0, outage(0));

    fails(
        errors(r#"{ model = "outage", period = "4s", duration = "4s" }"#),
        "links.ab.errors.duration",
        &["must be shorter than the period 4s"],
    );
    fails(
        errors(r#"{ model = "outage", period = "100ms", duration = "1s" }"#),
        "links.ab.errors.duration",
        &["shorter than the period"],
    );
    fails(
        errors(r#"{ model = "outage", period = 0, duration = "1ms" }"#),
        "links.ab.errors.period",
        &["at least 1us"],
    );
    fails(
        errors(r#"{ model = "outage", period = "4s", duration = "0ms" }"#),
        "links.ab.errors.duration",
        &["greater than zero"],
    );
    fails(
        errors(r#"{ model = "outage", duration = "1ms" }"#),
        "links.ab.errors.period",
        &["missing required key"],
    );
    fails(
        errors(r#"{ model = "outage", period = "4s", duration = "1ms", rate = "1%" }"#),
        "links.ab.errors.rate",
        &["unknown key", "period, duration, offset"],
    );
    fails(
        errors(r#"{ model = "outage", period = "4s", duration = "1ms", offset = "soon" }"#),
        "links.ab.errors.offset",
        &["or \"random\""],
    );
    // A random phase: drawn when the link is built, not by the loader.
    let random = r#"{ model = "outage", period = "4s", duration = "100ms", offset = "Random" }"#;
    let spec = Some(ErrorSpec::one(outage::setting(OutageSpec {
        period: 4 * S,
        duration: 100 * MS,
        offset: OutageOffset::Random,
    })));
    assert_eq!(errors(random).unwrap(), (spec.clone(), spec));
}

#[test]
fn arrays_of_models_combine_per_direction() {
    let handoffs =
        outage::setting(OutageSpec { period: 4 * S, duration: 100 * MS, offset: OutageOffset::At(0) });
    let both = r#"[ { model = "outage", period = "4s", duration = "100ms" },
                   { model = "bernoulli", rate = "0.1%", direction = "forward" } ]"#;
    assert_eq!(
        errors(both).unwrap(),
        (
            Some(ErrorSpec { models: vec![handoffs.clone(), bernoulli::setting(0.001)] }),
            Some(ErrorSpec::one(handoffs.clone()))
        )
    );
    // One element: the model itself. Empty, or only zero rates: none.
    assert_eq!(
        errors(r#"[ { model = "bernoulli", rate = "1%" } ]"#).unwrap().0,
        Some(ErrorSpec::one(bernoulli::setting(0.01)))
    );
    assert_eq!(errors("[]").unwrap(), (None, None));
    assert_eq!(
        errors(r#"[ { model = "ber", rate = 0 }, { model = "bernoulli", rate = "0%" } ]"#).unwrap(),
        (None, None)
    );

    fails(
        errors(r#"[ { model = "bernoulli", rate = "1%" }, "outage" ]"#),
        "links.ab.errors[1]",
        &["expected a table"],
    );
    fails(
        errors(r#"[ { model = "bernoulli", rate = "1%" }, { rate = "1%" } ]"#),
        "links.ab.errors[1].model",
        &["missing required key"],
    );
    fails(errors(r#"[ { model = "bernoulli", rate = "2" } ]"#), "links.ab.errors[0].rate", &[]);
    fails(
        errors(r#"[ { model = "fading" } ]"#),
        "links.ab.errors[0].model",
        &["unknown error model \"fading\"", "\"outage\""],
    );
    fails(errors(r#"[ { model = "fading", sigma = 1 } ]"#), "links.ab.errors[0].sigma", &["unknown key"]);
    fails(errors(r#""1%""#), "links.ab.errors", &["or an array of such tables"]);
    let simplex = "duplex = false\nerrors = [ { model = \"bernoulli\", rate = \"1%\" }, \
                   { model = \"outage\", period = \"1s\", duration = \"1ms\", direction = \"reverse\" } ]";
    fails(load(simplex), "links.ab.errors[1].direction", &["needs a duplex link"]);
}

#[test]
fn errors_and_queue_can_be_set_from_the_command_line() {
    let sets = [
        ("links.ab.errors".to_string(), r#"[{ model = "outage", period = "4s", duration = "100ms" }, { model = "bernoulli", rate = "0.1%" }]"#.to_string()),
        ("links.ab.queue".to_string(), r#"{ type = "red", limit = 50, gentle = true }"#.to_string()),
    ];
    let s = load_str(&text(""), "t.toml", &sets).unwrap();
    assert!(matches!(&s.links[0].errors, Some(ErrorSpec { models: parts }) if parts.len() == 2));
    let QueueSpec::Red(red) = s.links[0].queue else { panic!("{:?}", s.links[0].queue) };
    assert_eq!((red.limit, red.gentle), (QueueLimit::Packets(50), true));
}
