//! Memory for buffers whose size comes from the user's settings or the corpus (hash
//! functions × documents, bands × documents): asked for before it is used, so that a
//! setting too large for the machine is an error that says so, never an abort.

use crate::error::{Error, Result};

/// The machine's physical memory in bytes, where it can be read (Linux: /proc/meminfo).
pub fn physical() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// This process's resident memory in bytes (Linux: `VmRSS` of /proc/self/status), where
/// it can be read.
pub fn resident() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// When this process's resident memory is past `limit` bytes, hands the memory the
/// allocator holds freed back to the system; whether it did.
///
/// glibc's allocator keeps what is freed for the next allocations, in every thread's
/// arena: the walk's list handed out, each batch's texts and token buffers. Under a
/// memory limit that is memory the corpus could have used. 500,000 files with
/// `--memory 64M`: 225 MiB resident at the end of indexing, 172 MiB after one
/// `malloc_trim`. Asked only past the limit, as a trimmed page is faulted in (and zeroed)
/// again when it is next used: without a limit nothing changes. Elsewhere (another C
/// library, another system) it does nothing.
pub(crate) fn give_back_past(limit: u64) -> bool {
    // No limit (u64::MAX): not even the resident size is read.
    if limit == u64::MAX || resident().is_none_or(|r| r <= limit) {
        return false;
    }
    give_back()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back() -> bool {
    // SAFETY: malloc_trim(3) only releases free pages of glibc's own arenas; it takes no
    // pointer and is safe to call from any thread at any time.
    unsafe { libc::malloc_trim(0) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back() -> bool {
    false
}

/// Asks for the line of memory of `items[i]` (if there is one) without waiting for it,
/// for a read soon after that would otherwise miss the cache. Where a plain load would do
/// the same, it holds the core's reorder buffer until the line arrives; a prefetch does
/// not (the exact join's frequency count: 0.87x the CPU of `eval` with it).
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = items.get(i) {
        // SAFETY: SSE is in every x86_64 processor, and a prefetch reads nothing the
        // program sees (it cannot fault); the pointer is to an element of the slice.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (item as *const T).cast(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, i); // no hint asked for elsewhere
}

/// A vector of `n` copies of `value`, or [`Error::TooLarge`] when it cannot be had: over
/// the machine's physical memory, or refused by the allocator. `what` names the buffer
/// for the message ("the signatures").
pub(crate) fn filled<T: Clone>(n: usize, value: T, what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    reserve(&mut v, n, what)?;
    v.resize(n, value);
    Ok(v)
}

/// Makes room for `n` elements in all (not more), or says why not as [`filled`] does.
pub(crate) fn reserve<T>(v: &mut Vec<T>, n: usize, what: &'static str) -> Result<()> {
    let bytes = (n as u64).checked_mul(std::mem::size_of::<T>() as u64);
    let too_large = |why: String| Error::TooLarge { job: what, why };
    match (bytes, physical()) {
        (None, _) => return Err(too_large(format!("{n} elements"))),
        (Some(b), Some(total)) if b > total => {
            return Err(too_large(format!(
                "{} needed, the machine has {}",
                human(b),
                human(total)
            )));
        }
        _ => {}
    }
    v.try_reserve_exact(n.saturating_sub(v.len()))
        .map_err(|e| too_large(format!("{}: {e}", human(bytes.unwrap_or(u64::MAX)))))
}

/// Bytes in GB or MB, for messages.
pub(crate) fn human(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MB", bytes as f64 / (1u64 << 20) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_larger_than_the_machine_is_an_error_not_an_abort() {
        let err = filled(usize::MAX / 4, 0u32, "the signatures").unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{err}");
        assert!(
            err.to_string().starts_with("too large for the signatures"),
            "{err}"
        );
        assert_eq!(filled(3, 7u8, "x").unwrap(), vec![7, 7, 7]);
    }

    #[test]
    fn freed_memory_is_given_back_only_past_the_limit() {
        // Within the limit nothing is asked of the allocator.
        assert!(!give_back_past(u64::MAX));
        let Some(resident) = resident() else {
            return; // not Linux: nothing to read, and nothing is given back
        };
        assert!(resident > 0 && physical().is_none_or(|p| resident <= p));
        // 64 MB in blocks small enough to come from the allocator's arena (not mapped
        // one by one), then freed: kept by the allocator until given back.
        let blocks: Vec<Vec<u8>> = (0..16_384).map(|i| vec![i as u8; 4096]).collect();
        drop(blocks);
        let gave = give_back_past(0);
        assert_eq!(gave, cfg!(all(target_os = "linux", target_env = "gnu")));
    }
}
