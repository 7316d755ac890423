//! Warp groups run as thread block clusters (`; cluster N`): the cluster size, rank-qualified
//! lane rows (`R.L:`, L below the CTA's `32·warps` threads) and image lines (`init rank R …`),
//! the cluster barriers around the PTX and the cluster launch.

use ptxjit::host::LaunchOptions;

/// The most CTAs a table's cluster may have (CUDA's portable cluster size).
pub const MAX: usize = 8;

/// The cluster size of a `; cluster N` clause.
pub fn size(n: &str) -> Option<usize> {
    n.trim().parse().ok().filter(|n| (1..=MAX).contains(n))
}

/// A lane row's index among a case's `per·cluster` lanes (`per`: the threads of each CTA,
/// 32 a warp): `L` (rank 0) or `R.L`.
pub fn lane_index(s: &str, cluster: usize, per: usize) -> Option<usize> {
    let (rank, lane) = match s.split_once('.') {
        Some((r, l)) => (r.parse::<usize>().ok()?, l),
        None => (0, s),
    };
    let lane = lane.parse::<usize>().ok()?;
    (rank < cluster && lane < per).then_some(per * rank + lane)
}

/// How a failure names lane index `i` of CTAs of `per` threads: `L` without clusters, `R.L`
/// with them.
pub fn lane_name(i: usize, cluster: usize, per: usize) -> String {
    if cluster == 1 {
        i.to_string()
    } else {
        format!("{}.{}", i / per, i % per)
    }
}

/// How a failure names the rank of a memory word (nothing without clusters).
pub fn rank_name(rank: usize, cluster: usize) -> String {
    if cluster == 1 {
        String::new()
    } else {
        format!("rank {rank} ")
    }
}

/// An image line's `rank R` prefix (rank 0 when absent), and the rest of the line.
pub fn rank_prefix(rest: &str, cluster: usize, line: usize) -> Result<(usize, &str), String> {
    let Some(r) = rest.strip_prefix("rank ") else {
        return Ok((0, rest));
    };
    let (rank, rest) = r
        .split_once(' ')
        .ok_or_else(|| format!("line {line}: 'rank R' needs words after it"))?;
    let rank = rank
        .parse::<usize>()
        .ok()
        .filter(|r| *r < cluster)
        .ok_or_else(|| format!("line {line}: bad rank '{rank}' (cluster of {cluster})"))?;
    Ok((rank, rest))
}

/// The cluster barrier between the image copies and the PTX (none without clusters): every
/// rank's image is in before any rank runs the PTX, and every rank is done with it before any
/// copies its image out.
pub fn barrier(cluster: usize) -> &'static str {
    if cluster == 1 {
        ""
    } else {
        "barrier.cluster.arrive;\nbarrier.cluster.wait;\n"
    }
}

/// The launch options of a group: a cluster launch of `cluster` CTAs along x.
pub fn launch_options(cluster: usize) -> LaunchOptions {
    LaunchOptions {
        cluster: (cluster > 1).then_some([cluster as u32, 1, 1]),
        ..Default::default()
    }
}
