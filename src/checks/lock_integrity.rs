//! `lock-integrity`: the lock's stored definitions must hash to its stored digests.

use rayon::prelude::*;

use super::{Baseline, BaselineCheck, Context, Draft};
use crate::finding::Location;
use crate::fingerprint::server_digest;
use crate::lock::{Integrity, Lock};

pub struct LockIntegrity;

impl BaselineCheck for LockIntegrity {
    fn rules(&self) -> &'static [&'static str] {
        &["lock-integrity"]
    }

    fn run(&self, _cx: &Context<'_>, base: &Baseline<'_>, out: &mut Vec<Draft>) {
        let Some(lock) = base.lock else {
            return;
        };
        let options = &lock.lock.fingerprint;
        let at = |pointer| Location::new(lock.source, pointer);
        let servers: Vec<_> = lock.lock.servers.iter().collect();
        out.par_extend(servers.par_iter().flat_map_iter(|(server, locked)| {
            let mut out = Vec::new();
            let mut recomputed = Vec::with_capacity(locked.tools.len());
            for (name, tool) in &locked.tools {
                let tool_at = Lock::tool_pointer(server, name);
                // Hashed when the lock was read (with these options: the lock's own).
                let hashed = match tool.definition.integrity(options) {
                    Integrity::AsStored => {
                        recomputed.push((name.as_str(), tool.digest.clone()));
                        continue;
                    }
                    Integrity::NotAnObject => continue,
                    Integrity::Hashed(hashed) => hashed,
                };
                let digest = &hashed.digest;
                let stored_name = hashed.name.as_deref();
                if stored_name != Some(name.as_str()) {
                    out.push(
                        Draft::new(
                            "lock-integrity",
                            at(tool_at.key("definition").key("name")),
                            format!(
                                "tool `{name}` of server `{server}` is stored with the name {}",
                                stored_name.map_or("(none)".to_string(), |n| format!("`{n}`"))
                            ),
                        )
                        .server(server)
                        .tool(name),
                    );
                }
                if digest.digest != tool.digest {
                    out.push(
                        Draft::new(
                            "lock-integrity",
                            at(tool_at.key("digest")),
                            format!(
                                "the stored definition of `{name}` (server `{server}`) does not hash to its stored digest: the lock was edited by hand or mangled by a merge"
                            ),
                        )
                        .server(server)
                        .tool(name)
                        .related(at(tool_at.key("definition"))),
                    );
                } else if digest.fields != tool.fields {
                    out.push(
                        Draft::new(
                            "lock-integrity",
                            at(tool_at.key("fields")),
                            format!("the field digests of `{name}` (server `{server}`) do not match its stored definition"),
                        )
                        .server(server)
                        .tool(name),
                    );
                }
                recomputed.push((name.as_str(), digest.digest.clone()));
            }
            let hash = server_digest(
                options.algorithm,
                recomputed.iter().map(|(n, d)| (*n, d)),
            );
            if hash != locked.baseline.hash {
                out.push(
                    Draft::new(
                        "lock-integrity",
                        at(Lock::server_pointer(server).key("baselineHash")),
                        format!(
                            "the baselineHash of server `{server}` does not match its stored tools"
                        ),
                    )
                    .server(server),
                );
            }
            out
        }));
    }
}
