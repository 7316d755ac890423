//! Task graphs (the model behind CUDA graphs, CUDA driver API: Graph Management): nodes that
//! carry a payload `N` (the work: a kernel launch, a copy, a host function…) and dependency
//! edges between them. A graph is replayed in a topological order of its edges; since work
//! runs when enqueued, one valid order is all a replay needs.
//!
//! Nodes are [`NodeId`]s into the graph's arena; a removed node's id is never reused, so a
//! stale id is an error, never another node.

use std::collections::BTreeSet;
use std::fmt;

/// A node of one [`Graph`] (an index into its arena).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node{}", self.0)
    }
}

/// Why a graph operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphError {
    /// The id names no live node of this graph.
    NoNode(NodeId),
    /// The edge already exists (CUDA rejects duplicate dependencies).
    DuplicateEdge(NodeId, NodeId),
    /// The edges form a cycle through this node, so no order exists.
    Cycle(NodeId),
    /// No such edge (the second node does not depend on the first).
    NoEdge(NodeId, NodeId),
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphError::NoNode(n) => write!(f, "{n} is not a live node of this graph"),
            GraphError::DuplicateEdge(a, b) => write!(f, "{b} already depends on {a}"),
            GraphError::Cycle(n) => write!(f, "the dependencies form a cycle through {n}"),
            GraphError::NoEdge(a, b) => write!(f, "{b} does not depend on {a}"),
        }
    }
}

impl std::error::Error for GraphError {}

/// A directed acyclic graph of work: payloads, and for each node the nodes it depends on.
#[derive(Clone, Debug)]
pub struct Graph<N> {
    /// `None` once removed.
    nodes: Vec<Option<Node<N>>>,
}

#[derive(Clone, Debug)]
struct Node<N> {
    payload: N,
    /// The nodes that must run before this one.
    deps: BTreeSet<NodeId>,
}

impl<N> Default for Graph<N> {
    fn default() -> Self {
        Graph { nodes: Vec::new() }
    }
}

impl<N> Graph<N> {
    /// An empty graph.
    pub fn new() -> Graph<N> {
        Graph::default()
    }

    fn node(&self, n: NodeId) -> Result<&Node<N>, GraphError> {
        self.nodes
            .get(n.0 as usize)
            .and_then(Option::as_ref)
            .ok_or(GraphError::NoNode(n))
    }

    /// Adds a node that depends on `deps` (each a live node; duplicates count once).
    pub fn add(&mut self, payload: N, deps: &[NodeId]) -> Result<NodeId, GraphError> {
        for &d in deps {
            self.node(d)?;
        }
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Some(Node {
            payload,
            deps: deps.iter().copied().collect(),
        }));
        Ok(id)
    }

    /// Makes `to` depend on `from`. Errors: a dead node, an existing edge, or an edge that
    /// would close a cycle (then the graph is unchanged).
    pub fn add_edge(&mut self, from: NodeId, to: NodeId) -> Result<(), GraphError> {
        self.node(from)?;
        if self.node(to)?.deps.contains(&from) {
            return Err(GraphError::DuplicateEdge(from, to));
        }
        if from == to || self.ancestors(&[from])?.contains(&to) {
            return Err(GraphError::Cycle(to));
        }
        if let Some(Some(n)) = self.nodes.get_mut(to.0 as usize) {
            n.deps.insert(from);
        }
        Ok(())
    }

    /// Removes the edge that makes `to` depend on `from`. Errors: a dead node, or no such
    /// edge ([`GraphError::NoEdge`]).
    pub fn remove_edge(&mut self, from: NodeId, to: NodeId) -> Result<(), GraphError> {
        self.node(from)?;
        match self.nodes.get_mut(to.0 as usize).and_then(Option::as_mut) {
            Some(n) => {
                if n.deps.remove(&from) {
                    Ok(())
                } else {
                    Err(GraphError::NoEdge(from, to))
                }
            }
            None => Err(GraphError::NoNode(to)),
        }
    }

    /// Removes node `n` and every edge to or from it.
    pub fn remove(&mut self, n: NodeId) -> Result<N, GraphError> {
        self.node(n)?;
        let node = self.nodes[n.0 as usize]
            .take()
            .ok_or(GraphError::NoNode(n))?;
        for other in self.nodes.iter_mut().flatten() {
            other.deps.remove(&n);
        }
        Ok(node.payload)
    }

    /// The payload of node `n`.
    pub fn get(&self, n: NodeId) -> Result<&N, GraphError> {
        self.node(n).map(|n| &n.payload)
    }

    /// The payload of node `n`, to change.
    pub fn get_mut(&mut self, n: NodeId) -> Result<&mut N, GraphError> {
        match self.nodes.get_mut(n.0 as usize).and_then(Option::as_mut) {
            Some(node) => Ok(&mut node.payload),
            None => Err(GraphError::NoNode(n)),
        }
    }

    /// The nodes `n` depends on, in id order.
    pub fn deps(&self, n: NodeId) -> Result<Vec<NodeId>, GraphError> {
        self.node(n).map(|n| n.deps.iter().copied().collect())
    }

    /// The live nodes, in the order they were added.
    pub fn ids(&self) -> Vec<NodeId> {
        (0..self.nodes.len() as u32)
            .map(NodeId)
            .filter(|&n| self.node(n).is_ok())
            .collect()
    }

    /// Every node some node of `of` depends on, directly or not (`of` excluded unless on a
    /// path between them).
    pub fn ancestors(&self, of: &[NodeId]) -> Result<BTreeSet<NodeId>, GraphError> {
        let mut seen = BTreeSet::new();
        let mut work: Vec<NodeId> = of.to_vec();
        while let Some(n) = work.pop() {
            for &d in &self.node(n)?.deps {
                if seen.insert(d) {
                    work.push(d);
                }
            }
        }
        Ok(seen)
    }

    /// The live nodes in an order where every node comes after all it depends on (among
    /// ready nodes, the earliest added first, so the order is deterministic). Errors:
    /// [`GraphError::Cycle`] (edges are checked when added, so only a bug reaches it).
    pub fn topological_order(&self) -> Result<Vec<NodeId>, GraphError> {
        let ids = self.ids();
        let mut done = BTreeSet::new();
        let mut order = Vec::with_capacity(ids.len());
        while order.len() < ids.len() {
            let ready = ids
                .iter()
                .copied()
                .filter(|n| !done.contains(n))
                .find(|&n| {
                    self.node(n)
                        .is_ok_and(|x| x.deps.iter().all(|d| done.contains(d)))
                });
            match ready {
                Some(n) => {
                    done.insert(n);
                    order.push(n);
                }
                None => {
                    let stuck = ids.iter().copied().find(|n| !done.contains(n));
                    return Err(GraphError::Cycle(stuck.unwrap_or(NodeId(0))));
                }
            }
        }
        Ok(order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_respects_edges_added_later() {
        let mut g = Graph::new();
        let a = g.add("a", &[]).unwrap();
        let b = g.add("b", &[]).unwrap();
        let c = g.add("c", &[a]).unwrap();
        // An edge added afterwards: a now waits for b.
        g.add_edge(b, a).unwrap();
        assert_eq!(g.deps(c), Ok(vec![a]));
        let order: Vec<_> = g
            .topological_order()
            .unwrap()
            .into_iter()
            .map(|n| *g.get(n).unwrap())
            .collect();
        assert_eq!(order, ["b", "a", "c"]);
    }

    #[test]
    fn cycles_duplicates_and_dead_nodes_are_errors() {
        let mut g = Graph::new();
        let a = g.add(1, &[]).unwrap();
        let b = g.add(2, &[a]).unwrap();
        assert_eq!(g.add_edge(b, a), Err(GraphError::Cycle(a)));
        assert_eq!(g.add_edge(a, b), Err(GraphError::DuplicateEdge(a, b)));
        assert_eq!(g.remove(a), Ok(1));
        assert_eq!(g.get(a), Err(GraphError::NoNode(a)));
        assert_eq!(g.deps(b), Ok(vec![]));
        assert_eq!(g.ids(), vec![b]);
    }

    #[test]
    fn removed_edges_no_longer_order() {
        let mut g = Graph::new();
        let a = g.add("a", &[]).unwrap();
        let b = g.add("b", &[]).unwrap();
        g.add_edge(b, a).unwrap();
        assert_eq!(g.remove_edge(a, b), Err(GraphError::NoEdge(a, b)));
        assert_eq!(g.remove_edge(b, a), Ok(()));
        assert_eq!(g.deps(a), Ok(vec![]));
        assert_eq!(g.remove_edge(b, a), Err(GraphError::NoEdge(b, a)));
        // With the edge gone, the earliest added comes first again.
        assert_eq!(g.topological_order(), Ok(vec![a, b]));
    }
}
