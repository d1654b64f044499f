//! Asking the kernel to read a run's input files before the workers reach them.
//!
//! A worker that opens a file the page cache no longer holds waits for the disk, and on a
//! two-core runner that is half the machine idle. A directory of snapshots is thousands of
//! small files, which the kernel's readahead (within one file read in order) cannot see
//! coming. So before they are read, one thread names them all to the kernel
//! (`posix_fadvise(POSIX_FADV_WILLNEED)`, which starts the reads and returns), and the disk
//! works while the workers parse. Nothing is read into the process: a file already in the
//! cache costs an open and a call, and one that cannot be opened is left for its reader to
//! report. Platforms without the call read as before.

use std::path::PathBuf;

/// Starts reading `paths` into the page cache, on a thread of their own, in the order the
/// workers take them: a parallel iterator over files hands each of `threads` workers its own
/// stretch of the list, so the stretches' starts come first, then each one's second file, and
/// so on. Returns at once; a thread that cannot be started reads nothing ahead.
pub fn read_ahead(paths: Vec<PathBuf>, threads: usize) {
    if paths.len() < 2 {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("read-ahead".to_string())
        .spawn(move || {
            for path in in_order_of_work(paths, threads) {
                advise(&path);
            }
        });
}

/// `paths` cut into `threads` stretches of the same length, taken a file of each in turn.
fn in_order_of_work(paths: Vec<PathBuf>, threads: usize) -> Vec<PathBuf> {
    let stretch = paths.len().div_ceil(threads.max(1));
    let mut stretches: Vec<std::vec::IntoIter<PathBuf>> = Vec::new();
    let mut rest = paths;
    while !rest.is_empty() {
        let tail = rest.split_off(stretch.min(rest.len()));
        stretches.push(rest.into_iter());
        rest = tail;
    }
    let mut ordered = Vec::new();
    loop {
        let before = ordered.len();
        ordered.extend(stretches.iter_mut().filter_map(Iterator::next));
        if ordered.len() == before {
            return ordered;
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn advise(path: &std::path::Path) {
    // Opened as every input is (a FIFO swapped in must not hang this thread), and only regular
    // files are advised.
    let Ok(file) = super::read::open_nonblocking(path) else {
        return;
    };
    if file.metadata().is_ok_and(|meta| meta.is_file()) {
        let _ = rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::WillNeed);
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
fn advise(_path: &std::path::Path) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(paths: &[PathBuf]) -> Vec<&str> {
        paths.iter().filter_map(|p| p.to_str()).collect()
    }

    #[test]
    fn the_stretches_of_each_worker_are_taken_in_turn() {
        let paths: Vec<PathBuf> = (0..7).map(|i| PathBuf::from(i.to_string())).collect();
        let order = |threads| in_order_of_work(paths.clone(), threads);
        assert_eq!(names(&order(1)), ["0", "1", "2", "3", "4", "5", "6"]);
        assert_eq!(names(&order(2)), ["0", "4", "1", "5", "2", "6", "3"]);
        assert_eq!(names(&order(3)), ["0", "3", "6", "1", "4", "2", "5"]);
        assert_eq!(names(&order(0)), names(&order(1)));
        assert_eq!(names(&order(9)), names(&order(1)));
        assert!(in_order_of_work(Vec::new(), 2).is_empty());
    }
}
