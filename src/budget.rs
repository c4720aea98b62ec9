//! The memory budget of a run. A script may build values (`$range`, `$push`
//! or `$concatArrays` in a `$reduce`, self-joining `$lookup`s, `$densify`,
//! documents that copy `$$ROOT`) until the run holds more than [`LIMIT`]
//! bytes; then it stops with a clear error instead of exhausting the tab's
//! memory (a wasm instance that fails to grow its memory traps) or the
//! machine's. The error says how much the statement built and how much the
//! run held before it, rather than guessing an operator.
//!
//! The measure is exact and cheap: the global allocator counts the heap bytes
//! each thread holds (a thread-local add per allocation), and the engine
//! compares that count with the run's limit only where values grow:
//! expression results (`Cx::eval`), the per-document loops of stages and
//! writes that multiply or grow documents, and before building a large array
//! in one go ([`reserve`]).
use crate::error::{Error, Result};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Heap bytes one run may add to what its thread held when it started.
pub const LIMIT: usize = 512 * 1024 * 1024;

thread_local! {
    /// Bytes allocated minus bytes freed on this thread (signed: a value
    /// allocated elsewhere may be freed here).
    static HELD: Cell<isize> = const { Cell::new(0) };
    /// The `HELD` count at which the current run stops; `isize::MAX` outside runs.
    static STOP_AT: Cell<isize> = const { Cell::new(isize::MAX) };
    /// The budget of the runs this thread starts ([`LIMIT`] unless changed).
    static RUN_LIMIT: Cell<usize> = const { Cell::new(LIMIT) };
    /// The `HELD` count when the current run, and its current statement, started.
    static RUN_START: Cell<isize> = const { Cell::new(0) };
    static STATEMENT_START: Cell<isize> = const { Cell::new(0) };
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// The wasm memory's size (pages) after the last allocation.
    static PAGES: Cell<usize> = const { Cell::new(0) };
}

/// In wasm, after an allocation that grew the memory: grow it by half as
/// much again at once (at least 1 MB), by allocating that much and freeing
/// it; dlmalloc keeps the block as free space (it never gives memory back).
///
/// Why: std's dlmalloc grows the memory by the few pages each request needs,
/// and in V8 every `memory.grow` costs about 0.8 ms whatever its size (Node 20:
/// 1,900 one-page grows to 120 MB take 1.5 s, 8 grows 11 ms). Reading 100,000
/// trades into a fresh page made ~1,800 grows, 1.9 s of its 4.3 s; this makes
/// it a dozen. Pages grown but not yet used cost no physical memory.
#[cfg(target_arch = "wasm32")]
fn grow_ahead() {
    use std::arch::wasm32::memory_size;
    let pages = memory_size(0);
    if PAGES
        .try_with(|p| p.replace(pages))
        .map_or(true, |seen| seen == pages)
    {
        return;
    }
    if let Ok(layout) = Layout::from_size_align((pages / 2).max(16) << 16, 16) {
        // SAFETY: a plain allocation, freed at once with the same layout.
        unsafe {
            let p = System.alloc(layout);
            if !p.is_null() {
                System.dealloc(p, layout);
            }
        }
    }
    let _ = PAGES.try_with(|p| p.set(memory_size(0)));
}

#[cfg(not(target_arch = "wasm32"))]
fn grow_ahead() {}

/// Change the budget of the runs this thread starts from now on (tests use a
/// small one to reach it quickly); returns the previous one.
pub fn set_run_limit(bytes: usize) -> usize {
    RUN_LIMIT.with(|l| l.replace(bytes))
}

/// The budget of the runs this thread starts.
pub fn run_limit() -> usize {
    RUN_LIMIT.with(Cell::get)
}

/// The system allocator, counting.
struct Counting;

#[inline(always)]
fn add(n: usize) {
    // `try_with`: never fails for a const-initialised Cell, but an allocator must not panic.
    let _ = HELD.try_with(|h| h.set(h.get().wrapping_add(n as isize)));
}

#[inline(always)]
fn sub(n: usize) {
    let _ = HELD.try_with(|h| h.set(h.get().wrapping_sub(n as isize)));
}

// SAFETY: every call is forwarded to `System` unchanged; the counting has no
// effect on the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            add(layout.size());
        }
        grow_ahead();
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            add(layout.size());
        }
        grow_ahead();
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        sub(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            sub(layout.size());
            add(new_size);
        }
        grow_ahead();
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap bytes this thread holds.
#[inline(always)]
pub fn held() -> isize {
    HELD.with(Cell::get)
}

/// Ends the run's budget (restoring an enclosing run's) when dropped.
pub struct RunBudget {
    previous: isize,
    previous_start: (isize, isize),
}

/// Start a run: from now until the guard drops, [`check`] fails once this
/// thread holds [`LIMIT`] (or the limit set by [`set_run_limit`]) more bytes than now.
pub fn start_run() -> RunBudget {
    let previous = STOP_AT.with(Cell::get);
    let limit = RUN_LIMIT.with(Cell::get).min(isize::MAX as usize) as isize;
    let now = held();
    let stop = now.saturating_add(limit).min(previous);
    STOP_AT.with(|s| s.set(stop));
    let previous_start = (
        RUN_START.with(|r| r.replace(now)),
        STATEMENT_START.with(|r| r.replace(now)),
    );
    RunBudget {
        previous,
        previous_start,
    }
}

impl Drop for RunBudget {
    fn drop(&mut self) {
        STOP_AT.with(|s| s.set(self.previous));
        RUN_START.with(|r| r.set(self.previous_start.0));
        STATEMENT_START.with(|r| r.set(self.previous_start.1));
    }
}

/// A statement of the script starts: what it builds is told apart from what
/// the run held before it when the budget runs out.
pub fn start_statement() {
    let now = held();
    STATEMENT_START.with(|r| r.set(now));
}

/// What grew past the budget, for [`check_for`].
pub const INDEX_KEYS: &str = "the indexes' keys take more than that";
pub const KEPT: &str =
    "the script's variables, the results kept for printing and the stored documents take more than that";
pub const LITERALS: &str = "the script's literals alone take more than that";

/// The budget ran out while values grew (`adding`: bytes about to be
/// allocated): blame what holds the most, the statement's new values or what
/// the run held before it (the loaded documents, earlier statements'
/// variables and results).
fn growth(adding: usize) -> String {
    let (run_start, statement_start) = (RUN_START.with(Cell::get), STATEMENT_START.with(Cell::get));
    // Memory freed after the run started (the configuration's text once
    // loaded) is credit: count from the later of the two starts.
    let before = statement_start.saturating_sub(run_start).max(0);
    let built = held()
        .saturating_sub(statement_start.max(run_start))
        .saturating_add(adding.min(isize::MAX as usize) as isize)
        .max(0);
    let mib = |n: isize| format!("{:.1}", n as f64 / f64::from(1u32 << 20));
    if before > built {
        format!(
            "the database and the earlier statements already hold {} MiB of it",
            mib(before)
        )
    } else {
        format!(
            "this statement builds {} MiB of documents and values",
            mib(built)
        )
    }
}

fn exceeded(cause: &str) -> Error {
    Error::exceeded_memory_limit(format!(
        "the run needs more than {} MiB of memory, mqlplay's limit for one run; {cause}",
        RUN_LIMIT.with(Cell::get) >> 20
    ))
}

/// Fail if the run has used up its budget. One thread-local read and a
/// comparison: cheap enough for every expression evaluation.
#[inline]
pub fn check() -> Result<()> {
    if held() > STOP_AT.with(Cell::get) {
        return Err(exceeded(&growth(0)));
    }
    Ok(())
}

/// [`check`], naming `cause` as what grew (a script's literals, the
/// Database pane, index keys…).
#[inline]
pub fn check_for(cause: &str) -> Result<()> {
    if held() > STOP_AT.with(Cell::get) {
        return Err(exceeded(cause));
    }
    Ok(())
}

/// Fail if allocating `bytes` more would exceed the budget (before building
/// a large value in one go).
pub fn reserve(bytes: usize) -> Result<()> {
    let after = held().saturating_add(bytes.min(isize::MAX as usize) as isize);
    if after > STOP_AT.with(Cell::get) {
        return Err(exceeded(&growth(bytes)));
    }
    Ok(())
}

/// Whether the budget ran out (an error is [`check`]'s, and says why).
pub fn is_exceeded(e: &Error) -> bool {
    e.code == 146
}

/// Bytes for `n` values of type `T` (for [`reserve`]).
pub fn bytes_for<T>(n: usize) -> usize {
    n.saturating_mul(std::mem::size_of::<T>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_limits() {
        let before = held();
        let v: Vec<u8> = Vec::with_capacity(1 << 20);
        assert!(held() - before >= 1 << 20);
        drop(v);
        assert!(held() - before < 1 << 10);
        {
            let _run = start_run();
            assert!(check().is_ok());
            assert!(reserve(LIMIT + 1).is_err());
            let e = reserve(LIMIT * 2).err().map(|e| e.code_name.to_string());
            assert_eq!(e.as_deref(), Some("ExceededMemoryLimit"));
        }
        // Outside a run nothing is limited.
        assert!(reserve(LIMIT * 4).is_ok());
    }
}
