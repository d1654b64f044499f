//! The strings of a tool a model reads, each with its target kind and exact JSON pointer.
//!
//! Schemas nest (`properties`, `items`, `anyOf`, `$defs`, …), so the walk is generic: inside a
//! schema, `title`/`description` are text, `default`/`const`/`enum`/`examples` hold values
//! (every string inside is text), the keys of `properties`/`patternProperties` are property
//! names, and every other object or array is walked as a sub-schema.
//!
//! Every string of every tool is walked by several checks, and almost none has a finding, so
//! the walk records each string's path as a link into a small arena of steps; the JSON pointer
//! (an allocation per level) is spelled out only for a string that has a finding.

use crate::json::{Node, Object, Pointer, Value};
use crate::rules::TargetKind;

/// One string of a tool. `is_key`: the string is a property name (point at the key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetString<'t> {
    pub kind: TargetKind,
    pub text: &'t str,
    pub is_key: bool,
    /// The string's own step in [`ToolStrings::steps`].
    step: usize,
}

/// One step of a path below the tool: a member key or an array index, and the step above it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step<'t> {
    Key(&'t str, Option<usize>),
    Index(usize, Option<usize>),
}

impl Step<'_> {
    fn parent(self) -> Option<usize> {
        match self {
            Step::Key(_, parent) | Step::Index(_, parent) => parent,
        }
    }
}

/// Every target string of one tool, in document order, with the paths they sit at.
#[derive(Debug, Default)]
pub struct ToolStrings<'t> {
    pub strings: Vec<TargetString<'t>>,
    steps: Vec<Step<'t>>,
}

impl<'t> ToolStrings<'t> {
    /// The pointer to `target`, below `tool` (the tool object's own pointer).
    pub fn pointer(&self, tool: &Pointer, target: &TargetString<'_>) -> Pointer {
        let path: Vec<Step<'t>> = self.path_up(target).collect();
        path.iter()
            .rev()
            .fold(tool.clone(), |pointer, step| match step {
                Step::Key(key, _) => pointer.key(key),
                Step::Index(i, _) => pointer.index(*i),
            })
    }

    /// The top-level tool field `target` belongs to (`description`, `inputSchema`, …).
    pub fn field(&self, target: &TargetString<'_>) -> &'t str {
        match self.path_up(target).last() {
            Some(Step::Key(key, _)) => key,
            _ => "",
        }
    }

    /// The member key right below the top-level field (`x-note` in `annotations/x-note/0`), if
    /// the string is below one.
    pub fn key_below_field(&self, target: &TargetString<'_>) -> Option<&'t str> {
        let path: Vec<Step<'t>> = self.path_up(target).collect();
        match path.len().checked_sub(2).and_then(|i| path.get(i)) {
            Some(Step::Key(key, _)) => Some(key),
            _ => None,
        }
    }

    /// For a value in a schema (a string in `default`, `const`, `enum` or `examples`, or an
    /// item of one), that keyword; `None` for a `title` or `description`.
    pub fn value_keyword(&self, target: &TargetString<'_>) -> Option<&'t str> {
        if target.kind != TargetKind::SchemaText {
            return None;
        }
        match self
            .path_up(target)
            .find(|step| !matches!(step, Step::Index(..)))
        {
            Some(Step::Key(keyword, _))
                if matches!(keyword, "default" | "const" | "enum" | "examples") =>
            {
                Some(keyword)
            }
            _ => None,
        }
    }

    /// For a schema's `default` or `const` string (or an item of one), the name of the
    /// property it presets (`to` in `properties/to/default`).
    pub fn preset_property(&self, target: &TargetString<'_>) -> Option<&'t str> {
        if !matches!(self.value_keyword(target), Some("default" | "const")) {
            return None;
        }
        // An item of an array default (`"default": ["a@b.example"]`) presets it too.
        let mut path = self
            .path_up(target)
            .skip_while(|step| matches!(step, Step::Index(..)))
            .skip(1);
        let (Some(Step::Key(property, _)), Some(Step::Key(owner, _))) = (path.next(), path.next())
        else {
            return None;
        };
        (owner == "properties").then_some(property)
    }

    /// The steps from `target` up to the tool's own field, innermost first.
    fn path_up(&self, target: &TargetString<'_>) -> impl Iterator<Item = Step<'t>> + '_ {
        std::iter::successors(self.steps.get(target.step).copied(), |step| {
            step.parent().and_then(|i| self.steps.get(i)).copied()
        })
    }

    fn step(&mut self, step: Step<'t>) -> usize {
        self.steps.push(step);
        self.steps.len() - 1
    }

    fn text(&mut self, kind: TargetKind, step: usize, node: &'t Node) {
        if let Some(text) = node.as_str() {
            self.strings.push(TargetString {
                kind,
                text,
                is_key: false,
                step,
            });
        }
    }
}

/// Every target string of the tool object `tool`, in document order.
pub fn tool_strings(tool: &Object) -> ToolStrings<'_> {
    let mut out = ToolStrings::default();
    for (key, kind) in [
        ("name", TargetKind::Name),
        ("title", TargetKind::Title),
        ("description", TargetKind::Description),
    ] {
        if let Some(node) = tool.get(key) {
            let step = out.step(Step::Key(key, None));
            out.text(kind, step, node);
        }
    }
    if let Some(annotations) = tool.get("annotations") {
        let step = out.step(Step::Key("annotations", None));
        walk_values(annotations, step, TargetKind::AnnotationText, &mut out);
    }
    for key in ["inputSchema", "outputSchema"] {
        if let Some(schema) = tool.get(key) {
            let step = out.step(Step::Key(key, None));
            walk_schema(schema, step, &mut out);
        }
    }
    for member in tool.iter_unique() {
        if !SPEC_FIELDS.contains(&member.key.as_str()) {
            let step = out.step(Step::Key(&member.key, None));
            walk_values(&member.value, step, TargetKind::ExtraText, &mut out);
        }
    }
    out
}

/// The top-level tool fields the spec defines and the walk reads by kind; `icons` holds image
/// sources, not text. Every string in any other field is extra text.
const SPEC_FIELDS: &[&str] = &[
    "name",
    "title",
    "description",
    "annotations",
    "inputSchema",
    "outputSchema",
    "icons",
];

fn walk_schema<'t>(node: &'t Node, at: usize, out: &mut ToolStrings<'t>) {
    match &node.value {
        Value::Object(object) => {
            for member in object.iter_unique() {
                let here = out.step(Step::Key(&member.key, Some(at)));
                match member.key.as_str() {
                    "title" | "description" if member.value.as_str().is_some() => {
                        walk_values(&member.value, here, TargetKind::SchemaText, out);
                    }
                    "default" | "const" | "enum" | "examples" => {
                        walk_values(&member.value, here, TargetKind::SchemaText, out);
                    }
                    "properties" | "patternProperties" => {
                        let Some(properties) = member.value.as_object() else {
                            continue;
                        };
                        for property in properties.iter_unique() {
                            let step = out.step(Step::Key(&property.key, Some(here)));
                            out.strings.push(TargetString {
                                kind: TargetKind::PropertyName,
                                text: &property.key,
                                is_key: true,
                                step,
                            });
                            walk_schema(&property.value, step, out);
                        }
                    }
                    _ => walk_schema(&member.value, here, out),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let step = out.step(Step::Index(i, Some(at)));
                walk_schema(item, step, out);
            }
        }
        _ => {}
    }
}

/// Every string inside a value (`enum: [...]`, an object `default`, the annotations) is
/// target text of `kind`.
fn walk_values<'t>(node: &'t Node, at: usize, kind: TargetKind, out: &mut ToolStrings<'t>) {
    match &node.value {
        Value::String(_) => out.text(kind, at, node),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let step = out.step(Step::Index(i, Some(at)));
                walk_values(item, step, kind, out);
            }
        }
        Value::Object(object) => {
            for member in object.iter_unique() {
                let step = out.step(Step::Key(&member.key, Some(at)));
                walk_values(&member.value, step, kind, out);
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
    fn walks_every_string_a_model_reads() {
        let text = r#"{"name":"t","title":"T","description":"d","annotations":{"title":"A","readOnlyHint":true,"x-note":"n"},
            "x-usage":{"hint":["u"],"level":2},"_meta":{"m":"v"},"icons":[{"src":"https://example.com/i.png"}],
            "inputSchema":{"type":"object","description":"s",
              "properties":{"path":{"type":"string","default":"x","enum":["a","b"]},
                            "title":{"type":"string","description":"a property called title"}},
              "$defs":{"n":{"anyOf":[{"const":"c"}],"examples":[{"k":"e"}]}}},
            "outputSchema":{"items":{"title":"o"}}}"#;
        let root = parse(text, Dialect::Json, &Limits::default()).unwrap();
        let tool = root.as_object().unwrap();
        let strings = tool_strings(tool);
        let base = Pointer::root().key("tools").index(0);
        let got: Vec<String> = strings
            .strings
            .iter()
            .map(|s| {
                let pointer = strings.pointer(&base, s);
                let field = strings.field(s);
                if let Some(key) = strings.key_below_field(s) {
                    assert!(
                        pointer
                            .as_str()
                            .starts_with(&format!("/tools/0/{field}/{key}"))
                    );
                }
                assert!(pointer.as_str().starts_with(&format!("/tools/0/{field}")));
                format!("{} {} {}", s.kind.as_str(), pointer, s.text)
            })
            .collect();
        assert_eq!(
            got,
            [
                "name /tools/0/name t",
                "title /tools/0/title T",
                "description /tools/0/description d",
                "annotation-text /tools/0/annotations/title A",
                "annotation-text /tools/0/annotations/x-note n",
                "schema-text /tools/0/inputSchema/description s",
                "property-name /tools/0/inputSchema/properties/path path",
                "schema-text /tools/0/inputSchema/properties/path/default x",
                "schema-text /tools/0/inputSchema/properties/path/enum/0 a",
                "schema-text /tools/0/inputSchema/properties/path/enum/1 b",
                "property-name /tools/0/inputSchema/properties/title title",
                "schema-text /tools/0/inputSchema/properties/title/description a property called title",
                "schema-text /tools/0/inputSchema/$defs/n/anyOf/0/const c",
                "schema-text /tools/0/inputSchema/$defs/n/examples/0/k e",
                "schema-text /tools/0/outputSchema/items/title o",
                "extra-text /tools/0/x-usage/hint/0 u",
                "extra-text /tools/0/_meta/m v",
            ]
        );
    }

    #[test]
    fn names_the_property_a_default_presets() {
        let text = r#"{"name":"t","inputSchema":{"properties":{"to":{"default":"a@b.example","description":"d","examples":["e@f.example"]},"o":{"properties":{"cc":{"const":"c"},"bcc":{"default":["i"]}}}},"default":"x"}}"#;
        let root = parse(text, Dialect::Json, &Limits::default()).unwrap();
        let strings = tool_strings(root.as_object().unwrap());
        let presets: Vec<(&str, Option<&str>)> = strings
            .strings
            .iter()
            .filter(|s| s.kind == TargetKind::SchemaText)
            .map(|s| (s.text, strings.preset_property(s)))
            .collect();
        let keywords: Vec<Option<&str>> = strings
            .strings
            .iter()
            .filter(|s| s.kind == TargetKind::SchemaText)
            .map(|s| strings.value_keyword(s))
            .collect();
        assert_eq!(
            keywords,
            [
                Some("default"),
                None,
                Some("examples"),
                Some("const"),
                Some("default"),
                Some("default"),
            ]
        );
        assert_eq!(
            presets,
            [
                ("a@b.example", Some("to")),
                ("d", None),
                ("e@f.example", None),
                ("c", Some("cc")),
                ("i", Some("bcc")),
                ("x", None),
            ]
        );
    }

    #[test]
    fn names_the_key_below_the_field() {
        let text = r#"{"name":"t","description":"d","annotations":{"title":"A","x-note":"n"},"x-usage":{"hint":["u"]}}"#;
        let root = parse(text, Dialect::Json, &Limits::default()).unwrap();
        let strings = tool_strings(root.as_object().unwrap());
        let keys: Vec<Option<&str>> = strings
            .strings
            .iter()
            .map(|s| strings.key_below_field(s))
            .collect();
        assert_eq!(
            keys,
            [None, None, Some("title"), Some("x-note"), Some("hint")]
        );
    }
}
