//! `--output json` of `preview`, `up`, `refresh` and `destroy`: standard output carries one
//! line, Pulumi's summary of the run (`display.SummaryJSON`: `result`, `duration` in
//! nanoseconds, the count per operation and each resource acted on); the progress goes to
//! standard error. Built from the engine-event stream, as Pulumi's display tap builds it.

use std::time::Instant;

use serde_json::{Map, Value, json};

/// The resources seen so far and when the run began; one summary a `summaryEvent`.
pub(super) struct SummaryJson {
    show_sames: bool,
    started: Instant,
    resources: Vec<Value>,
}

impl SummaryJson {
    pub(super) fn new(show_sames: bool) -> SummaryJson {
        SummaryJson {
            show_sames,
            started: Instant::now(),
            resources: Vec::new(),
        }
    }

    /// Takes in one event of the stream; at its `summaryEvent`, the summary line to print.
    pub(super) fn event(&mut self, event: &Value, internal: bool) -> Option<String> {
        if let Some(pre) = event.get("resourcePreEvent") {
            if !internal {
                self.resource(&pre["metadata"]);
            }
            return None;
        }
        let summary = event.get("summaryEvent")?;
        let mut line = Map::new();
        line.insert("result".into(), summary["result"].clone());
        let nanos = u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        line.insert("duration".into(), json!(nanos));
        if let Some(changes) = summary["resourceChanges"]
            .as_object()
            .filter(|c| !c.is_empty())
        {
            line.insert("summary".into(), Value::Object(changes.clone()));
        }
        let resources = std::mem::take(&mut self.resources);
        if !resources.is_empty() {
            line.insert("resources".into(), Value::Array(resources));
        }
        self.started = Instant::now();
        Some(Value::Object(line).to_string())
    }

    /// One `resourcePreEvent`'s resource, unless it stays the same and sames are not shown.
    fn resource(&mut self, metadata: &Value) {
        let op = metadata["op"].as_str().unwrap_or_default();
        if op == "same" && !self.show_sames {
            return;
        }
        let urn = metadata["urn"].as_str().unwrap_or_default();
        let name = urn.rsplit("::").next().unwrap_or_default();
        let mut entry = json!({
            "urn": urn,
            "type": metadata["type"],
            "name": name,
            "op": op,
        });
        let parent = [&metadata["new"]["parent"], &metadata["old"]["parent"]]
            .into_iter()
            .find_map(|p| p.as_str().filter(|p| !p.is_empty()));
        if let Some(parent) = parent {
            entry["parent"] = parent.into();
        }
        self.resources.push(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_lists_the_resources_acted_on_and_leaves_sames_out() {
        let mut s = SummaryJson::new(false);
        let pre = |urn: &str, op: &str| {
            json!({"resourcePreEvent": {"metadata": {
                "urn": urn, "type": "t:m:R", "op": op,
                "new": {"parent": "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev"}}}})
        };
        assert_eq!(
            s.event(&pre("urn:pulumi:dev::p::t:m:R::a", "create"), false),
            None
        );
        s.event(&pre("urn:pulumi:dev::p::t:m:R::b", "same"), false);
        s.event(&pre("urn:pulumi:dev::p::t:m:R::c", "create"), true);
        let end =
            json!({"summaryEvent": {"result": "succeeded", "resourceChanges": {"create": 1}}});
        let line: Value = serde_json::from_str(&s.event(&end, false).unwrap()).unwrap();
        assert_eq!(line["result"], "succeeded");
        assert_eq!(line["summary"], json!({"create": 1}));
        assert_eq!(
            line["resources"],
            json!([{"urn": "urn:pulumi:dev::p::t:m:R::a", "type": "t:m:R", "name": "a",
                    "op": "create", "parent": "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev"}])
        );
        assert!(line["duration"].is_u64());
    }
}
