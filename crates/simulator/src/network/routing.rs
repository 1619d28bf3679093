//! Static shortest-path routing (fewest hops; ties broken by link order in the scenario, so
//! routes are deterministic).

use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct Routes {
    nodes: usize,
    /// `next_link[at * nodes + destination]`: the link to take from `at` towards `destination`.
    next_link: Vec<Option<u32>>,
}

impl Routes {
    /// `links[i] = (from, to)`.
    pub fn shortest_paths(nodes: usize, links: &[(u32, u32)]) -> Self {
        let mut next_link = vec![None; nodes * nodes];
        // Breadth-first search backwards from each destination over incoming links.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (index, &(_, to)) in links.iter().enumerate() {
            incoming[to as usize].push(index as u32);
        }
        for destination in 0..nodes {
            let mut visited = vec![false; nodes];
            visited[destination] = true;
            let mut frontier = VecDeque::from([destination]);
            while let Some(node) = frontier.pop_front() {
                for &link in &incoming[node] {
                    let from = links[link as usize].0 as usize;
                    if !visited[from] {
                        visited[from] = true;
                        next_link[from * nodes + destination] = Some(link);
                        frontier.push_back(from);
                    }
                }
            }
        }
        Routes { nodes, next_link }
    }

    /// The memory of the table for `nodes` nodes (what `budget` counts before building it).
    pub fn bytes_for(nodes: usize) -> u64 {
        (nodes as u64).saturating_mul(nodes as u64).saturating_mul(std::mem::size_of::<Option<u32>>() as u64)
    }

    pub fn next_link(&self, at: u32, destination: u32) -> Option<u32> {
        self.next_link[at as usize * self.nodes + destination as usize]
    }

    /// The links from `src` to `dst`, or `None` if `dst` is unreachable.
    pub fn path(&self, src: u32, dst: u32, links: &[(u32, u32)]) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let link = self.next_link(at, dst)?;
            path.push(link);
            at = links[link as usize].1;
        }
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_fewest_hop_paths_and_reports_unreachable() {
        // 0 -> 1 -> 2 -> 3 and a shortcut 0 -> 3; 3 has no way back.
        let links = [(0, 1), (1, 2), (2, 3), (0, 3), (2, 1)];
        let routes = Routes::shortest_paths(4, &links);
        assert_eq!(routes.path(0, 3, &links), Some(vec![3]));
        assert_eq!(routes.path(1, 3, &links), Some(vec![1, 2]));
        assert_eq!(routes.path(2, 1, &links), Some(vec![4]));
        assert_eq!(routes.path(3, 0, &links), None);
        assert_eq!(routes.path(2, 2, &links), Some(vec![]));
    }

    #[test]
    fn ties_go_to_the_earlier_link() {
        let links = [(0, 1), (1, 3), (0, 2), (2, 3)];
        let routes = Routes::shortest_paths(4, &links);
        assert_eq!(routes.path(0, 3, &links), Some(vec![0, 1]));
    }
}
