//! End-to-end tests of the loader: parse, override, substitute, validate.

use westwood_algorithms::WindowConfig;

use crate::tcp::Recovery;

use super::*;
use crate::model::{CcSpec, ErrorSpec, FlowStart, Nanos, QueueLimit, QueueSpec};
use crate::network::loss::{bernoulli, bit_error};

const BASE: &str = r#"
[scenario]
description = "test"
duration = "${duration}"

[parameters]
duration = "10s"
loss = "0%"
cc = "reno"
flows = 1

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
errors = { model = "bernoulli", rate = "${loss}" }

[flows.f]
from = "a"
to = "c"
cc = "${cc}"
count = "${flows}"
"#;

fn load(text: &str) -> Result<Scenario, ScenarioError> {
    load_str(text, "t.toml", &[])
}

fn load_with(text: &str, sets: &[(&str, &str)]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load_str(text, "t.toml", &sets)
}

/// BASE with `old` replaced by `new` (which must occur exactly once).
fn edit(old: &str, new: &str) -> String {
    assert_eq!(BASE.matches(old).count(), 1, "{old:?} must occur once in BASE");
    BASE.replacen(old, new, 1)
}

/// Loads the text, expects an error on `field` whose message contains every one of `parts`.
#[track_caller]
fn fails(text: &str, field: &str, parts: &[&str]) -> ScenarioError {
    let e = load(text).expect_err("expected a scenario error");
    assert_eq!(e.field, field, "{e}");
    for part in parts {
        assert!(e.message.contains(part), "{part:?} not in {e}");
    }
    e
}

#[test]
fn base_scenario_loads_with_defaults() {
    let s = load(BASE).unwrap();
    assert_eq!(s.name, "t");
    assert_eq!(s.description, "test");
    assert_eq!(s.duration, 10_000_000_000);
    assert_eq!(s.seed, 1);
    assert_eq!(s.sample_interval, 10_000_000);
    let params: Vec<(&str, &str)> = s.parameters.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(params, [("duration", "10s"), ("loss", "0%"), ("cc", "reno"), ("flows", "1")]);
    let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    let links: Vec<(&str, usize, usize)> = s.links.iter().map(|l| (l.name.as_str(), l.from, l.to)).collect();
    assert_eq!(links, [("ab", 0, 1), ("ab.reverse", 1, 0), ("bc", 1, 2), ("bc.reverse", 2, 1)]);
    assert_eq!(s.links[2].rate_bps, 2_000_000);
    assert_eq!(s.links[2].delay, 10_000);
    assert_eq!(s.links[3].delay, 10_000);
    for l in &s.links {
        assert_eq!(l.queue, QueueSpec::DropTail(QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 }));
        assert_eq!(l.errors, None, "a 0% error rate means no error model");
    }
    assert_eq!(s.flows.len(), 1);
    let f = &s.flows[0];
    assert_eq!((f.name.as_str(), f.src, f.dst, f.start, f.stop), ("f", 0, 2, FlowStart::At(0), None));
    let t = &f.tcp;
    assert_eq!((t.cc_name.as_str(), &t.cc, t.recovery), ("reno", &CcSpec::named("reno"), Recovery::Reno));
    assert_eq!((t.segment_size, t.header_size, t.receiver_window), (1000, 40, 1_000_000));
    assert_eq!(t.initial_cwnd, WindowConfig::rfc5681_initial_window(1000));
    assert_eq!(t.initial_ssthresh, u64::MAX / 4);
    assert_eq!(t.dupack_threshold, 3);
    assert_eq!(t.rto, crate::model::RtoSpec::default());
    assert_eq!(t.delayed_ack, crate::model::DelayedAckSpec::default());
}

#[test]
fn error_display() {
    let e = ScenarioError { file: "f.toml".into(), field: "a.b".into(), message: "bad".into() };
    assert_eq!(e.to_string(), "f.toml: a.b: bad");
    let e = ScenarioError { file: "f.toml".into(), field: String::new(), message: "bad".into() };
    assert_eq!(e.to_string(), "f.toml: bad");
    let _: &dyn std::error::Error = &e;
}

#[test]
fn example_message_from_the_format_description() {
    let e = load(&edit("rate = \"10Mbps\"", "rate = \"-10Mbps\"")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.toml: links.ab.rate: \"-10Mbps\" is not a valid rate: expected a positive rate like \"10Mbps\""
    );
}

#[test]
fn invalid_toml_and_unreadable_file() {
    let e = load("[scenario]\nduration = \n").unwrap_err();
    assert_eq!(e.field, "line 2, column 12");
    assert!(e.message.starts_with("invalid TOML"), "{e}");
    let e = load_file(Path::new("/nonexistent/dir/x.toml"), &[]).unwrap_err();
    assert_eq!((e.file.as_str(), e.field.as_str()), ("/nonexistent/dir/x.toml", ""));
    assert!(e.message.contains("cannot read"), "{e}");
}

/// Every "invalid TOML" error, wherever the mistake is, has a location and a reason.
#[track_caller]
fn syntax_error(text: &str) -> ScenarioError {
    let e = load(text).expect_err("expected a TOML error");
    assert!(e.message.starts_with("invalid TOML: "), "{e}");
    assert!(e.message.len() > "invalid TOML: ".len(), "no reason: {e}");
    assert!(e.field.starts_with("line ") && e.field.contains(", column "), "no location: {e}");
    e
}

#[test]
fn a_nul_byte_is_named_at_its_own_line_and_column() {
    // In a comment the parser itself gives no reason at all.
    let e = syntax_error("[scenario]\nduration = \"1s\" # a\0b\n");
    assert_eq!(e.field, "line 2, column 20");
    assert!(e.message.contains("control character NUL (U+0000) is not allowed"), "{e}");
    // In a string, a key and a table header: the parser's own reason would not mention it.
    for (text, field) in [
        ("[scenario]\nname = \"a\0b\"\n", "line 2, column 10"),
        ("[scenario]\na\0 = 1\n", "line 2, column 2"),
        ("[sce\0nario]\n", "line 1, column 5"),
        ("\0", "line 1, column 1"),
    ] {
        let e = syntax_error(text);
        assert_eq!(e.field, field, "{text:?}: {e}");
        assert!(e.message.contains("NUL (U+0000)"), "{text:?}: {e}");
    }
    let e = syntax_error("[scenario]\nname = \"a\x1bb\"\n");
    assert!(e.message.contains("control character ESC (U+001B)"), "{e}");
    // A CR is fine before an LF, not alone.
    let e = load("[scenario]\r\nduration = \"1s\"\r\n").unwrap_err();
    assert_eq!(e.field, "topology", "CR LF line ends parse: {e}");
    let e = syntax_error("[scenario]\r\nname = \"a\"\rx = 1\r\n");
    assert_eq!(e.field, "line 2, column 11");
    assert!(e.message.contains("CR (U+000D) is not allowed on its own"), "{e}");
    // An earlier, unrelated mistake comes first; the control character is mentioned too.
    let e = syntax_error("[scenario]\nduration = \"1s\" x\n# \0\n");
    assert_eq!(e.field, "line 2, column 17");
    assert!(e.message.contains("also at line 3, column 3: control character NUL"), "{e}");
}

#[test]
fn every_syntax_error_has_a_location_and_a_reason() {
    // A NUL or a DEL at every position of a valid file, and the file cut off at every position
    // (the parser's reason is empty for some of these, e.g. after "name =").
    for (i, _) in BASE.char_indices() {
        for bad in ["\0", "\x7f"] {
            let text = format!("{}{bad}{}", &BASE[..i], &BASE[i..]);
            let e = syntax_error(&text);
            assert!(e.message.contains("is not allowed"), "at {i}: {e}");
        }
        if let Err(e) = load(&BASE[..i]) {
            if e.message.starts_with("invalid TOML") {
                syntax_error(&BASE[..i]);
            }
        }
    }
    let e = syntax_error("[scenario]\nduration =");
    assert_eq!(
        e.message,
        "invalid TOML: unexpected end of the file (a value or a closing bracket or quote is missing)"
    );
}

#[test]
fn a_file_that_is_not_utf8_says_where() {
    let dir = std::env::temp_dir().join(format!("westwood-utf8-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.toml");
    // "café" in Latin-1 on line 3: the é is byte 0xE9 at byte offset 38, the 12th character.
    std::fs::write(&path, b"[scenario]\nduration = \"1s\"\nname = \"caf\xe9\"\n").unwrap();
    let e = load_file(&path, &[]).unwrap_err();
    // Cut off in the middle of "€" (E2 82 AC), after an "é" of two bytes: offset 21, column 10.
    std::fs::write(&path, b"[scenario]\nname = \"\xc3\xa9\xe2\x82").unwrap();
    let cut = load_file(&path, &[]).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(e.file, path.display().to_string());
    assert!(e.message.starts_with("not UTF-8 at line 3, column 12 (byte offset 38): byte 0xE9"), "{e}");
    assert!(e.message.contains("re-save the file as UTF-8"), "{e}");
    assert!(cut.message.starts_with("not UTF-8 at line 2, column 10 (byte offset 21)"), "{cut}");
    assert!(cut.message.contains("ends in the middle of a character (bytes 0xE2 0x82)"), "{cut}");
}

#[test]
fn long_values_are_echoed_shortened() {
    let huge = "x".repeat(100_000);
    let short = |e: &ScenarioError| {
        let shown = e.to_string();
        assert!(shown.len() < 400, "{} bytes: {}", shown.len(), &shown[..400]);
        assert!(shown.contains("… (100000 bytes)"), "{shown}");
        shown
    };
    // A value in the file, and the same through an override.
    let e = load(&edit("duration = \"10s\"", &format!("duration = \"{huge}\""))).unwrap_err();
    assert_eq!(e.field, "scenario.duration");
    let shown = short(&e);
    assert!(shown.ends_with("is not a valid duration: expected a non-negative duration like \"10ms\""));
    short(&load_with(BASE, &[("cc", &huge)]).unwrap_err());
    short(&load_with(BASE, &[("links.ab.rate", &huge)]).unwrap_err());
    // A key: both the field path and the message.
    let e = load(&edit("[links.ab]", &format!("[links.ab]\n{huge} = 1"))).unwrap_err();
    assert!(e.field.starts_with("links.ab.xxx") && e.field.len() < 150, "{}", e.field.len());
    short(&e);
    short(&load_with(BASE, &[(huge.as_str(), "1")]).unwrap_err());
    // A key the parser rejects.
    short(&load(&format!("[scenario]\n{huge} = 1\n{huge} = 2\n")).unwrap_err());
    // Short values are quoted whole, as before.
    assert_eq!(echo("10 Mbit"), "\"10 Mbit\"");
    assert_eq!(echo(&"y".repeat(120)), format!("{:?}", "y".repeat(120)));
    // Escapes count as shown: 100 KB of NULs is cut after a few of them.
    assert!(echo(&"\0".repeat(100_000)).len() < 130);
    // Lists of names stop at 20.
    let names: Vec<String> = (1..=30).map(|i| format!("n{i}")).collect();
    assert_eq!(echo_list(&names[..3]), "n1, n2, n3");
    assert!(echo_list(&names).ends_with("n19, n20, … (30 in all)"));
}

#[test]
fn load_file_uses_stem_as_name() {
    let dir = std::env::temp_dir().join(format!("westwood-scenario-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("my_scenario.toml");
    std::fs::write(&path, BASE).unwrap();
    let s = load_file(&path, &[]).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(s.name, "my_scenario");
    let s = load(&edit("description = \"test\"", "name = \"named\"")).unwrap();
    assert_eq!(s.name, "named");
}

#[test]
fn overrides_of_parameters_and_fields() {
    let s = load_with(BASE, &[("loss", "1%"), ("cc", "newreno"), ("duration", "20s")]).unwrap();
    assert_eq!(s.duration, 20_000_000_000);
    assert_eq!(s.links[2].errors, Some(ErrorSpec::one(bernoulli::setting(0.01))));
    assert_eq!(s.links[3].errors, Some(ErrorSpec::one(bernoulli::setting(0.01))));
    assert_eq!(s.flows[0].tcp.cc_name, "newreno");
    assert_eq!(s.flows[0].tcp.recovery, Recovery::NewReno);
    assert_eq!(s.parameters[1], ("loss".to_string(), "1%".to_string()));

    // A number parses as a TOML number: 0.02 is a probability.
    let s = load_with(BASE, &[("parameters.loss", "0.02")]).unwrap();
    assert_eq!(s.links[2].errors, Some(ErrorSpec::one(bernoulli::setting(0.02))));
    assert_eq!(s.parameters[1].1, "0.02");

    // Dotted paths set fields, and win over the parameter reference they replace.
    let s = load_with(BASE, &[("links.ab.delay", "100ms"), ("scenario.duration", "3s")]).unwrap();
    assert_eq!(s.links[0].delay, 100_000_000);
    assert_eq!(s.links[1].delay, 100_000_000);
    assert_eq!(s.duration, 3_000_000_000);
    let s = load_with(BASE, &[("flows.f.segment_size", "400B")]).unwrap();
    assert_eq!(s.flows[0].tcp.segment_size, 400);
    // An override value may itself reference a parameter.
    let s = load_with(BASE, &[("links.bc.errors.rate", "${loss}"), ("loss", "5%")]).unwrap();
    assert_eq!(s.links[2].errors, Some(ErrorSpec::one(bernoulli::setting(0.05))));
}

#[test]
fn override_errors() {
    let e = load_with(BASE, &[("los", "1%")]).unwrap_err();
    assert_eq!(e.field, "--set los");
    assert!(e.message.contains("declared parameters: duration, loss, cc, flows"), "{e}");
    let e = load_with(BASE, &[("tcp.segment_size", "400B")]).unwrap_err();
    assert_eq!(e.field, "--set tcp.segment_size");
    assert!(e.message.contains("no table tcp"), "{e}");
    let e = load_with(BASE, &[("links.xy.rate", "1Mbps")]).unwrap_err();
    assert_eq!(e.field, "--set links.xy.rate");
    // An override that sets an unknown key is caught by validation.
    let e = load_with(BASE, &[("links.ab.speed", "1Mbps")]).unwrap_err();
    assert_eq!(e.field, "links.ab.speed");
    // An override with a bad value names the field it set.
    let e = load_with(BASE, &[("loss", "150%")]).unwrap_err();
    assert_eq!(e.field, "links.bc.errors.rate");
    assert!(e.message.contains("\"150%\" is not a valid probability"), "{e}");
}

#[test]
fn unknown_parameter_reference() {
    let e = fails(
        &edit("delay = \"5ms\"", "delay = \"${nope}\""),
        "links.ab.delay",
        &["unknown parameter \"nope\"", "declared parameters: duration, loss, cc, flows"],
    );
    assert!(e.to_string().starts_with("t.toml: links.ab.delay: "));
}

#[test]
fn interpolated_parameter_text() {
    let text = edit("delay = \"5ms\"", "delay = \"${d}ms\"").replace("flows = 1\n", "flows = 1\nd = 7\n");
    let s = load(&text).unwrap();
    assert_eq!(s.links[0].delay, 7_000_000);
    let s = load_with(&text, &[("d", "0.5")]).unwrap();
    assert_eq!(s.links[0].delay, 500_000);
}

#[test]
fn unknown_keys_list_allowed_keys() {
    fails(
        &format!("{BASE}\n[extra]\n"),
        "extra",
        &["unknown key \"extra\"", "scenario, parameters, topology"],
    );
    fails(
        &edit("description = \"test\"", "descr = \"x\""),
        "scenario.descr",
        &["allowed keys here: name, description, duration"],
    );
    fails(
        &edit("rate = \"10Mbps\"", "rate = \"10Mbps\"\nbandwidth = 1"),
        "links.ab.bandwidth",
        &["from, to, rate, delay"],
    );
    fails(
        &edit("cc = \"${cc}\"", "ccc = \"reno\""),
        "flows.f.ccc",
        &["from, to, start, stop, count, cc, recovery"],
    );
    fails(&format!("{BASE}\n[tcp]\nmss = \"1B\"\n"), "tcp.mss", &["cc, recovery, segment_size"]);
    fails(
        &edit("rate = \"${loss}\" }", "rate = \"${loss}\", burst = 1 }"),
        "links.bc.errors.burst",
        &["model, rate, direction"],
    );
    fails(
        &edit("delay = \"5ms\"", "delay = \"5ms\"\nqueue = { limit = 10, size = 1 }"),
        "links.ab.queue.size",
        &["type, limit, rtt"],
    );
    fails(&edit("nodes = [", "hosts = 1\nnodes = ["), "topology.hosts", &["allowed keys here: nodes"]);
}

#[test]
fn wrong_types() {
    fails(
        &edit("rate = \"10Mbps\"", "rate = 10"),
        "links.ab.rate",
        &["expected a positive rate", "found the integer 10"],
    );
    fails(
        &edit("delay = \"5ms\"", "delay = 5"),
        "links.ab.delay",
        &["expected a duration", "found the integer 5"],
    );
    fails(
        &edit("nodes = [\"a\", \"b\", \"c\"]", "nodes = \"a\""),
        "topology.nodes",
        &["expected an array of node names"],
    );
    fails(
        &edit("nodes = [\"a\", \"b\", \"c\"]", "nodes = [\"a\", 2]"),
        "topology.nodes[1]",
        &["expected a node name string"],
    );
    fails(&edit("[links.ab]", "[links]\nab = 3\n[links.ac]"), "links.ab", &["expected a table"]);
    fails(&edit("description = \"test\"", "seed = \"x\""), "scenario.seed", &["not an integer"]);
    fails(&edit("description = \"test\"", "seed = -1"), "scenario.seed", &["negative"]);
    fails(
        &edit("description = \"test\"", "seed = 1.5"),
        "scenario.seed",
        &["expected a non-negative integer", "found the float 1.5"],
    );
    fails(
        &edit("delay = \"5ms\"", "delay = \"5ms\"\nduplex = \"yes\""),
        "links.ab.duplex",
        &["expected true or false"],
    );
    fails(
        &format!("{BASE}\n[tcp]\nsegment_size = 400\n"),
        "tcp.segment_size",
        &["expected a size with a unit"],
    );
    fails(&format!("{BASE}\n[tcp]\ndelayed_ack = 1\n"), "tcp.delayed_ack", &["expected true or false"]);
    fails(&edit("cc = \"${cc}\"", "cc = 1"), "flows.f.cc", &["expected a congestion control name"]);
    fails(
        &edit("[parameters]", "[parameters]\nlist = [1]"),
        "parameters.list",
        &["must be a string, a number or a boolean"],
    );
}

#[test]
fn malformed_units() {
    fails(&edit("rate = \"10Mbps\"", "rate = \"10MBps\""), "links.ab.rate", &["unknown unit \"MBps\""]);
    fails(&edit("delay = \"5ms\"", "delay = \"5 hours\""), "links.ab.delay", &["unknown unit \"hours\""]);
    fails(&edit("duration = \"10s\"", "duration = \"10\""), "scenario.duration", &["missing unit"]);
    fails(
        &format!("{BASE}\n[tcp]\nreceiver_window = \"64Kb\"\n"),
        "tcp.receiver_window",
        &["sizes are in bytes"],
    );
}

#[test]
fn zero_and_negative_values() {
    fails(&edit("rate = \"10Mbps\"", "rate = \"0Mbps\""), "links.ab.rate", &["expected a positive rate"]);
    fails(&edit("rate = \"10Mbps\"", "rate = \"-10Mbps\""), "links.ab.rate", &["expected a positive rate"]);
    fails(
        &edit("delay = \"5ms\"", "delay = \"-5ms\""),
        "links.ab.delay",
        &["expected a non-negative duration"],
    );
    fails(&edit("duration = \"10s\"", "duration = \"0s\""), "scenario.duration", &["greater than zero"]);
    fails(
        &edit("description = \"test\"", "sample_interval = \"0ms\""),
        "scenario.sample_interval",
        &["at least 1us"],
    );
    fails(&format!("{BASE}\n[tcp]\nsegment_size = \"0B\"\n"), "tcp.segment_size", &["at least 1 byte"]);
    fails(&format!("{BASE}\n[tcp]\ndupack_threshold = 0\n"), "tcp.dupack_threshold", &["from 1"]);
    fails(&format!("{BASE}\n[tcp]\nack_every = 0\n"), "tcp.ack_every", &["from 1"]);
    fails(&format!("{BASE}\n[tcp]\ninitial_cwnd = 0\n"), "tcp.initial_cwnd", &["at least 1 segment"]);
    fails(&format!("{BASE}\n[tcp]\nrto_initial = 0\n"), "tcp.rto_initial", &["at least 100us"]);
    // A zero propagation delay is fine.
    let s = load(&edit("delay = \"5ms\"", "delay = 0")).unwrap();
    assert_eq!(s.links[0].delay, 0);
}

#[test]
fn probabilities_outside_unit_interval() {
    fails(
        &edit("rate = \"${loss}\"", "rate = 1.5"),
        "links.bc.errors.rate",
        &["not a probability", "[0, 1]"],
    );
    fails(&edit("rate = \"${loss}\"", "rate = -0.1"), "links.bc.errors.rate", &["not a probability"]);
    fails(
        &edit("rate = \"${loss}\"", "rate = \"101%\""),
        "links.bc.errors.rate",
        &["not a valid probability"],
    );
    let s = load(&edit("rate = \"${loss}\"", "rate = 1")).unwrap();
    assert_eq!(s.links[2].errors, Some(ErrorSpec::one(bernoulli::setting(1.0))));
}

#[test]
fn nodes_and_names() {
    fails(
        &edit("nodes = [\"a\", \"b\", \"c\"]", "nodes = [\"a\", \"b\", \"c\", \"b\"]"),
        "topology.nodes[3]",
        &["duplicate node name \"b\""],
    );
    fails(
        &edit("nodes = [\"a\", \"b\", \"c\"]", "nodes = [\"a\", \"b\", \"c\", \"\"]"),
        "topology.nodes[3]",
        &["must not be empty"],
    );
    fails(
        &edit("from = \"b\"\nto = \"c\"", "from = \"b\"\nto = \"x\""),
        "links.bc.to",
        &["unknown node \"x\"", "a, b, c"],
    );
    fails(
        &edit("from = \"a\"\nto = \"b\"", "from = \"z\"\nto = \"b\""),
        "links.ab.from",
        &["unknown node \"z\""],
    );
    fails(
        &edit("from = \"a\"\nto = \"b\"", "from = \"a\"\nto = \"a\""),
        "links.ab.to",
        &["two different nodes"],
    );
    fails(
        &edit("from = \"a\"\nto = \"c\"", "from = \"q\"\nto = \"c\""),
        "flows.f.from",
        &["unknown node \"q\""],
    );
    fails(
        &edit("from = \"a\"\nto = \"c\"", "from = \"a\"\nto = \"a\""),
        "flows.f.to",
        &["two different nodes"],
    );
    fails(&edit("[links.bc]", "[links.\"ab.reverse\"]"), "links.ab.reverse", &["used twice"]);
    fails(&edit("description = \"test\"", "name = \"\""), "scenario.name", &["must not be empty"]);
}

#[test]
fn missing_required_keys() {
    fails(&edit("duration = \"${duration}\"", ""), "scenario.duration", &["missing required key"]);
    fails(&edit("rate = \"2Mbps\"", ""), "links.bc.rate", &["missing required key"]);
    fails(&edit("delay = \"0.01ms\"", ""), "links.bc.delay", &["missing required key"]);
    fails(&edit("from = \"a\"\nto = \"c\"", "to = \"c\""), "flows.f.from", &["missing required key"]);
    fails(&edit("nodes = [\"a\", \"b\", \"c\"]", ""), "topology.nodes", &["missing required key"]);
    fails("[topology]\nnodes = []\n", "scenario", &["missing required table [scenario]"]);
    fails("[scenario]\nduration = \"1s\"\n", "topology", &["missing required table [topology]"]);
    fails(&edit("model = \"bernoulli\", ", ""), "links.bc.errors.model", &["missing required key"]);
}

#[test]
fn flow_timing() {
    fails(
        &edit("count = \"${flows}\"", "start = \"10s\""),
        "flows.f.start",
        &["must be before the end", "10s"],
    );
    fails(&edit("count = \"${flows}\"", "start = \"11s\""), "flows.f.start", &["must be before the end"]);
    fails(
        &edit("count = \"${flows}\"", "start = \"2s\"\nstop = \"2s\""),
        "flows.f.stop",
        &["must be after start 2s"],
    );
    fails(&edit("count = \"${flows}\"", "stop = \"0s\""), "flows.f.stop", &["must be after start"]);
    let s = load(&edit("count = \"${flows}\"", "start = \"1.5s\"\nstop = \"${duration}\"")).unwrap();
    assert_eq!((s.flows[0].start, s.flows[0].stop), (FlowStart::At(1_500_000_000), Some(10_000_000_000)));
}

#[test]
fn random_flow_starts() {
    let with = |start: &str| edit("count = \"${flows}\"", &format!("start = {start}"));
    let s = load(&with("{ min = \"1s\", max = \"2s\" }")).unwrap();
    assert_eq!(s.flows[0].start, FlowStart::Uniform { min: 1_000_000_000, max: 2_000_000_000 });
    // min defaults to 0; min = max is a fixed start.
    assert_eq!(
        load(&with("{ max = \"2s\" }")).unwrap().flows[0].start,
        FlowStart::Uniform { min: 0, max: 2_000_000_000 }
    );
    assert_eq!(
        load(&with("{ min = \"2s\", max = \"2s\" }")).unwrap().flows[0].start,
        FlowStart::At(2_000_000_000)
    );
    // Through --set, as an inline table.
    let set = load_with(BASE, &[("flows.f.start", "{ min = \"0s\", max = \"3s\" }")]).unwrap();
    assert_eq!(set.flows[0].start, FlowStart::Uniform { min: 0, max: 3_000_000_000 });

    fails(&with("{ min = \"3s\", max = \"2s\" }"), "flows.f.start.max", &["max 2s is before min 3s"]);
    fails(
        &with("{ max = \"10s\" }"),
        "flows.f.start.max",
        &["must be before the end of the scenario", "10s"],
    );
    fails(&with("{ min = \"1s\" }"), "flows.f.start.max", &["missing required key", "latest start"]);
    fails(
        &with("{ min = \"1s\", max = \"2s\", mean = \"1s\" }"),
        "flows.f.start.mean",
        &["unknown key", "min, max"],
    );
    fails(&with("{ min = \"-1s\", max = \"2s\" }"), "flows.f.start.min", &["not a valid duration"]);
    fails(&with("[1, 2]"), "flows.f.start", &["or a table { min = \"0s\", max = \"2s\" }", "an array"]);
    fails(
        &edit("count = \"${flows}\"", "start = { min = \"1s\", max = \"3s\" }\nstop = \"3s\""),
        "flows.f.stop",
        &["must be after the latest start (start.max) 3s"],
    );

    // Each flow of a count group draws its own start, from its own stream and the seed.
    let group =
        load(&edit("count = \"${flows}\"", "count = 4\nstart = { min = \"0s\", max = \"2s\" }")).unwrap();
    let starts: Vec<Nanos> = group.flows.iter().map(|f| f.start_at(1)).collect();
    assert!(starts.iter().all(|&t| t <= 2_000_000_000), "{starts:?}");
    assert_eq!(starts.iter().collect::<std::collections::HashSet<_>>().len(), 4, "{starts:?}");
    assert_eq!(starts, group.flows.iter().map(|f| f.start_at(1)).collect::<Vec<_>>(), "reproducible");
    let other_seed: Vec<Nanos> = group.flows.iter().map(|f| f.start_at(2)).collect();
    assert_ne!(starts, other_seed);
    let stream = crate::engine::rng::RngStream::new(1, "flow:f.2:start").uniform_inclusive(0, 2_000_000_000);
    assert_eq!(starts[1], stream, "flow f.2 draws from flow:f.2:start");
}

#[test]
fn count_expansion() {
    let s = load_with(BASE, &[("flows", "3")]).unwrap();
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["f.1", "f.2", "f.3"]);
    assert!(s.flows.iter().all(|f| f.src == 0 && f.dst == 2 && f.tcp == s.flows[0].tcp));
    // A numeric string works too.
    let s = load_with(BASE, &[("flows", "\"2\"")]).unwrap();
    assert_eq!(s.flows.len(), 2);
    fails(&edit("count = \"${flows}\"", "count = 0"), "flows.f.count", &["at least 1"]);
    fails(&edit("count = \"${flows}\"", "count = -2"), "flows.f.count", &["negative"]);
    fails(&edit("count = \"${flows}\"", "count = 1000000000"), "flows.f.count", &["too large"]);
    // Expanded names must not clash with another flow.
    let text =
        format!("{}\n[flows.\"f.2\"]\nfrom = \"a\"\nto = \"b\"\n", edit("count = \"${flows}\"", "count = 2"));
    fails(&text, "flows.f.2", &["\"f.2\" is used twice"]);
}

/// 100 000 flows (the most one table may make) with their names, endpoints and routes.
///
/// Set-up once checked every new flow's name against all the earlier ones, which took over 20 s
/// for this many flows in release (and would take many minutes here, in a debug build). The test
/// checks what the indexed version must still do: distinct names in order, endpoints paired
/// group member by group member, every flow routed (the `bdp` queue sized from its round trip),
/// and a clash found even at the far end of the list, with the message unchanged.
#[test]
fn the_largest_flow_table_builds_with_distinct_names_and_routes() {
    let text = r#"
[scenario]
duration = "10s"
[topology]
nodes = ["s1", "s2", "left", "right", "r1", "r2"]
groups = { senders = ["s1", "s2"], receivers = ["r1", "r2"] }
[links.in1]
from = "s1"
to = "left"
rate = "1Gbps"
delay = "1ms"
[links.in2]
from = "s2"
to = "left"
rate = "1Gbps"
delay = "1ms"
[links.bottleneck]
from = "left"
to = "right"
rate = "10Mbps"
delay = "10ms"
queue = "bdp"
[links.out1]
from = "right"
to = "r1"
rate = "1Gbps"
delay = "1ms"
[links.out2]
from = "right"
to = "r2"
rate = "1Gbps"
delay = "1ms"
[flows.bulk]
from = "senders"
to = "receivers"
count = 50000
[sources.cbr]
kind = "cbr"
from = "s1"
to = "r1"
rate = "1Mbps"
"#;
    let s = load(text).unwrap();
    assert_eq!(s.flows.len(), 100_000);
    let names: std::collections::HashSet<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names.len(), s.flows.len(), "flow names must be distinct");
    for (i, f) in s.flows.iter().enumerate() {
        assert_eq!(f.name, format!("bulk.{}", i + 1));
        // The first 50 000 run s1 -> r1, the rest s2 -> r2.
        let expected = if i < 50_000 { (0, 4) } else { (1, 5) };
        assert_eq!((f.src, f.dst), expected, "{}", f.name);
    }
    // Every flow has a route both ways, and the bottleneck's `bdp` queue is sized from the
    // flows' round trip: 10 Mbps * 2 * (1 + 10 + 1) ms / 8 = 30 000 bytes of 1040-byte packets.
    let links = crate::sim::build_links(&s).unwrap();
    let bottleneck = s.links.iter().position(|l| l.name == "bottleneck").unwrap();
    assert_eq!(links[bottleneck].capacity, crate::network::link::Capacity::Packets(29));

    // A name clash with the last flows is still found, with the same message as ever.
    let e = load(&format!("{text}[flows.\"bulk.99999\"]\nfrom = \"s1\"\nto = \"r1\"\n")).unwrap_err();
    assert_eq!(e.field, "flows.bulk.99999");
    assert_eq!(
        e.message,
        "flow name \"bulk.99999\" is used twice (a table with count = N > 1 makes flows NAME.1 .. NAME.N)"
    );
    // So is a source named like a flow.
    let e = load(&text.replace("[sources.cbr]", "[sources.\"bulk.70000\"]")).unwrap_err();
    assert_eq!(e.field, "sources.bulk.70000");
    assert!(e.message.contains("already used by a flow"), "{e}");
}

#[test]
fn congestion_control_and_recovery() {
    fails(
        &edit("cc = \"reno\"", "cc = \"vegas\""),
        "flows.f.cc",
        &["unknown congestion control \"vegas\"", "reno, newreno"],
    );
    let s = load_with(BASE, &[("cc", "NewReno")]).unwrap();
    assert_eq!((s.flows[0].tcp.cc_name.as_str(), s.flows[0].tcp.recovery), ("newreno", Recovery::NewReno));
    let s = load(&edit("cc = \"${cc}\"", "cc = \"newreno\"\nrecovery = \"reno\"")).unwrap();
    assert_eq!(s.flows[0].tcp.recovery, Recovery::Reno);
    fails(
        &edit("cc = \"${cc}\"", "recovery = \"fack\""),
        "flows.f.recovery",
        &["unknown loss recovery \"fack\"", "\"sack\" or \"tahoe\""],
    );
}

#[test]
fn window_growth_defaults_to_per_ack_and_parses_byte_counting_and_linux() {
    use westwood_algorithms::WindowGrowth;
    let growth = |s: &Scenario| s.flows.iter().map(|f| f.tcp.window_growth).collect::<Vec<_>>();
    assert_eq!(growth(&load(BASE).unwrap()), [WindowGrowth::PerAck]);
    let with = |extra: &str| format!("{BASE}\n[tcp]\n{extra}\n");
    let s = load(&with("window_growth = \"byte_counting\"")).unwrap();
    assert_eq!(growth(&s), [WindowGrowth::ByteCounting]);
    let s = load(&with("window_growth = \"Per_Ack\"")).unwrap();
    assert_eq!(growth(&s), [WindowGrowth::PerAck]);
    let s = load(&with("window_growth = \"linux\"")).unwrap();
    assert_eq!(growth(&s), [WindowGrowth::Linux]);
    // A flow's own key wins over [tcp].
    let text = format!(
        "{}\n[tcp]\nwindow_growth = \"byte_counting\"\n",
        edit("cc = \"${cc}\"", "window_growth = \"per_ack\"")
    );
    assert_eq!(growth(&load(&text).unwrap()), [WindowGrowth::PerAck]);
    // --set tcp.window_growth=byte_counting, as the testbed's users write it.
    let s = load_with(&with("cc = \"reno\""), &[("tcp.window_growth", "byte_counting")]).unwrap();
    assert_eq!(growth(&s), [WindowGrowth::ByteCounting]);
    // Through a parameter, like every other key.
    let text = format!(
        "{}\n[tcp]\nwindow_growth = \"${{growth}}\"\n",
        edit("flows = 1", "flows = 1\ngrowth = \"per_ack\"")
    );
    let s = load_with(&text, &[("growth", "byte_counting")]).unwrap();
    assert_eq!(growth(&s), [WindowGrowth::ByteCounting]);
}

#[test]
fn a_bad_window_growth_names_the_file_the_field_and_the_choices() {
    let with = |extra: &str| format!("{BASE}\n[tcp]\n{extra}\n");
    let e = fails(
        &with("window_growth = \"bsd\""),
        "tcp.window_growth",
        &["unknown window growth rule \"bsd\"", "\"per_ack\", \"byte_counting\" or \"linux\""],
    );
    assert_eq!(e.file, "t.toml");
    assert!(e.to_string().starts_with("t.toml: tcp.window_growth: "), "{e}");
    fails(&with("window_growth = 2"), "tcp.window_growth", &["\"per_ack\", \"byte_counting\" or \"linux\""]);
    fails(
        &edit("cc = \"${cc}\"", "window_growth = \"abc\""),
        "flows.f.window_growth",
        &["\"per_ack\", \"byte_counting\" or \"linux\""],
    );
    let e = load_with(&with("cc = \"reno\""), &[("tcp.window_growth", "per_segment")]).unwrap_err();
    assert_eq!(e.field, "tcp.window_growth", "{e}");
    assert!(e.message.contains("\"per_ack\", \"byte_counting\" or \"linux\""), "{e}");
}

#[test]
fn limited_transmit_defaults_to_off_and_parses_everywhere_a_tcp_key_may_be() {
    let lt = |s: &Scenario| s.flows.iter().map(|f| f.tcp.limited_transmit).collect::<Vec<_>>();
    assert_eq!(lt(&load(BASE).unwrap()), [false], "off by default (ns-2's agents)");
    let with = |extra: &str| format!("{BASE}\n[tcp]\n{extra}\n");
    assert_eq!(lt(&load(&with("limited_transmit = true")).unwrap()), [true]);
    assert_eq!(lt(&load(&with("limited_transmit = false")).unwrap()), [false]);
    assert_eq!(lt(&load(&with("limited_transmit = \"true\"")).unwrap()), [true]);
    // A flow's own key wins over [tcp].
    let text =
        format!("{}\n[tcp]\nlimited_transmit = true\n", edit("cc = \"${cc}\"", "limited_transmit = false"));
    assert_eq!(lt(&load(&text).unwrap()), [false]);
    // --set tcp.limited_transmit=true (the parent table must exist, as for any dotted key) and
    // --set flows.f.limited_transmit=true.
    let s = load_with(&with("cc = \"reno\""), &[("tcp.limited_transmit", "true")]).unwrap();
    assert_eq!(lt(&s), [true]);
    let s = load_with(BASE, &[("flows.f.limited_transmit", "true")]).unwrap();
    assert_eq!(lt(&s), [true]);
    // Through a parameter, like every other key.
    let text =
        format!("{}\n[tcp]\nlimited_transmit = \"${{lt}}\"\n", edit("flows = 1", "flows = 1\nlt = false"));
    assert_eq!(lt(&load(&text).unwrap()), [false]);
    assert_eq!(lt(&load_with(&text, &[("lt", "true")]).unwrap()), [true]);
    // Only the key differs: everything else about the flow is the same.
    let mut on = load(&with("limited_transmit = true")).unwrap();
    on.flows[0].tcp.limited_transmit = false;
    assert_eq!(on.flows, load(&with("cc = \"reno\"")).unwrap().flows);
}

#[test]
fn a_bad_limited_transmit_names_the_file_the_field_and_what_was_expected() {
    let with = |extra: &str| format!("{BASE}\n[tcp]\n{extra}\n");
    let e = fails(&with("limited_transmit = \"yes\""), "tcp.limited_transmit", &["expected true or false"]);
    assert_eq!(e.file, "t.toml");
    assert!(e.to_string().starts_with("t.toml: tcp.limited_transmit: "), "{e}");
    fails(&with("limited_transmit = 1"), "tcp.limited_transmit", &["expected true or false"]);
    fails(
        &edit("cc = \"${cc}\"", "limited_transmit = \"on\""),
        "flows.f.limited_transmit",
        &["expected true or false", "\"on\""],
    );
    let e = load_with(&with("cc = \"reno\""), &[("tcp.limited_transmit", "sometimes")]).unwrap_err();
    assert_eq!(e.field, "tcp.limited_transmit", "{e}");
    assert!(e.message.contains("expected true or false"), "{e}");
}

#[test]
fn tcp_defaults_and_flow_overrides() {
    let text = format!(
        "{}\n[tcp]\ncc = \"newreno\"\nsegment_size = \"400B\"\nheader_size = \"52B\"\n\
         receiver_window = \"64KiB\"\ninitial_cwnd = \"2pkt\"\ninitial_ssthresh = \"32pkt\"\n\
         dupack_threshold = 4\nrto_initial = \"3s\"\nrto_min = \"200ms\"\nrto_max = \"120s\"\n\
         clock_granularity = \"10ms\"\ndelayed_ack = false\ndelayed_ack_timeout = \"100ms\"\n\
         ack_every = 1\n",
        edit("cc = \"${cc}\"", "initial_cwnd = 4")
    );
    let t = load(&text).unwrap().flows[0].tcp.clone();
    assert_eq!((t.cc_name.as_str(), t.recovery), ("newreno", Recovery::NewReno));
    assert_eq!((t.segment_size, t.header_size, t.receiver_window), (400, 52, 65_536));
    assert_eq!(t.initial_cwnd, 1_600, "the flow's 4 segments win over [tcp]'s 2");
    assert_eq!(t.initial_ssthresh, 32 * 400);
    assert_eq!(t.dupack_threshold, 4);
    assert_eq!(
        (t.rto.initial, t.rto.min, t.rto.max, t.rto.granularity),
        (3_000_000_000, 200_000_000, 120_000_000_000, 10_000_000)
    );
    assert_eq!(
        (t.delayed_ack.enabled, t.delayed_ack.timeout, t.delayed_ack.every_segments),
        (false, 100_000_000, 1)
    );

    let with = |extra: &str| format!("{BASE}\n[tcp]\n{extra}\n");
    assert_eq!(load(&with("initial_ssthresh = \"64KB\"")).unwrap().flows[0].tcp.initial_ssthresh, 64_000);
    assert_eq!(load(&with("initial_ssthresh = 10")).unwrap().flows[0].tcp.initial_ssthresh, 10_000);
    assert_eq!(
        load(&with("initial_ssthresh = \"unlimited\"")).unwrap().flows[0].tcp.initial_ssthresh,
        u64::MAX / 4
    );
    assert_eq!(
        load(&with("initial_cwnd = \"rfc5681\"\nsegment_size = \"400B\"")).unwrap().flows[0].tcp.initial_cwnd,
        1_600
    );
    fails(&with("initial_ssthresh = \"lots\""), "tcp.initial_ssthresh", &["\"unlimited\""]);
    fails(&with("initial_cwnd = \"big\""), "tcp.initial_cwnd", &["\"rfc5681\""]);
    fails(&with("rto_min = \"2min\""), "tcp.rto_min", &["must not exceed rto_max"]);
    fails(&with("receiver_window = \"500B\""), "tcp.receiver_window", &["at least one segment"]);
    // [tcp] is checked even when every flow overrides the key.
    fails(
        &format!("{}\n[tcp]\ncc = \"vegas\"\n", edit("cc = \"${cc}\"", "cc = \"reno\"")),
        "tcp.cc",
        &["unknown congestion control"],
    );
}

#[test]
fn duplex_expansion() {
    let s = load(&edit("rate = \"10Mbps\"", "rate = \"10Mbps\"\nduplex = false")).unwrap();
    let names: Vec<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["ab", "bc", "bc.reverse"]);
    let text = edit(
        "delay = \"5ms\"",
        "delay = \"5ms\"\nqueue = { limit = \"bdp\", rtt = \"100ms\" }\nerrors = { model = \"ber\", rate = \"1 bit in 64KB\" }",
    );
    let s = load(&text).unwrap();
    let (fwd, rev) = (&s.links[0], &s.links[1]);
    assert_eq!((rev.name.as_str(), rev.from, rev.to), ("ab.reverse", 1, 0));
    assert_eq!((rev.rate_bps, rev.delay, rev.queue), (fwd.rate_bps, fwd.delay, fwd.queue));
    assert_eq!(
        fwd.queue,
        QueueSpec::DropTail(QueueLimit::BandwidthDelayProduct { rtt: Some(100_000_000), min: 1 })
    );
    assert_eq!(fwd.errors, Some(ErrorSpec::one(bit_error::setting(1.0 / 512_000.0))));
    assert_eq!(rev.errors, fwd.errors);
}

#[test]
fn error_model_direction() {
    let dir = |d: &str| {
        let s = load_with(
            &edit("rate = \"${loss}\" }", &format!("rate = \"${{loss}}\", direction = \"{d}\" }}")),
            &[("loss", "2%")],
        )?;
        Ok::<_, ScenarioError>((s.links[2].errors.clone(), s.links[3].errors.clone()))
    };
    let p = Some(ErrorSpec::one(bernoulli::setting(0.02)));
    assert_eq!(dir("both").unwrap(), (p.clone(), p.clone()));
    assert_eq!(dir("forward").unwrap(), (p.clone(), None));
    assert_eq!(dir("reverse").unwrap(), (None, p));
    let e = dir("sideways").unwrap_err();
    assert_eq!(e.field, "links.bc.errors.direction");
    assert!(e.message.contains("\"forward\", \"reverse\" or \"both\""), "{e}");
    let text = edit("rate = \"${loss}\" }", "rate = \"1%\", direction = \"reverse\" }\nduplex = false");
    fails(&text, "links.bc.errors.direction", &["needs a duplex link"]);
    fails(
        &edit("model = \"bernoulli\"", "model = \"gilbert\""),
        "links.bc.errors.model",
        &["unknown error model \"gilbert\""],
    );
    fails(
        &edit("model = \"bernoulli\", rate = \"${loss}\"", "model = \"ber\", rate = \"1 byte in 2KB\""),
        "links.bc.errors.rate",
        &["not a valid bit error rate"],
    );
}

#[test]
fn queue_forms() {
    let q = |form: &str| -> Result<QueueSpec, ScenarioError> {
        let s = load(&edit("delay = \"5ms\"", &format!("delay = \"5ms\"\nqueue = {form}")))?;
        Ok(s.links[0].queue)
    };
    let dt = QueueSpec::DropTail;
    assert_eq!(q("\"bdp\"").unwrap(), dt(QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 }));
    assert_eq!(q("\"BDP\"").unwrap(), dt(QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 }));
    assert_eq!(q("50").unwrap(), dt(QueueLimit::Packets(50)));
    assert_eq!(q("\"50pkt\"").unwrap(), dt(QueueLimit::Packets(50)));
    assert_eq!(q("\"50 packets\"").unwrap(), dt(QueueLimit::Packets(50)));
    assert_eq!(q("\"64KB\"").unwrap(), dt(QueueLimit::Bytes(64_000)));
    assert_eq!(q("{ type = \"droptail\", limit = 20 }").unwrap(), dt(QueueLimit::Packets(20)));
    assert_eq!(q("{ limit = \"8KiB\" }").unwrap(), dt(QueueLimit::Bytes(8_192)));
    assert_eq!(
        q("{ rtt = \"40ms\" }").unwrap(),
        dt(QueueLimit::BandwidthDelayProduct { rtt: Some(40_000_000), min: 1 })
    );
    let e = q("\"lots\"").unwrap_err();
    assert_eq!(e.field, "links.ab.queue");
    assert!(e.message.contains("not a valid queue limit"), "{e}");
    let e = q("\"1.5pkt\"").unwrap_err();
    assert!(e.message.contains("not a whole number of packets"), "{e}");
    let e = q("-3").unwrap_err();
    assert!(e.message.contains("negative"), "{e}");
    let e = q("{ type = \"blue\" }").unwrap_err();
    assert_eq!(e.field, "links.ab.queue.type");
    let e = q("{ limit = 10, rtt = \"40ms\" }").unwrap_err();
    assert_eq!(e.field, "links.ab.queue.rtt");
    assert!(e.message.contains("only applies when the limit is \"bdp\""), "{e}");
    assert_eq!(
        q("{ limit = \"bdp\", min = 4 }").unwrap(),
        dt(QueueLimit::BandwidthDelayProduct { rtt: None, min: 4 })
    );
    assert_eq!(
        q("{ rtt = \"40ms\", min = \"6pkt\" }").unwrap(),
        dt(QueueLimit::BandwidthDelayProduct { rtt: Some(40_000_000), min: 6 })
    );
    let e = q("{ limit = 10, min = 4 }").unwrap_err();
    assert_eq!(e.field, "links.ab.queue.min");
    assert!(e.message.contains("only applies when the limit is \"bdp\""), "{e}");
    let e = q("{ min = 0 }").unwrap_err();
    assert!(e.message.contains("at least 1 packet"), "{e}");
    let e = q("{ min = \"4KB\" }").unwrap_err();
    assert!(e.message.contains("not a number of packets"), "{e}");
}

#[test]
fn order_follows_the_file() {
    let text = r#"
        [scenario]
        duration = "1s"
        [topology]
        nodes = ["z", "y", "x"]
        [links.zz]
        from = "z"
        to = "y"
        rate = "1Mbps"
        delay = "1ms"
        [links.aa]
        from = "y"
        to = "x"
        rate = "1Mbps"
        delay = "1ms"
        duplex = false
        [flows.second]
        from = "z"
        to = "x"
        [flows.first]
        from = "x"
        to = "z"
    "#;
    let s = load(text).unwrap();
    let links: Vec<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(links, ["zz", "zz.reverse", "aa"]);
    let flows: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(flows, ["second", "first"]);
    assert!(s.parameters.is_empty());
}

/// The tester's endless inputs: timers and channel states so short that a few simulated seconds
/// take minutes. Each is refused with its floor and what a shorter value would cost.
#[test]
fn timers_and_channel_states_have_floors() {
    let flow = |extra: &str| edit("count = \"${flows}\"", &format!("count = \"${{flows}}\"\n{extra}"));
    fails(
        &flow("rto_min = \"1ns\"\nrto_initial = \"1ns\"\nrto_max = \"1ns\""),
        "flows.f.rto_initial",
        &["at least 100us", "timeouts per flow"],
    );
    fails(&flow("rto_max = \"99us\""), "flows.f.rto_max", &["at least 100us"]);
    assert!(
        load(&flow("rto_min = \"0s\"\nrto_max = \"100us\"")).is_ok(),
        "rto_min has no floor: rto_max bounds the backoff"
    );
    fails(
        &flow("cc = \"westwood\"\nwestwood = { tau = \"1ns\" }").replacen("cc = \"${cc}\"\n", "", 1),
        "flows.f.westwood.tau",
        &["at least 1ms", "even when no ACK arrives"],
    );
    fails(
        &edit(
            "errors = { model = \"bernoulli\", rate = \"${loss}\" }",
            r#"errors = { model = "gilbert-elliott", mean_good = "1ns", mean_bad = "1ns" }"#,
        ),
        "links.bc.errors.mean_good",
        &["at least 1us", "state changes"],
    );
    fails(
        &edit("description = \"test\"", "sample_interval = \"999ns\""),
        "scenario.sample_interval",
        &["at least 1us"],
    );
}

/// `wired_delay = 18446744073s` wrapped u64 nanoseconds into a 3.5 ms RTT: every duration is
/// now at most 10^6 s, so time sums cannot wrap.
#[test]
fn durations_beyond_a_million_seconds_are_refused() {
    fails(&edit("delay = \"5ms\"", "delay = \"18446744073s\""), "links.ab.delay", &["at most 1000000s"]);
    fails(&edit("duration = \"10s\"", "duration = \"1000001s\""), "scenario.duration", &["at most 1000000s"]);
}

#[test]
fn packet_sizes_that_would_not_fit_a_packet_are_refused_not_wrapped() {
    // A 5 GB header once wrapped modulo 2^32 into a 705 MB packet, and the run exited 0.
    for key in ["flows.f.header_size", "flows.f.segment_size"] {
        let e = load_with(BASE, &[(key, "5GB")]).unwrap_err();
        assert_eq!(e.field, key);
        assert!(e.message.contains("more than one packet can hold"), "{e}");
    }
    // The bound itself is accepted (a header of 1 GiB makes a slow run, not a wrong one).
    let s = load_with(BASE, &[("flows.f.header_size", "1GiB")]).unwrap();
    assert_eq!(s.flows[0].tcp.header_size, 1 << 30);
}
