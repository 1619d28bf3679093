//! The committed scenario files load, with and without overrides, into the expected model.

use std::path::PathBuf;

use westwood_algorithms::WindowConfig;

use westwood_simulator::model::{CcSpec, ErrorSpec, FlowStart, QueueLimit, QueueSpec, Scenario};
use westwood_simulator::network::loss::{bernoulli, bit_error};
use westwood_simulator::scenario::{load_file, ScenarioError};
use westwood_simulator::tcp::Recovery;

fn scenario_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name)
}

fn load(name: &str, sets: &[(&str, &str)]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load_file(&scenario_path(name), &sets)
}

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;
const BDP: QueueSpec = QueueSpec::DropTail(QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 });

fn link<'a>(s: &'a Scenario, name: &str) -> &'a westwood_simulator::model::LinkSpec {
    s.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
}

fn node(s: &Scenario, i: usize) -> &str {
    &s.nodes[i].name
}

#[test]
fn scenario_file_wireless_defaults() {
    let s = load("wireless.toml", &[]).unwrap();
    assert_eq!(s.name, "wireless");
    assert_eq!((s.duration, s.seed, s.sample_interval), (100 * S, 1, 10 * MS));
    let params: Vec<(&str, &str)> = s.parameters.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        params,
        [
            ("cc", "reno"),
            ("loss", "0%"),
            ("wired_delay", "45ms"),
            ("wireless_rate", "2Mbps"),
            ("duration", "100s"),
        ]
    );
    let nodes: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(nodes, ["src", "base", "mobile"]);

    let links: Vec<(&str, &str, &str, u64, u64)> = s
        .links
        .iter()
        .map(|l| (l.name.as_str(), node(&s, l.from), node(&s, l.to), l.rate_bps, l.delay))
        .collect();
    assert_eq!(
        links,
        [
            ("wired", "src", "base", 10_000_000, 45 * MS),
            ("wired.reverse", "base", "src", 10_000_000, 45 * MS),
            ("wireless", "base", "mobile", 2_000_000, 10_000),
            ("wireless.reverse", "mobile", "base", 2_000_000, 10_000),
        ]
    );
    // One bandwidth-delay product, never fewer than 4 packets (the file says why).
    let floored = QueueSpec::DropTail(QueueLimit::BandwidthDelayProduct { rtt: None, min: 4 });
    for l in &s.links {
        assert_eq!(l.queue, floored, "{}", l.name);
        assert_eq!(l.errors, None, "{}: loss 0% means no error model", l.name);
    }

    assert_eq!(s.flows.len(), 1);
    let f = &s.flows[0];
    assert_eq!((f.name.as_str(), node(&s, f.src), node(&s, f.dst)), ("ftp", "src", "mobile"));
    assert_eq!((f.start, f.stop), (FlowStart::At(0), None));
    let t = &f.tcp;
    assert_eq!((t.cc_name.as_str(), &t.cc, t.recovery), ("reno", &CcSpec::named("reno"), Recovery::Reno));
    assert_eq!((t.segment_size, t.header_size, t.receiver_window), (400, 40, 1_000_000));
    assert_eq!(t.initial_cwnd, WindowConfig::rfc5681_initial_window(400));
    assert_eq!(t.initial_cwnd, 1_600);
    assert_eq!(t.initial_ssthresh, u64::MAX / 4);
    assert_eq!(t.dupack_threshold, 3);
    assert_eq!((t.rto.initial, t.rto.min, t.rto.max, t.rto.granularity), (S, S, 60 * S, MS));
    assert!(t.delayed_ack.enabled);
    assert_eq!((t.delayed_ack.timeout, t.delayed_ack.every_segments), (100 * MS, 2));
}

#[test]
fn scenario_file_wireless_loss_override_sets_both_directions() {
    let s = load("wireless.toml", &[("loss", "1%")]).unwrap();
    assert_eq!(link(&s, "wireless").errors, Some(ErrorSpec::one(bernoulli::setting(0.01))));
    assert_eq!(link(&s, "wireless.reverse").errors, Some(ErrorSpec::one(bernoulli::setting(0.01))));
    assert_eq!(link(&s, "wired").errors, None);
    assert_eq!(link(&s, "wired.reverse").errors, None);
    assert!(s.parameters.contains(&("loss".to_string(), "1%".to_string())));
}

#[test]
fn scenario_file_wireless_field_and_parameter_overrides() {
    let s = load("wireless.toml", &[("links.wired.delay", "100ms")]).unwrap();
    assert_eq!(link(&s, "wired").delay, 100 * MS);
    assert_eq!(link(&s, "wired.reverse").delay, 100 * MS);
    // The parameter keeps its declared value: the field no longer references it.
    assert!(s.parameters.contains(&("wired_delay".to_string(), "45ms".to_string())));

    let s = load(
        "wireless.toml",
        &[
            ("wired_delay", "250ms"),
            ("wireless_rate", "8Mbps"),
            ("cc", "newreno"),
            ("duration", "20s"),
            ("tcp.segment_size", "360B"),
            ("scenario.seed", "7"),
        ],
    )
    .unwrap();
    assert_eq!(link(&s, "wired").delay, 250 * MS);
    assert_eq!(link(&s, "wireless.reverse").rate_bps, 8_000_000);
    assert_eq!((s.duration, s.seed), (20 * S, 7));
    let t = &s.flows[0].tcp;
    assert_eq!((t.cc_name.as_str(), t.recovery, t.segment_size), ("newreno", Recovery::NewReno, 360));

    // The Snoop/ELN comparison of §5.1: a bit error rate instead of a packet error rate.
    let s =
        load("wireless.toml", &[("links.wireless.errors", "{ model = \"ber\", rate = \"1 bit in 64KB\" }")])
            .unwrap();
    let ber = Some(ErrorSpec::one(bit_error::setting(1.0 / (8.0 * 64_000.0))));
    assert_eq!(link(&s, "wireless").errors, ber);
    assert_eq!(link(&s, "wireless.reverse").errors, ber);
}

#[test]
fn scenario_file_wireless_bad_overrides_are_reported() {
    let e = load("wireless.toml", &[("los", "1%")]).unwrap_err();
    assert!(e.file.ends_with("wireless.toml"), "{e}");
    assert_eq!(e.field, "--set los");
    assert!(e.message.contains("cc, loss, wired_delay, wireless_rate, duration"), "{e}");

    let e = load("wireless.toml", &[("wireless_rate", "-10Mbps")]).unwrap_err();
    assert_eq!(e.field, "links.wireless.rate");
    assert!(e.to_string().ends_with(
        "wireless.toml: links.wireless.rate: \"-10Mbps\" is not a valid rate: expected a positive rate like \"10Mbps\""
    ), "{e}");

    let e = load("wireless.toml", &[("loss", "6")]).unwrap_err();
    assert_eq!(e.field, "links.wireless.errors.rate");

    let e = load("wireless.toml", &[("links.satellite.delay", "1ms")]).unwrap_err();
    assert_eq!(e.field, "--set links.satellite.delay");

    let e = load("wireless.toml", &[("cc", "vegas")]).unwrap_err();
    assert_eq!(e.field, "tcp.cc");
}

#[test]
fn scenario_file_dumbbell_defaults() {
    let s = load("dumbbell.toml", &[]).unwrap();
    assert_eq!(s.name, "dumbbell");
    assert_eq!(s.duration, 60 * S);
    let params: Vec<(&str, &str)> = s.parameters.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        params,
        [("flows", "10"), ("cc", "newreno"), ("rate", "45Mbps"), ("delay", "100ms"), ("duration", "60s")]
    );
    let links: Vec<(&str, &str, &str, u64, u64)> = s
        .links
        .iter()
        .map(|l| (l.name.as_str(), node(&s, l.from), node(&s, l.to), l.rate_bps, l.delay))
        .collect();
    assert_eq!(
        links,
        [
            ("access_left", "senders", "left", 1_000_000_000, MS),
            ("access_left.reverse", "left", "senders", 1_000_000_000, MS),
            ("bottleneck", "left", "right", 45_000_000, 100 * MS),
            ("bottleneck.reverse", "right", "left", 45_000_000, 100 * MS),
            ("access_right", "right", "receivers", 1_000_000_000, MS),
            ("access_right.reverse", "receivers", "right", 1_000_000_000, MS),
        ]
    );
    assert_eq!(link(&s, "bottleneck").queue, BDP);
    assert!(s.links.iter().all(|l| l.errors.is_none()));

    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    let expected: Vec<String> = (1..=10).map(|i| format!("bulk.{i}")).collect();
    assert_eq!(names, expected);
    for f in &s.flows {
        assert_eq!(
            (node(&s, f.src), node(&s, f.dst), f.start, f.stop),
            ("senders", "receivers", FlowStart::At(0), None)
        );
        let t = &f.tcp;
        assert_eq!((t.cc_name.as_str(), t.recovery), ("newreno", Recovery::NewReno));
        assert_eq!((t.segment_size, t.header_size, t.receiver_window), (1000, 40, 16_000_000));
    }
}

#[test]
fn scenario_file_dumbbell_overrides() {
    let s = load("dumbbell.toml", &[("flows", "1"), ("rate", "10Mbps"), ("delay", "20ms"), ("cc", "reno")])
        .unwrap();
    assert_eq!(s.flows.len(), 1);
    assert_eq!(s.flows[0].name, "bulk", "a single flow keeps the table's name");
    assert_eq!(s.flows[0].tcp.recovery, Recovery::Reno);
    assert_eq!((link(&s, "bottleneck").rate_bps, link(&s, "bottleneck").delay), (10_000_000, 20 * MS));

    let s = load("dumbbell.toml", &[("flows", "25")]).unwrap();
    assert_eq!(s.flows.len(), 25);
    assert_eq!(s.flows[24].name, "bulk.25");

    let s = load("dumbbell.toml", &[("links.bottleneck.queue", "100")]).unwrap();
    assert_eq!(link(&s, "bottleneck").queue, QueueSpec::DropTail(QueueLimit::Packets(100)));
    assert_eq!(link(&s, "bottleneck.reverse").queue, QueueSpec::DropTail(QueueLimit::Packets(100)));

    let e = load("dumbbell.toml", &[("flows", "0")]).unwrap_err();
    assert_eq!(e.field, "flows.bulk.count");
    let e = load("dumbbell.toml", &[("flows", "many")]).unwrap_err();
    assert_eq!(e.field, "flows.bulk.count");
    assert!(e.message.contains("not an integer"), "{e}");
}

#[test]
fn scenario_file_docs_example_loads() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenarios.md");
    let text = std::fs::read_to_string(docs).unwrap();
    let start = text.find("```toml\n").expect("a toml example in docs/scenarios.md") + 8;
    let example = &text[start..start + text[start..].find("```").unwrap()];
    let s = westwood_simulator::scenario::load_str(example, "wireless.toml", &[]).unwrap();
    assert_eq!(s.name, "wireless");
    assert_eq!(s.links.len(), 4);
    assert_eq!(s.flows[0].tcp.segment_size, 400);
    let sets =
        [("loss".to_string(), "1%".to_string()), ("links.wired.delay".to_string(), "100ms".to_string())];
    let s = westwood_simulator::scenario::load_str(example, "wireless.toml", &sets).unwrap();
    assert_eq!(link(&s, "wireless.reverse").errors, Some(ErrorSpec::one(bernoulli::setting(0.01))));
    assert_eq!(link(&s, "wired.reverse").delay, 100 * MS);
}
