//! `server-config-conflict`: one server name launched differently by several client configs.
//!
//! Which definition runs then depends on the client (or on which config wins a merge), so an
//! approval of one says nothing about the other. Messages name what differs, never the values:
//! arguments and URLs can hold tokens.

use std::collections::BTreeMap;

use super::{Check, Context, Draft};
use crate::clients::{ConfiguredServer, Transport};
use crate::finding::Location;
use crate::input::ConfigInput;
use crate::source::SourceId;

pub struct ConfigConflict;

impl Check for ConfigConflict {
    fn rules(&self) -> &'static [&'static str] {
        &["server-config-conflict"]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        let mut by_name: BTreeMap<&str, Vec<(&ConfigInput, &ConfiguredServer)>> = BTreeMap::new();
        for input in &cx.inputs.configs {
            for server in &input.config.servers {
                by_name
                    .entry(server.name.as_str())
                    .or_default()
                    .push((input, server));
            }
        }
        for (name, definitions) in by_name {
            let Some(((first_input, first), rest)) = definitions.split_first() else {
                continue;
            };
            for (input, server) in rest {
                let Some(difference) = difference(&first.transport, &server.transport) else {
                    continue;
                };
                let first_path = path_of(cx, first_input.source);
                out.push(
                    Draft::new(
                        "server-config-conflict",
                        Location::new(input.source, server.pointer.clone()).key(),
                        format!("server `{name}` {difference} than in {first_path}"),
                    )
                    .server(name)
                    .related(Location::new(first_input.source, first.pointer.clone()).key()),
                );
            }
        }
    }
}

fn difference(a: &Transport, b: &Transport) -> Option<&'static str> {
    match (a, b) {
        (
            Transport::Stdio {
                command: ca,
                args: aa,
                ..
            },
            Transport::Stdio {
                command: cb,
                args: ab,
                ..
            },
        ) => {
            if ca.value != cb.value {
                Some("runs a different command")
            } else if !aa.iter().map(|a| &a.value).eq(ab.iter().map(|b| &b.value)) {
                Some("runs its command with different arguments")
            } else {
                None
            }
        }
        (Transport::Remote { url: ua }, Transport::Remote { url: ub }) => {
            (ua.value != ub.value).then_some("is reached at a different URL")
        }
        _ => Some("uses a different transport (stdio vs remote)"),
    }
}

fn path_of(cx: &Context<'_>, source: SourceId) -> String {
    cx.inputs
        .sources
        .get(source)
        .map_or_else(String::new, |s| s.display_path())
}
