//! Freeing large structures off the critical path.
//!
//! At the end of a large run, millions of small allocations (tree nodes, digests, lock
//! entries) are freed one by one: a quarter to half a second per 100k tools, with a core idle
//! while the result is rendered and written. Handing them to a thread of their own lets that
//! work overlap; the process may even exit first, when the kernel reclaims the pages anyway.

/// Drops `value` on a new thread named `name`; in place if no thread can be started.
pub fn free<T: Send + 'static>(name: &str, value: T) {
    // A failed spawn hands the closure (and `value`) back to be dropped right here.
    let _ = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || drop(value));
}
