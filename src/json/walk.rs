//! Every object of a tree, depth first, with the path to it kept as borrowed steps: a check
//! that walks whole trees turns the path into a pointer only for what it reports (building a
//! pointer per node was most of such a walk).

use super::{Node, Object, Pointer, Value};

/// One step of the path from where the walk started to a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The pointer `path` leads to from `from`.
pub fn pointer(from: Pointer, path: &[Step<'_>]) -> Pointer {
    path.iter().fold(from, |at, step| match step {
        Step::Key(key) => at.key(key),
        Step::Index(i) => at.index(*i),
    })
}

/// Calls `visit` with every object in `node` (itself included) and the path to it, depth
/// first, parents before children.
pub fn each_object<'a>(node: &'a Node, visit: &mut impl FnMut(&[Step<'a>], &'a Object)) {
    walk(node, &mut Vec::new(), visit);
}

fn walk<'a>(
    node: &'a Node,
    path: &mut Vec<Step<'a>>,
    visit: &mut impl FnMut(&[Step<'a>], &'a Object),
) {
    match &node.value {
        Value::Object(object) => {
            visit(path, object);
            for member in object.iter_unique() {
                path.push(Step::Key(&member.key));
                walk(&member.value, path, visit);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                walk(item, path, visit);
                path.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Dialect, Limits, parse};

    #[test]
    fn every_object_with_the_pointer_to_it() {
        let root = parse(
            r#"{"a": [1, {"b": {}}], "c/d": {"e": null}}"#,
            Dialect::Json,
            &Limits::default(),
        )
        .unwrap();
        let mut seen = Vec::new();
        each_object(&root, &mut |path, object| {
            seen.push((
                pointer(Pointer::root(), path).to_string(),
                object.len_unique(),
            ));
        });
        assert_eq!(
            seen,
            [
                (String::new(), 2),
                ("/a/1".to_string(), 1),
                ("/a/1/b".to_string(), 0),
                ("/c~1d".to_string(), 1),
            ]
        );
    }
}
