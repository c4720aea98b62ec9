//! One shared stable sort for the cold paths (stages, update modifiers, index
//! planning, `$sortArray`...). `slice::sort_by` is monomorphised per element
//! type and comparator (about 600 bytes gzipped of the page's wasm each); here
//! only the index sort below is compiled, once, and each caller adds a small
//! in-place permutation. Hot paths (find's sort, `$group`) keep their own.
use std::cmp::Ordering;

/// Sort `v` stably by `cmp` (the same order as `v.sort_by(cmp)`).
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mut perm = {
        let items = &*v;
        sorted_indices(
            items.len(),
            &mut |a, b| match (items.get(a), items.get(b)) {
                (Some(x), Some(y)) => cmp(x, y),
                _ => Ordering::Equal,
            },
        )
    };
    permute(&mut perm, &mut |a, b| v.swap(a, b));
}

/// Sort `v` stably by a key (as `v.sort_by_key(key)`).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sort `v` in its natural order (as `v.sort()`).
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The positions `0..n` in the stable order `cmp` gives them.
#[inline(never)]
fn sorted_indices(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| cmp(a, b));
    idx
}

/// Rearrange in place so that position `k` receives the element at `perm[k]`,
/// following each cycle of the permutation with `swap` (`perm` is consumed:
/// visited positions are marked with `usize::MAX`).
#[inline(never)]
fn permute(perm: &mut [usize], swap: &mut dyn FnMut(usize, usize)) {
    for start in 0..perm.len() {
        let mut j = start;
        while let Some(k) = perm.get_mut(j).map(|p| std::mem::replace(p, usize::MAX)) {
            if k == usize::MAX || k == start {
                break;
            }
            swap(j, k);
            j = k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_order_as_the_standard_stable_sort() {
        // Pairs sorted by their first member only: ties keep their input order.
        let mut seed = 7u64;
        for len in 0..60 {
            let v: Vec<(u64, usize)> = (0..len)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 33) % 5, i)
                })
                .collect();
            let mut ours = v.clone();
            let mut theirs = v.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            theirs.sort_by_key(|a| a.0);
            assert_eq!(ours, theirs);
            let mut ours = v.clone();
            sort_by_key(&mut ours, |p| std::cmp::Reverse(p.0));
            let mut theirs = v.clone();
            theirs.sort_by_key(|p| std::cmp::Reverse(p.0));
            assert_eq!(ours, theirs);
            let mut ours = v.clone();
            sort(&mut ours);
            let mut theirs = v;
            theirs.sort();
            assert_eq!(ours, theirs);
        }
    }
}
