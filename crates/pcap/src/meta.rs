//! What a westwood capture says about itself, in its pcapng section comment: one line per flow
//! (`westwood-flow name=... proto=tcp src=IP:PORT dst=IP:PORT ...`) so that `westwood analyze`
//! names connections as the scenario does and knows what no packet shows (the window scale of a
//! connection whose handshake is not in the capture, the sequence number of its first byte).
//! Values are percent-encoded where they hold a space, `=` or `%`.

use std::net::SocketAddr;

/// One flow of a capture.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FlowMeta {
    pub name: String,
    /// `tcp` or `udp`.
    pub proto: String,
    pub src: Option<SocketAddr>,
    pub dst: Option<SocketAddr>,
    pub cc: Option<String>,
    /// Window scale of the receiver's advertised window (no handshake in the capture).
    pub wscale: Option<u8>,
    /// Raw TCP sequence number of the flow's first data byte.
    pub first_seq: Option<u32>,
}

const PREFIX: &str = "westwood-flow ";

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            ' ' | '=' | '%' | '\n' | '\r' | '\t' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn unescape(s: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl FlowMeta {
    /// The comment line for this flow.
    pub fn line(&self) -> String {
        let mut l = format!("{PREFIX}name={} proto={}", escape(&self.name), escape(&self.proto));
        if let Some(a) = self.src {
            l += &format!(" src={a}");
        }
        if let Some(a) = self.dst {
            l += &format!(" dst={a}");
        }
        if let Some(cc) = &self.cc {
            l += &format!(" cc={}", escape(cc));
        }
        if let Some(w) = self.wscale {
            l += &format!(" wscale={w}");
        }
        if let Some(s) = self.first_seq {
            l += &format!(" first_seq={s}");
        }
        l
    }

    /// Every flow line in `comment` (other lines are ignored).
    pub fn parse_all(comment: &str) -> Vec<FlowMeta> {
        comment.lines().filter_map(|l| l.trim().strip_prefix(PREFIX)).map(FlowMeta::parse_fields).collect()
    }

    fn parse_fields(fields: &str) -> FlowMeta {
        let mut m = FlowMeta::default();
        for f in fields.split_whitespace() {
            let Some((k, v)) = f.split_once('=') else { continue };
            let v = unescape(v);
            match k {
                "name" => m.name = v,
                "proto" => m.proto = v,
                "src" => m.src = v.parse().ok(),
                "dst" => m.dst = v.parse().ok(),
                "cc" => m.cc = Some(v),
                "wscale" => m.wscale = v.parse().ok(),
                "first_seq" => m.first_seq = v.parse().ok(),
                _ => {}
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_awkward_names() {
        let m = FlowMeta {
            name: "a b=c%d".into(),
            proto: "tcp".into(),
            src: "10.0.0.1:30000".parse().ok(),
            dst: "10.0.0.2:5001".parse().ok(),
            cc: Some("westwood".into()),
            wscale: Some(5),
            first_seq: Some(12345),
        };
        let text = format!("scenario x\n{}\nother\n", m.line());
        assert_eq!(FlowMeta::parse_all(&text), vec![m]);
    }
}
