//! One server process for the length of one recording.
//!
//! The child runs in its own process group, so that killing it also kills what it started
//! (`npx` runs the server as a grandchild). Stdout is read line by line on a thread that stops at
//! a byte budget; stderr is copied to the log (secrets redacted) on another. Dropping a
//! [`ServerProcess`] kills the group and reaps the child, so no path out of a recording — an
//! error, a timeout, an early return — leaves a process behind.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::redact::Redactor;

/// What to start, fully resolved (references expanded) and never written anywhere.
pub struct Spec {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
}

/// What the stdout thread saw.
pub enum Event {
    Line(String),
    Closed,
    /// The server wrote more than the byte budget.
    TooLarge,
    NotUtf8,
    ReadFailed(String),
}

pub enum Wait {
    Event(Event),
    TimedOut,
}

/// How long a server gets to exit by itself once its stdin is closed.
const GRACE: Duration = Duration::from_millis(500);
/// The log keeps this much of a server's stderr; the rest is drained, so the server never
/// blocks on a full pipe.
const MAX_LOG_BYTES: usize = 1 << 20;

pub struct ServerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Event>,
    stderr: Option<JoinHandle<()>>,
    reaped: bool,
}

impl ServerProcess {
    pub fn spawn(
        spec: &Spec,
        log: std::fs::File,
        redactor: Redactor,
        max_bytes: usize,
    ) -> std::io::Result<ServerProcess> {
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&spec.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take();
        let (tx, events) = channel();
        if let Some(stdout) = child.stdout.take() {
            // Not joined: it ends when the pipe closes, which killing the group guarantees.
            std::thread::spawn(move || read_stdout(stdout, max_bytes, &tx));
        }
        let stderr = child
            .stderr
            .take()
            .map(|stderr| std::thread::spawn(move || copy_stderr(stderr, log, &redactor)));
        Ok(ServerProcess {
            child,
            stdin,
            events,
            stderr,
            reaped: false,
        })
    }

    pub fn send(&mut self, line: &str) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("stdin is closed"))?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    pub fn next(&self, deadline: Instant) -> Wait {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.events.recv_timeout(left) {
            Ok(event) => Wait::Event(event),
            Err(RecvTimeoutError::Timeout) => Wait::TimedOut,
            Err(RecvTimeoutError::Disconnected) => Wait::Event(Event::Closed),
        }
    }

    /// The exit status, if the server has exited within `within`.
    pub fn exit_status(&mut self, within: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + within;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }

    /// The orderly end (MCP stdio shutdown): close stdin, give the server a moment to exit,
    /// then kill whatever is left of its group and wait for the stderr log to be complete.
    pub fn shutdown(mut self) {
        self.stdin = None;
        self.exit_status(GRACE);
        self.kill_and_reap();
        if let Some(handle) = self.stderr.take() {
            let _ = handle.join();
        }
    }

    fn kill_and_reap(&mut self) {
        if self.reaped {
            return;
        }
        #[cfg(unix)]
        {
            use rustix::process::{Pid, Signal, kill_process_group};
            // The group outlives its leader while a grandchild is in it; ESRCH means all gone.
            let _ = kill_process_group(Pid::from_child(&self.child), Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.reaped = true;
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill_and_reap();
    }
}

fn read_stdout(stdout: impl Read, budget: usize, tx: &std::sync::mpsc::Sender<Event>) {
    let mut reader = BufReader::new(stdout);
    let mut used = 0usize;
    loop {
        let mut line = Vec::new();
        // One byte over the budget tells "exactly at the limit" from "over it".
        let allowance = u64::try_from(budget.saturating_sub(used))
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let event = match (&mut reader).take(allowance).read_until(b'\n', &mut line) {
            Ok(0) => Event::Closed,
            Ok(n) if used + n > budget => Event::TooLarge,
            Ok(n) => {
                used += n;
                match String::from_utf8(line) {
                    Ok(text) => Event::Line(text),
                    Err(_) => Event::NotUtf8,
                }
            }
            Err(e) => Event::ReadFailed(e.to_string()),
        };
        let last = !matches!(event, Event::Line(_));
        if tx.send(event).is_err() || last {
            return;
        }
    }
}

fn copy_stderr(stderr: impl Read, mut log: std::fs::File, redactor: &Redactor) {
    let mut reader = BufReader::new(stderr);
    let mut written = 0usize;
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if written >= MAX_LOG_BYTES => continue,
            Ok(_) => {
                let text = redactor.redact(&String::from_utf8_lossy(&line));
                written += text.len();
                let _ = log.write_all(text.as_bytes());
                if written >= MAX_LOG_BYTES {
                    let _ = log.write_all(b"\n[mcp-scan: log truncated]\n");
                }
            }
        }
    }
}
