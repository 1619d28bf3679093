//! Per-packet round robin over several paths (seed 002: Gerla, Lee, Pau, "TCP Westwood
//! Simulation Studies in Multiple-Path Cases").
//!
//! A multipath flow's source spreads its data packets over its paths in turn — packet 0 on path
//! 1, packet 1 on path 2, ... — and, in `full` mode, its receiver spreads the ACKs the same way
//! over the reverse paths; in `simple` mode the ACKs take the ordinary shortest route. Each
//! packet carries the index of its path (`Packet::path`, 0 = ordinary routing) and is forwarded
//! hop by hop along it (source routing).
//!
//! ## Which paths
//! The paper uses "the first n shortest paths between the source and the destination" and
//! expects the throughput to approach "the sum of the capacities of the multiple paths"; in the
//! 8×8 grid it keeps sources off the border so that every node has "four possible alternate
//! paths", since "the nodes at the corners can have only two possible disjoint paths and the
//! edge nodes have three". Both statements are about *disjoint* paths: the number of paths is
//! bounded by the node degree and the capacities add up only when no link is shared. So the
//! default selection, [`disjoint_paths`], takes `n` edge-disjoint paths of least total hop count
//! (a unit-capacity min-cost flow, so it finds `n` whenever `n` exist, which a greedy "remove the
//! shortest and repeat" can miss), listed shortest first. [`k_shortest_paths`] (Yen's algorithm
//! on hop count) is available too (`select = "shortest"`): it is what fig. 3 of the paper draws —
//! two paths sharing their first and last links — but in a grid its paths overlap heavily.
//! Ties are broken by link order in the scenario, so paths are deterministic.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use super::packet::{Packet, PacketKind};
use crate::model::{MultipathMode, MultipathSpec, PathSelection};

/// A path as the links it takes, in order.
pub type LinkPath = Vec<u32>;

/// Up to `k` edge-disjoint paths from `src` to `dst` with the least total number of hops,
/// shortest first (ties: lexicographic by link index). `links[i] = (from, to)`.
pub fn disjoint_paths(nodes: usize, links: &[(u32, u32)], src: u32, dst: u32, k: usize) -> Vec<LinkPath> {
    if src == dst || k == 0 {
        return Vec::new();
    }
    // Successive shortest paths on the residual graph: link i is usable forwards (cost +1) while
    // it carries no flow, backwards (cost -1, cancelling) once it does. Bellman-Ford handles the
    // negative costs; the residual graph of a min-cost flow has no negative cycle.
    let mut flow = vec![false; links.len()];
    let mut found = 0;
    while found < k {
        let mut dist = vec![i64::MAX; nodes];
        // How each node was reached: (link, forwards).
        let mut via: Vec<Option<(u32, bool)>> = vec![None; nodes];
        dist[src as usize] = 0;
        for _ in 0..nodes {
            let mut changed = false;
            for (i, &(from, to)) in links.iter().enumerate() {
                let (a, b, cost) = if flow[i] { (to, from, -1) } else { (from, to, 1) };
                let da = dist[a as usize];
                if da != i64::MAX && da + cost < dist[b as usize] {
                    dist[b as usize] = da + cost;
                    via[b as usize] = Some((i as u32, !flow[i]));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if dist[dst as usize] == i64::MAX {
            break;
        }
        let mut at = dst;
        while at != src {
            let (link, forwards) = via[at as usize].expect("reached nodes have a predecessor");
            flow[link as usize] = forwards;
            let (from, to) = links[link as usize];
            at = if forwards { from } else { to };
        }
        found += 1;
    }
    // Decompose the flow into paths, taking the lowest-index unused link at each node. The flow
    // has no cycle (a cycle would cost hops a min-cost flow does not pay), so the walks are simple.
    let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    for (i, &(from, _)) in links.iter().enumerate() {
        if flow[i] {
            outgoing[from as usize].push(i as u32);
        }
    }
    for out in &mut outgoing {
        out.reverse(); // pop() takes the lowest index first
    }
    let mut paths = Vec::with_capacity(found);
    for _ in 0..found {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let link = outgoing[at as usize].pop().expect("flow conservation");
            path.push(link);
            at = links[link as usize].1;
        }
        paths.push(path);
    }
    paths.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    paths
}

/// Fewest-hop path from `src` to `dst` avoiding the banned links and nodes; breadth-first over
/// outgoing links in index order, so ties go to lower link indices.
fn shortest_avoiding(
    outgoing: &[Vec<u32>],
    links: &[(u32, u32)],
    src: u32,
    dst: u32,
    banned_links: &[u32],
    banned_nodes: &[bool],
) -> Option<LinkPath> {
    let mut via: Vec<Option<u32>> = vec![None; outgoing.len()];
    let mut seen = vec![false; outgoing.len()];
    seen[src as usize] = true;
    let mut frontier = VecDeque::from([src]);
    while let Some(node) = frontier.pop_front() {
        if node == dst {
            break;
        }
        for &link in &outgoing[node as usize] {
            let to = links[link as usize].1 as usize;
            if seen[to] || banned_nodes[to] || banned_links.contains(&link) {
                continue;
            }
            seen[to] = true;
            via[to] = Some(link);
            frontier.push_back(to as u32);
        }
    }
    if !seen[dst as usize] {
        return None;
    }
    let mut path = Vec::new();
    let mut at = dst;
    while at != src {
        let link = via[at as usize].expect("reached");
        path.push(link);
        at = links[link as usize].0;
    }
    path.reverse();
    Some(path)
}

/// The `k` shortest loop-free paths from `src` to `dst` by hop count (Yen 1971), shortest
/// first; equal lengths are ordered by their link indices.
pub fn k_shortest_paths(nodes: usize, links: &[(u32, u32)], src: u32, dst: u32, k: usize) -> Vec<LinkPath> {
    if src == dst || k == 0 {
        return Vec::new();
    }
    let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    for (i, &(from, _)) in links.iter().enumerate() {
        outgoing[from as usize].push(i as u32);
    }
    let no_nodes = vec![false; nodes];
    let Some(first) = shortest_avoiding(&outgoing, links, src, dst, &[], &no_nodes) else {
        return Vec::new();
    };
    let mut accepted: Vec<LinkPath> = vec![first];
    let mut candidates: BTreeSet<(usize, LinkPath)> = BTreeSet::new();
    while accepted.len() < k {
        let previous = accepted.last().expect("non-empty").clone();
        let mut spur_node = src;
        let mut banned_nodes = no_nodes.clone();
        for j in 0..previous.len() {
            let root = &previous[..j];
            let banned_links: Vec<u32> =
                accepted.iter().filter(|p| p.len() > j && &p[..j] == root).map(|p| p[j]).collect();
            if let Some(spur) =
                shortest_avoiding(&outgoing, links, spur_node, dst, &banned_links, &banned_nodes)
            {
                let mut path = root.to_vec();
                path.extend(spur);
                if !accepted.contains(&path) {
                    candidates.insert((path.len(), path));
                }
            }
            banned_nodes[spur_node as usize] = true;
            spur_node = links[previous[j] as usize].1;
        }
        match candidates.pop_first() {
            Some((_, path)) => accepted.push(path),
            None => break,
        }
    }
    accepted
}

/// A path as `(node, link to take from that node)` hops.
#[derive(Debug)]
struct Route {
    hops: Box<[(u32, u32)]>,
}

impl Route {
    fn new(path: &[u32], links: &[(u32, u32)]) -> Self {
        Route { hops: path.iter().map(|&l| (links[l as usize].0, l)).collect() }
    }

    #[inline]
    fn link_from(&self, node: u32) -> Option<u32> {
        self.hops.iter().find(|h| h.0 == node).map(|h| h.1)
    }
}

type Routes = Arc<[Route]>;

#[derive(Debug)]
struct FlowRoutes {
    data: Routes,
    /// `None`: ACKs use ordinary routing (simple mode, or a single reverse path).
    acks: Option<Routes>,
    next_data: u8,
    next_ack: u8,
}

/// The paths of every multipath flow and their round-robin counters.
#[derive(Debug)]
pub struct Multipath {
    nodes: usize,
    links: Vec<(u32, u32)>,
    /// Indexed by flow id; `None` for single-path flows (and finished ones).
    flows: Vec<Option<Box<FlowRoutes>>>,
    cache: HashMap<(u32, u32, u8, PathSelection), Arc<[LinkPath]>>,
    any: bool,
}

impl Multipath {
    /// `links[i] = (from, to)` of the network's links.
    pub fn new(nodes: usize, links: Vec<(u32, u32)>) -> Self {
        Multipath { nodes, links, flows: Vec::new(), cache: HashMap::new(), any: false }
    }

    /// Whether any flow was ever given several paths (if not, packets need no path index).
    #[inline]
    pub fn is_empty(&self) -> bool {
        !self.any
    }

    /// The paths `select` picks from `src` to `dst`, at most `k` (cached).
    pub fn paths(&mut self, src: u32, dst: u32, k: u8, select: PathSelection) -> Arc<[LinkPath]> {
        let (nodes, links) = (self.nodes, &self.links);
        self.cache
            .entry((src, dst, k, select))
            .or_insert_with(|| {
                match select {
                    PathSelection::Disjoint => disjoint_paths(nodes, links, src, dst, usize::from(k)),
                    PathSelection::Shortest => k_shortest_paths(nodes, links, src, dst, usize::from(k)),
                }
                .into()
            })
            .clone()
    }

    /// Give flow `flow` (from `src` to `dst`) the paths of `spec`. Returns the data paths and the
    /// ACK paths the flow uses (empty: ordinary routing in that direction).
    pub fn add_flow(
        &mut self,
        flow: u32,
        src: u32,
        dst: u32,
        spec: &MultipathSpec,
    ) -> (Arc<[LinkPath]>, Arc<[LinkPath]>) {
        let none: Arc<[LinkPath]> = Arc::from(Vec::new());
        let data = self.paths(src, dst, spec.paths, spec.select);
        let acks = match spec.mode {
            MultipathMode::Full => self.paths(dst, src, spec.paths, spec.select),
            MultipathMode::Simple => none.clone(),
        };
        let data = if data.len() > 1 { data } else { none.clone() };
        let acks = if acks.len() > 1 { acks } else { none };
        if data.is_empty() && acks.is_empty() {
            return (data, acks);
        }
        let routes =
            |paths: &[LinkPath]| -> Routes { paths.iter().map(|p| Route::new(p, &self.links)).collect() };
        let entry = FlowRoutes {
            data: routes(&data),
            acks: (!acks.is_empty()).then(|| routes(&acks)),
            next_data: 0,
            next_ack: 0,
        };
        let index = flow as usize;
        if self.flows.len() <= index {
            self.flows.resize_with(index + 1, || None);
        }
        self.flows[index] = Some(Box::new(entry));
        self.any = true;
        (data, acks)
    }

    /// Forget a finished flow (its packets still in flight are dropped where they stand).
    pub fn remove_flow(&mut self, flow: u32) {
        if let Some(slot) = self.flows.get_mut(flow as usize) {
            *slot = None;
        }
    }

    /// Stamp a packet leaving its source with the next path of its flow's round robin.
    #[inline]
    pub fn assign(&mut self, packet: &mut Packet) {
        let Some(Some(f)) = self.flows.get_mut(packet.flow as usize) else {
            return;
        };
        match packet.kind {
            PacketKind::Data if !f.data.is_empty() => {
                packet.path = f.next_data + 1;
                f.next_data = ((usize::from(f.next_data) + 1) % f.data.len()) as u8;
            }
            PacketKind::Ack => {
                if let Some(acks) = &f.acks {
                    packet.path = f.next_ack + 1;
                    f.next_ack = ((usize::from(f.next_ack) + 1) % acks.len()) as u8;
                }
            }
            _ => {}
        }
    }

    /// The link a packet on path `packet.path` (≥ 1) takes from node `at`; `None` when its flow
    /// has finished (the packet is then dropped).
    #[inline]
    pub fn next_link(&self, packet: &Packet, at: u32) -> Option<u32> {
        let f = self.flows.get(packet.flow as usize)?.as_deref()?;
        let routes = if packet.kind == PacketKind::Ack { f.acks.as_ref()? } else { &f.data };
        routes.get(usize::from(packet.path) - 1)?.link_from(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::packet::Packet;

    /// Duplex links between the given node pairs: link 2i is a -> b, 2i+1 is b -> a.
    fn duplex(pairs: &[(u32, u32)]) -> Vec<(u32, u32)> {
        pairs.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect()
    }

    fn nodes_of(path: &[u32], links: &[(u32, u32)], src: u32) -> Vec<u32> {
        let mut out = vec![src];
        out.extend(path.iter().map(|&l| links[l as usize].1));
        out
    }

    /// Seed 002 fig. 3: paths 0-1-2-3-5 and 0-1-4-3-5 share their first and last links.
    fn figure3() -> Vec<(u32, u32)> {
        duplex(&[(0, 1), (1, 2), (2, 3), (1, 4), (4, 3), (3, 5)])
    }

    #[test]
    fn yen_finds_the_two_paths_of_figure_3_and_disjoint_finds_one() {
        let links = figure3();
        let shortest = k_shortest_paths(6, &links, 0, 5, 4);
        let as_nodes: Vec<Vec<u32>> = shortest.iter().map(|p| nodes_of(p, &links, 0)).collect();
        assert_eq!(as_nodes, vec![vec![0, 1, 2, 3, 5], vec![0, 1, 4, 3, 5]]);
        // Both share 0-1 and 3-5: only one edge-disjoint path exists.
        assert_eq!(disjoint_paths(6, &links, 0, 5, 4).len(), 1);
    }

    #[test]
    fn disjoint_paths_of_parallel_chains_come_shortest_first() {
        // src 0, dst 1; chains of 1, 2, 3 links (the 4-path topology's first three).
        let links = duplex(&[(0, 1), (0, 2), (2, 1), (0, 3), (3, 4), (4, 1)]);
        let paths = disjoint_paths(5, &links, 0, 1, 3);
        let hops: Vec<usize> = paths.iter().map(Vec::len).collect();
        assert_eq!(hops, vec![1, 2, 3]);
        assert_eq!(nodes_of(&paths[2], &links, 0), vec![0, 3, 4, 1]);
        // Asking for two gives the two shortest; asking for more than exist gives what exists.
        assert_eq!(disjoint_paths(5, &links, 0, 1, 2).iter().map(Vec::len).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(disjoint_paths(5, &links, 0, 1, 9).len(), 3);
        // The reverse direction uses the reverse links.
        let back = disjoint_paths(5, &links, 1, 0, 3);
        assert_eq!(nodes_of(&back[2], &links, 1), vec![1, 4, 3, 0]);
    }

    /// rows x cols grid, duplex links in row-major order (right, then down).
    fn grid(rows: u32, cols: u32) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                let n = r * cols + c;
                if c + 1 < cols {
                    pairs.push((n, n + 1));
                }
                if r + 1 < rows {
                    pairs.push((n, n + cols));
                }
            }
        }
        duplex(&pairs)
    }

    #[test]
    fn every_inner_pair_of_the_8x8_grid_has_four_edge_disjoint_loop_free_paths() {
        let links = grid(8, 8);
        let inner: Vec<u32> =
            (0..64).filter(|n| (1..7).contains(&(n / 8)) && (1..7).contains(&(n % 8))).collect();
        for &a in &inner {
            for &b in &inner {
                if a == b {
                    continue;
                }
                let paths = disjoint_paths(64, &links, a, b, 4);
                assert_eq!(paths.len(), 4, "{a} -> {b}");
                let mut used = std::collections::HashSet::new();
                for p in &paths {
                    let nodes = nodes_of(p, &links, a);
                    assert_eq!(*nodes.last().unwrap(), b);
                    let distinct: std::collections::HashSet<_> = nodes.iter().collect();
                    assert_eq!(distinct.len(), nodes.len(), "loop in {nodes:?}");
                    for &l in p {
                        assert!(used.insert(l), "link {l} used twice");
                    }
                }
                // The first is a shortest path: Manhattan distance.
                let manhattan = (a / 8).abs_diff(b / 8) + (a % 8).abs_diff(b % 8);
                assert_eq!(paths[0].len() as u32, manhattan);
            }
        }
        // A corner has only two.
        assert_eq!(disjoint_paths(64, &links, 0, 63, 4).len(), 2);
    }

    #[test]
    fn yen_paths_are_distinct_loop_free_and_non_decreasing() {
        let links = grid(4, 4);
        let paths = k_shortest_paths(16, &links, 0, 15, 10);
        assert_eq!(paths.len(), 10);
        for w in paths.windows(2) {
            assert!(w[0].len() <= w[1].len());
            assert_ne!(w[0], w[1]);
        }
        for p in &paths {
            let nodes = nodes_of(p, &links, 0);
            let distinct: std::collections::HashSet<_> = nodes.iter().collect();
            assert_eq!(distinct.len(), nodes.len());
        }
        // 20 monotone staircases of 6 hops exist, so the first 10 are all shortest.
        assert!(paths.iter().all(|p| p.len() == 6));
    }

    fn packet(kind: PacketKind, flow: u32) -> Packet {
        Packet {
            kind,
            flow,
            src: 0,
            dst: 1,
            seq: 0,
            len: 0,
            ack: 0,
            window: 0,
            size: 40,
            sack: crate::network::SackBlocks::NONE,
            path: 0,
            push: false,
        }
    }

    #[test]
    fn round_robin_alternates_paths_and_routes_along_them() {
        // Two chains 0 -> 1 (direct) and 0 -> 2 -> 1.
        let links = duplex(&[(0, 1), (0, 2), (2, 1)]);
        let mut mp = Multipath::new(3, links.clone());
        let spec = MultipathSpec { paths: 2, mode: MultipathMode::Simple, select: PathSelection::Disjoint };
        let (data, acks) = mp.add_flow(0, 0, 1, &spec);
        assert_eq!((data.len(), acks.len()), (2, 0));
        let mut order = Vec::new();
        for _ in 0..5 {
            let mut p = packet(PacketKind::Data, 0);
            mp.assign(&mut p);
            order.push(p.path);
        }
        assert_eq!(order, vec![1, 2, 1, 2, 1]);
        let mut p = packet(PacketKind::Data, 0);
        p.path = 2;
        assert_eq!(mp.next_link(&p, 0), Some(2)); // 0 -> 2
        assert_eq!(mp.next_link(&p, 2), Some(4)); // 2 -> 1
                                                  // Simple mode: ACKs keep path 0 (ordinary routing).
        let mut ack = packet(PacketKind::Ack, 0);
        mp.assign(&mut ack);
        assert_eq!(ack.path, 0);
        // Full mode spreads the ACKs too; other flows are untouched.
        let full = MultipathSpec { mode: MultipathMode::Full, ..spec };
        mp.add_flow(1, 0, 1, &full);
        let acks: Vec<u8> = (0..3)
            .map(|_| {
                let mut a = packet(PacketKind::Ack, 1);
                mp.assign(&mut a);
                a.path
            })
            .collect();
        assert_eq!(acks, vec![1, 2, 1]);
        let mut other = packet(PacketKind::Data, 7);
        mp.assign(&mut other);
        assert_eq!(other.path, 0);
        // A finished flow's packets have nowhere to go.
        mp.remove_flow(0);
        assert_eq!(mp.next_link(&p, 0), None);
    }
}
