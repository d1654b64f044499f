//! A value built on a thread of its own from the start, which its first use waits for: parts
//! of the rule set that a run may need only after it has read its inputs, built on the second
//! core meanwhile.

use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

pub struct Background<T> {
    value: OnceLock<T>,
    /// The thread building it, until the first use.
    pending: Mutex<Option<JoinHandle<T>>>,
}

impl<T: Send + 'static> Background<T> {
    /// Starts `build` on a thread named `name`.
    pub fn spawn(name: &str, build: impl FnOnce() -> T + Send + 'static) -> Background<T> {
        let pending = std::thread::Builder::new()
            .name(name.into())
            .spawn(build)
            .ok();
        Background {
            value: OnceLock::new(),
            pending: Mutex::new(pending),
        }
    }

    /// The value, once its thread has built it; built by `here` instead when no thread could
    /// be started.
    pub fn get(&self, here: impl FnOnce() -> T) -> &T {
        self.value.get_or_init(|| {
            let pending = self.pending.lock().ok().and_then(|mut p| p.take());
            pending
                .and_then(|thread| thread.join().ok())
                .unwrap_or_else(here)
        })
    }
}

impl<T> std::fmt::Debug for Background<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Background")
            .field("built", &self.value.get().is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_use_waits_for_the_thread() {
        let value = Background::spawn("test", || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            7
        });
        assert_eq!(*value.get(|| 0), 7);
        // Built once: later uses neither wait nor build again.
        assert_eq!(*value.get(|| 0), 7);
    }
}
